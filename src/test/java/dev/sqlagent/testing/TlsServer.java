package dev.sqlagent.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real PostgreSQL (the embedded binaries) that speaks TLS only: a CA, server and client certificates made
 * with the {@code openssl} command, {@code hostnossl ... reject}, and one role per way of logging in:
 * {@code scram_user} (SCRAM-SHA-256), {@code md5_user} (md5), {@code trust_user} (trust), {@code cert_user}
 * (client certificate), and over its Unix socket {@code peer} for the role the server sees the client as.
 * Also a second CA that signed nothing the server shows, and a state owner that is NOSUPERUSER CREATEROLE.
 */
public final class TlsServer implements AutoCloseable {

  public static final String PASSWORD = "pw-for-tls-tests";
  public static final String TARGET_DB = "tls_shop";
  public static final String READER = "scram_user";
  public static final String STATE_OWNER = "state_owner";
  public static final String STATE_DB = "agent_state";
  public static final String KEY_PASSWORD = "key-passphrase";

  public final Path dir;
  public final Path ca;
  public final Path otherCa;
  public final Path clientCert;
  public final Path clientKey;
  /** {@link #clientKey} encrypted with {@link #KEY_PASSWORD}. */
  public final Path clientKeyEncrypted;
  public final Path socketDir;
  /** The OS user the server sees a socket client as (through zonky's user namespace), also a role. */
  public final String peerRole;
  private final EmbeddedPostgres pg;

  private TlsServer(Path dir, EmbeddedPostgres pg, String peerRole) {
    this.dir = dir;
    this.pg = pg;
    this.ca = dir.resolve("ca.crt");
    this.otherCa = dir.resolve("other-ca.crt");
    this.clientCert = dir.resolve("client.crt");
    this.clientKey = dir.resolve("client.key");
    this.clientKeyEncrypted = dir.resolve("client-enc.key");
    this.socketDir = dir.resolve("sock");
    this.peerRole = peerRole;
  }

  public int port() {
    return pg.getPort();
  }

  public static TlsServer start() throws Exception {
    Path dir = Files.createTempDirectory("sql-agent-tls");
    Path sock = Files.createDirectories(dir.resolve("sock"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rwxrwxrwx"));
    certificates(dir);
    EmbeddedPostgres pg = tlsServer(dir, dir.resolve("data"), true, sock)
        .setServerConfig("timezone", "UTC")
        .start();
    String peer;
    try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      // who a socket client is to the server: the server's own OS user is what zonky's namespace shows
      s.execute("SET password_encryption = 'scram-sha-256'");
      s.execute("ALTER ROLE postgres PASSWORD '" + PASSWORD + "'");
      for (String role : List.of(READER, "trust_user", "cert_user")) {
        s.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + PASSWORD + "'");
      }
      s.execute("CREATE ROLE " + STATE_OWNER + " LOGIN NOSUPERUSER NOCREATEDB CREATEROLE PASSWORD '" + PASSWORD + "'");
      s.execute("SET password_encryption = 'md5'");
      s.execute("CREATE ROLE md5_user LOGIN PASSWORD '" + PASSWORD + "'");
      s.execute("CREATE DATABASE " + TARGET_DB);
      s.execute("CREATE DATABASE " + STATE_DB + " OWNER " + STATE_OWNER);
      try (var rs = s.executeQuery("SELECT pg_read_file('/proc/self/status')")) {
        rs.next();
        peer = uidName(rs.getString(1));
      } catch (SQLException e) {
        peer = "nobody";
      }
      s.execute("CREATE ROLE \"" + peer + "\" LOGIN");
    }
    try (Connection c = pg.getDatabase("postgres", TARGET_DB).getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(8,2) NOT NULL)");
      s.execute("INSERT INTO items SELECT g, 'item ' || g, g * 1.5 FROM generate_series(1, 20) g");
      s.execute("COMMENT ON TABLE items IS 'things for sale'");
      for (String role : List.of(READER, "md5_user", "trust_user", "cert_user", "\"" + peer + "\"")) {
        s.execute("GRANT SELECT ON items TO " + role);
      }
    }
    Files.writeString(dir.resolve("data/pg_hba.conf"), String.join("\n",
        "# written by TlsServer: TLS only over TCP, one method per role",
        "local all " + "\"" + peer + "\"" + " peer",
        "local all all reject",
        "hostnossl all all all reject",
        "hostssl all cert_user all cert",
        "hostssl all md5_user all md5",
        "hostssl all trust_user all trust",
        "hostssl all all all scram-sha-256",
        "hostssl replication postgres all scram-sha-256",
        ""));
    try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    }
    TlsServer server = new TlsServer(dir, pg, peer);
    TimeUnit.MILLISECONDS.sleep(300);
    return server;
  }

  /**
   * A streaming-replication standby of this server, TLS-only like it, on its own port: for host lists with
   * target_session_attrs. The embedded binaries have no pg_basebackup, so it is PostgreSQL's low-level base
   * backup: pg_backup_start, a copy of the data directory, pg_backup_stop's backup_label; the standby then
   * streams the rest from this server. The caller closes it.
   */
  public EmbeddedPostgres startStandby() throws Exception {
    Path data = dir.resolve("standby");
    Path primary = dir.resolve("data");
    try (Connection c = admin("postgres"); Statement s = c.createStatement()) {
      s.execute("SELECT pg_backup_start('sql-agent standby', true)");
      try (var files = Files.walk(primary)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Path rel = primary.relativize(f);
          String name = rel.toString();
          if (name.equals("postmaster.pid") || name.equals("postmaster.opts") || name.startsWith("epg-lock")) continue;
          Path to = data.resolve(rel);
          if (Files.isDirectory(f)) {
            Files.createDirectories(to);
          } else {
            try {
              Files.copy(f, to);
            } catch (java.nio.file.NoSuchFileException gone) {
              // removed while copying (a temporary file): the backup does not need it
            }
          }
        }
      }
      try (var rs = s.executeQuery("SELECT labelfile FROM pg_backup_stop(true)")) {
        rs.next();
        Files.writeString(data.resolve("backup_label"), rs.getString(1));
      }
    }
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    Files.writeString(data.resolve("standby.signal"), "");
    Files.writeString(data.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=localhost port=" + port()
        + " user=postgres password=" + PASSWORD + " sslmode=require'\n", java.nio.file.StandardOpenOption.APPEND);
    Path sock = Files.createDirectories(dir.resolve("standby-sock"));
    Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rwxrwxrwx"));
    return tlsServer(dir, data, false, sock)
        .setConnectConfig("password", PASSWORD)
        .start();
  }

  /** A server on {@code data} with TLS from the certificates in {@code dir}, listening on localhost and {@code sock}. */
  private static EmbeddedPostgres.Builder tlsServer(Path dir, Path data, boolean clean, Path sock) throws IOException {
    return EmbeddedPostgres.builder()
        .setDataDirectory(data)
        .setCleanDataDirectory(clean)
        .setOverrideWorkingDirectory(TestDatabase.binaries().toFile())
        .setPGStartupWait(Duration.ofSeconds(60))
        .setServerConfig("listen_addresses", "localhost")
        .setServerConfig("unix_socket_directories", sock.toString())
        .setServerConfig("ssl", "on")
        .setServerConfig("ssl_cert_file", dir.resolve("server.crt").toString())
        .setServerConfig("ssl_key_file", dir.resolve("server.key").toString())
        .setServerConfig("ssl_ca_file", dir.resolve("ca.crt").toString())
        .setServerConfig("max_connections", "60");
  }

  /** The OS user name of the uid in a /proc/self/status text, as the server's getpwuid would say. */
  private static String uidName(String status) throws IOException {
    String uid = status.lines().filter(l -> l.startsWith("Uid:")).findFirst().orElse("Uid:\t65534").split("\\s+")[1];
    for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
      String[] f = line.split(":");
      if (f.length > 2 && f[2].equals(uid)) return f[0];
    }
    return "nobody";
  }

  /** The superuser over TLS (it is trusted from localhost only through the socket-less TCP path). */
  public Connection admin(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("sslmode", "verify-ca");
    p.setProperty("sslrootcert", ca.toString());
    p.setProperty("password", PASSWORD);
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port() + "/" + database, p);
  }

  /**
   * For the TLS-versus-plain benchmark only: plain TCP with SCRAM for every role too, on the same server, so
   * both sides differ in TLS alone.
   */
  public void allowPlain() throws Exception {
    Path hba = dir.resolve("data/pg_hba.conf");
    Files.writeString(hba, Files.readString(hba).replace("hostnossl all all all reject", "hostnossl all all all scram-sha-256"));
    try (Connection c = admin("postgres"); Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    }
    TimeUnit.MILLISECONDS.sleep(300);
  }

  /** What a query could have changed in the target database: its relations, rows and write counters. */
  public String fingerprint() throws SQLException {
    StringBuilder b = new StringBuilder();
    try (Connection c = admin(TARGET_DB); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "SELECT string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' ORDER BY 1) FROM pg_class c "
              + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') "
              + "AND n.nspname NOT LIKE 'pg\\_toast%'",
          "SELECT md5(string_agg(i::text, ',' ORDER BY id)) FROM items i",
          "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables",
          "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
          "SELECT string_agg(coalesce(r.rolname, '*') || ':' || array_to_string(d.setconfig, ';'), ',' ORDER BY 1) "
              + "FROM pg_db_role_setting d LEFT JOIN pg_roles r ON r.oid = d.setrole "
              // the state store's log role is set up on this server too: its settings are not the target's
              + "WHERE r.rolname IS DISTINCT FROM 'sql_agent_log'")) {
        try (var rs = s.executeQuery(sql)) {
          rs.next();
          b.append(rs.getString(1)).append('\n');
        }
      }
    }
    return b.toString();
  }

  @Override
  public void close() throws IOException {
    pg.close();
    // the extracted binaries, certificates and data: tens of megabytes per server
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
    }
  }

  private static void certificates(Path dir) throws Exception {
    openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "3",
        "-subj", "/CN=sql-agent test CA");
    openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out", "other-ca.crt",
        "-days", "3", "-subj", "/CN=another CA");
    Files.writeString(dir.resolve("server.ext"), "subjectAltName=DNS:localhost\n");
    openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost");
    openssl(dir, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "3", "-extfile", "server.ext");
    // the client's key in the traditional RSA form libpq users often have (ClientKey converts it for pgjdbc)
    openssl(dir, "genrsa", "-traditional", "-out", "client.key", "2048");
    openssl(dir, "req", "-new", "-key", "client.key", "-out", "client.csr", "-subj", "/CN=cert_user");
    openssl(dir, "x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "client.crt", "-days", "3");
    // the same key as encrypted PKCS-8 (OpenSSL 3's default: PBES2, AES-256-CBC), for sslpassword
    openssl(dir, "pkcs8", "-topk8", "-in", "client.key", "-out", "client-enc.key", "-passout", "pass:" + KEY_PASSWORD);
    for (String key : List.of("server.key", "client.key", "client-enc.key", "ca.key", "other-ca.key")) {
      Files.setPosixFilePermissions(dir.resolve(key), PosixFilePermissions.fromString("rw-------"));
    }
  }

  private static void openssl(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
    }
  }
}
