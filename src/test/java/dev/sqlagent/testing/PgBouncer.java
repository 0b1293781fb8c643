package dev.sqlagent.testing;

import dev.sqlagent.db.PgUrl;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer (Debian's {@code pgbouncer} package, which {@code .ci/run} installs) in front of one database, in
 * transaction pooling mode: each transaction may land on another server connection, and nothing of a session
 * (prepared statements, settings) survives from one transaction to the next. Its own ini, on a free loopback port;
 * clients log in to it with their own role and password (scram-sha-256, from an auth file), and it logs in to the
 * server with the same ones.
 */
public final class PgBouncer implements AutoCloseable {

  /** Where Debian's package puts it. */
  public static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

  private final Process process;
  private final Path dir;
  private final int port;
  private final PgUrl server;

  private PgBouncer(Process process, Path dir, int port, PgUrl server) {
    this.process = process;
    this.dir = dir;
    this.port = port;
    this.server = server;
  }

  /**
   * Starts it for {@code database} of the server {@code server} names, for these users (role and password),
   * with at most {@code poolSize} server connections per user. Blocking, until it accepts connections.
   */
  public static PgBouncer start(PgUrl server, String database, int poolSize, List<PgUrl> users) throws IOException {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(BINARY + " is missing: install Debian's pgbouncer package (apt-get install pgbouncer;"
          + " .ci/run does)");
    }
    Path dir = Files.createTempDirectory("sql-agent-pgbouncer");
    int port = FreePorts.next();
    StringBuilder auth = new StringBuilder();
    for (PgUrl u : users) auth.append(quoted(u.user())).append(' ').append(quoted(u.password())).append('\n');
    Files.writeString(dir.resolve("users.txt"), auth);
    Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
        "[databases]",
        database + " = host=" + server.host() + " port=" + server.port() + " dbname=" + database,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        "listen_port = " + port,
        "unix_socket_dir =",
        "auth_type = scram-sha-256",
        "auth_file = " + dir.resolve("users.txt"),
        "pool_mode = transaction",
        "default_pool_size = " + poolSize,
        "max_client_conn = 500",
        // What the clients send at start-up that PgBouncer does not track itself (pgjdbc: extra_float_digits).
        "ignore_startup_parameters = extra_float_digits,options",
        "server_reset_query =",
        "logfile = " + dir.resolve("pgbouncer.log"),
        "log_connections = 0",
        "log_disconnections = 0",
        "",
        ""));
    List<String> command = new ArrayList<>(List.of(BINARY.toString()));
    // PgBouncer refuses to run as root; as root it drops to an unprivileged user, who must read its files.
    if ("root".equals(System.getProperty("user.name"))) {
      command.addAll(List.of("-u", "nobody"));
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      for (String f : List.of("users.txt", "pgbouncer.ini")) {
        Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
      }
    }
    command.add(dir.resolve("pgbouncer.ini").toString());
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("stdout.txt").toFile()).start();
    PgBouncer bouncer = new PgBouncer(p, dir, port, server);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) throw new IOException("pgbouncer exited at start: " + bouncer.log());
      try (Socket s = new Socket("127.0.0.1", port)) {
        return bouncer;
      } catch (IOException notYet) {
        sleep(50);
      }
    }
    bouncer.close();
    throw new IOException("pgbouncer did not listen on " + port + " within 20 s: " + bouncer.log());
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\"", "\"\"") + "\"";
  }

  /** {@code url} (a user of this database) as reached through PgBouncer. */
  public PgUrl through(PgUrl url) {
    return new PgUrl("127.0.0.1", port, url.user(), url.password(), url.database());
  }

  public int port() {
    return port;
  }

  /** The server it pools connections to. */
  public PgUrl server() {
    return server;
  }

  /** Its log and its output so far (for a failure's message). */
  public String log() {
    StringBuilder b = new StringBuilder();
    for (String f : List.of("stdout.txt", "pgbouncer.log")) {
      try {
        b.append(Files.readString(dir.resolve(f)));
      } catch (IOException ignored) {
        // not written yet
      }
    }
    return b.toString();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // a temporary directory: left for the OS
    }
  }
}
