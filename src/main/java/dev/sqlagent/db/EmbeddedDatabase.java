package dev.sqlagent.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL: real server binaries from the zonky Maven artifact, a persistent data
 * directory under the service's home, so data and role passwords survive restarts.
 *
 * <p>What a plain zonky start does not give a real service, added here (as root, zonky itself runs the
 * server in an unprivileged user namespace with {@code unshare -U}):
 * <ul>
 *   <li>Password authentication. initdb runs with {@code trust}; on first start the superuser gets a
 *       generated password and pg_hba.conf is switched to scram-sha-256, so the agent's roles really are
 *       separated by their passwords.</li>
 *   <li>A clean start after a crash. A server left running by a process killed without stopping it is stopped
 *       first ({@link StaleServer}); zonky would otherwise wait its whole start-up time for a server that cannot
 *       start beside the orphan, and fail.</li>
 * </ul>
 */
public final class EmbeddedDatabase implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
  private static final String ADMIN = "postgres";

  private final EmbeddedPostgres pg;
  private final PgUrl adminUrl;
  private final Path key;

  private EmbeddedDatabase(EmbeddedPostgres pg, PgUrl adminUrl, Path key) {
    this.pg = pg;
    this.adminUrl = adminUrl;
    this.key = key;
  }

  /** Starts (initialising on first use) the server whose data lives in {@code dataDir}. Blocking. */
  public static EmbeddedDatabase start(Path dataDir, Path binDir, String adminPassword) throws IOException {
    return start(dataDir, binDir, adminPassword, 0);
  }

  /**
   * As {@link #start(Path, Path, String)} on a given port (0: any free one). Starting again on the same data
   * directory and port after {@link #close()} is a restart: clients that reconnect find the same server.
   */
  public static EmbeddedDatabase start(Path dataDir, Path binDir, String adminPassword, int port) throws IOException {
    boolean fresh = !Files.exists(dataDir.resolve("postgresql.conf"));
    Files.createDirectories(dataDir.getParent());
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
        .setDataDirectory(dataDir)
        .setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(binDir.toFile())
        .setPGStartupWait(Duration.ofSeconds(60))
        .setServerConfig("listen_addresses", "localhost")
        .setServerConfig("unix_socket_directories", "")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("max_connections", "100")
        .setServerConfig("timezone", "UTC")
        .setConnectConfig("password", adminPassword);
    if (port > 0) builder.setPort(port);
    Path key = dataDir.toAbsolutePath().normalize();
    if (!RUNNING.add(key)) throw new InUseException(dataDir);
    EmbeddedPostgres pg;
    try {
      if (!fresh) clearStaleServer(dataDir);
      pg = builder.start();
    } catch (IllegalStateException e) {
      RUNNING.remove(key);
      // zonky locks dataDir/epg-lock for as long as its server runs: another process (or this one) has it.
      if (e instanceof java.nio.channels.OverlappingFileLockException
          || String.valueOf(e.getMessage()).startsWith("could not lock")) {
        throw new InUseException(dataDir);
      }
      throw e;
    } catch (IOException | RuntimeException e) {
      RUNNING.remove(key);
      throw e;
    }
    if (fresh) {
      try {
        secure(pg, dataDir, adminPassword);
      } catch (IOException | RuntimeException e) {
        try {
          pg.close();
        } finally {
          RUNNING.remove(key);
        }
        throw e;
      }
    }
    PgUrl url = new PgUrl("localhost", pg.getPort(), ADMIN, adminPassword, "postgres");
    LOG.info("embedded PostgreSQL {} on port {} (data: {})", fresh ? "initialised" : "started", pg.getPort(), dataDir);
    return new EmbeddedDatabase(pg, url, key);
  }

  /**
   * A server left running on {@code dataDir} by a sql-agent that died without stopping it is stopped (or a pid file
   * naming no server removed), so that this start is the first and only one. Only when the directory's lock is free:
   * a live sql-agent holds it for as long as its server runs, and its server is never touched.
   */
  private static void clearStaleServer(Path dataDir) throws IOException {
    Path lockFile = dataDir.resolve("epg-lock");
    if (!Files.exists(dataDir.resolve("postmaster.pid"))) return;
    if (!Files.exists(lockFile)) {
      StaleServer.clear(dataDir);
      return;
    }
    // Never a lock this JVM holds (RUNNING was checked first): closing any channel of a file drops every lock the JVM
    // holds on it.
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock = channel.tryLock();
      if (lock == null) throw new InUseException(dataDir);
      try {
        StaleServer.clear(dataDir);
      } finally {
        lock.release();
      }
    } catch (OverlappingFileLockException e) {
      throw new InUseException(dataDir);
    }
  }

  /** The data directories of the servers this JVM starts or runs (closed ones leave). */
  private static final Set<Path> RUNNING = ConcurrentHashMap.newKeySet();

  /** The data directory is locked: an embedded PostgreSQL already runs on it (another sql-agent). */
  public static final class InUseException extends IOException {
    private final Path dataDir;

    InUseException(Path dataDir) {
      super("the embedded PostgreSQL in " + dataDir + " is already in use (" + dataDir.resolve("epg-lock") + " is locked)");
      this.dataDir = dataDir;
    }

    public Path dataDir() {
      return dataDir;
    }
  }

  public PgUrl adminUrl() {
    return adminUrl;
  }

  public int port() {
    return pg.getPort();
  }

  @Override
  public void close() throws IOException {
    try {
      pg.close();
    } finally {
      RUNNING.remove(key);
    }
  }

  /** Superuser password and scram authentication for every TCP connection from now on. */
  private static void secure(EmbeddedPostgres pg, Path dataDir, String adminPassword) throws IOException {
    try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      s.execute("SET password_encryption = 'scram-sha-256'");
      s.execute("ALTER ROLE postgres PASSWORD " + Identifiers.literal(adminPassword));
      Files.writeString(dataDir.resolve("pg_hba.conf"),
          "# written by sql-agent: every connection authenticates with a password\n"
              + "host all all 127.0.0.1/32 scram-sha-256\n"
              + "host all all ::1/128 scram-sha-256\n");
      s.execute("SELECT pg_reload_conf()");
    } catch (java.sql.SQLException e) {
      throw new IOException("could not secure the embedded PostgreSQL: " + e.getMessage(), e);
    }
  }


}
