package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.TlsServer;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Both clients, built from one connection spec, against a real TLS-only server: for every way of logging in
 * and every sslmode they reach the same server port as the same user in the same database with TLS on or
 * off alike, and a connection that must fail fails in both with the same sentence saying what to change.
 */
class ConnectTest {

  static final String WHO = "SELECT coalesce(inet_server_port()::text, 'socket'), current_user::text, current_database()::text, "
      + "(SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()), current_setting('application_name')";

  static TlsServer server;
  static Vertx vertx;
  static Path home;

  @BeforeAll
  static void start() throws Exception {
    server = TlsServer.start();
    // native transport: the reactive client's Unix sockets need it
    vertx = Vertx.builder().with(new VertxOptions().setPreferNativeTransport(true)).build();
    home = Files.createTempDirectory("sql-agent-home");
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
    if (server != null) server.close();
  }

  private static PgUrl parse(String s, Map<String, String> vars) {
    return PgUrl.parse(s, new PgEnvironment(vars, home, "osuser"));
  }

  private static PgUrl parse(String s) {
    return parse(s, Map.of());
  }

  private static String base(String user) {
    return "postgresql://" + user + "@localhost:" + server.port() + "/" + TlsServer.TARGET_DB;
  }

  /** port, user, database, ssl, application_name, through JDBC. */
  static List<String> jdbc(PgUrl u) throws Exception {
    try (Connection c = u.connect("agree"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(WHO)) {
      rs.next();
      return List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5));
    }
  }

  /** The same through the reactive client. */
  static List<String> reactive(PgUrl u) throws Exception {
    SqlClient client = PgBuilder.client().connectingTo(u.options("agree")).using(vertx).build();
    try {
      Row r = client.query(WHO).execute().await(30, TimeUnit.SECONDS).iterator().next();
      return List.of(r.getString(0), r.getString(1), r.getString(2), r.getString(3), r.getString(4));
    } catch (Exception e) {
      throw new Exception(ConnectFailure.describe(e, u), e);
    } finally {
      client.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static void agree(PgUrl u, String user, boolean tls) throws Exception {
    List<String> a = jdbc(u);
    List<String> b = reactive(u);
    assertThat(b).as(u.toString()).isEqualTo(a);
    assertThat(a.get(1)).isEqualTo(user);
    assertThat(a.get(2)).isEqualTo(TlsServer.TARGET_DB);
    assertThat(a.get(3)).as("ssl of " + u).isEqualTo(String.valueOf(tls));
  }

  @Test
  void scramOverVerifiedTls() throws Exception {
    agree(parse(base(TlsServer.READER + ":" + TlsServer.PASSWORD) + "?sslmode=verify-full&sslrootcert=" + server.ca),
        TlsServer.READER, true);
    // keyword/value form; require encrypts without verifying
    agree(parse("host=localhost port=" + server.port() + " dbname=" + TlsServer.TARGET_DB + " user=" + TlsServer.READER
        + " password=" + TlsServer.PASSWORD + " sslmode=require application_name=mine"), TlsServer.READER, true);
    // prefer, libpq's default, finds TLS
    agree(parse(base(TlsServer.READER + ":" + TlsServer.PASSWORD)), TlsServer.READER, true);
    // hostaddr is dialled, host is what the certificate must name (as libpq)
    agree(parse("host=localhost hostaddr=127.0.0.1 port=" + server.port() + " dbname=" + TlsServer.TARGET_DB + " user="
        + TlsServer.READER + " password=" + TlsServer.PASSWORD + " sslmode=verify-full sslrootcert=" + server.ca),
        TlsServer.READER, true);
    // verify-ca does not look at the name (127.0.0.1 is not in the certificate)
    agree(parse("postgresql://" + TlsServer.READER + ":" + TlsServer.PASSWORD + "@127.0.0.1:" + server.port() + "/"
        + TlsServer.TARGET_DB + "?sslmode=verify-ca&sslrootcert=" + server.ca), TlsServer.READER, true);
  }

  @Test
  void preferAndAllowFallBackAsLibpq() throws Exception {
    // allow tries plain first; this server refuses it, so both clients go on with TLS
    agree(parse(base(TlsServer.READER + ":" + TlsServer.PASSWORD) + "?sslmode=allow"), TlsServer.READER, true);
    // prefer (the default) against a server without TLS: plain, in both
    PgUrl plain = TestDatabase.get().adminUrl();
    PgUrl u = parse("postgresql://" + plain.user() + ":" + plain.password() + "@" + plain.host() + ":" + plain.port()
        + "/postgres");
    assertThat(u.tls().mode()).isEqualTo("prefer");
    List<String> a = jdbc(u);
    assertThat(reactive(u)).isEqualTo(a);
    assertThat(a.get(3)).isEqualTo("false");
  }

  @Test
  void md5TrustAndClientCertificates() throws Exception {
    agree(parse(base("md5_user:" + TlsServer.PASSWORD) + "?sslmode=require"), "md5_user", true);
    // trust: no password anywhere
    agree(parse(base("trust_user") + "?sslmode=require"), "trust_user", true);
    // cert: the client certificate is the credential
    agree(parse(base("cert_user") + "?sslmode=verify-full&sslrootcert=" + server.ca + "&sslcert=" + server.clientCert
        + "&sslkey=" + server.clientKey), "cert_user", true);
    // an encrypted key with its passphrase
    agree(parse(base("cert_user") + "?sslmode=verify-full&sslrootcert=" + server.ca + "&sslcert=" + server.clientCert
        + "&sslkey=" + server.clientKeyEncrypted + "&sslpassword=" + TlsServer.KEY_PASSWORD), "cert_user", true);
    assertThatThrownBy(() -> parse(base("cert_user") + "?sslcert=" + server.clientCert + "&sslkey=" + server.clientKeyEncrypted))
        .hasMessage("sslkey file '" + server.clientKeyEncrypted + "' is encrypted: give its passphrase as sslpassword");
    assertThatThrownBy(() -> parse(base("cert_user") + "?sslcert=" + server.clientCert + "&sslkey=" + server.clientKeyEncrypted
        + "&sslpassword=wrong")).hasMessageStartingWith("sslkey file '" + server.clientKeyEncrypted + "' cannot be decrypted");
  }

  @Test
  void passwordsFromPgpassAndPgpassword() throws Exception {
    Path pgpass = home.resolve(".pgpass");
    Files.writeString(pgpass, "localhost:" + server.port() + ":*:" + TlsServer.READER + ":" + TlsServer.PASSWORD + "\n");
    Files.setPosixFilePermissions(pgpass, PosixFilePermissions.fromString("rw-------"));
    try {
      PgUrl u = parse(base(TlsServer.READER) + "?sslmode=verify-full&sslrootcert=" + server.ca);
      assertThat(u.passwordFrom()).isEqualTo(pgpass.toString());
      agree(u, TlsServer.READER, true);
    } finally {
      Files.delete(pgpass);
    }
    Map<String, String> vars = new HashMap<>();
    vars.put("PGPASSWORD", TlsServer.PASSWORD);
    vars.put("PGSSLMODE", "verify-full");
    vars.put("PGSSLROOTCERT", server.ca.toString());
    vars.put("PGHOST", "localhost");
    vars.put("PGPORT", String.valueOf(server.port()));
    vars.put("PGUSER", TlsServer.READER);
    vars.put("PGDATABASE", TlsServer.TARGET_DB);
    agree(parse("", vars), TlsServer.READER, true);
  }

  @Test
  void hostListsFindTheServerTargetSessionAttrsAsks() throws Exception {
    try (var standby = server.startStandby()) {
      String list = "host=localhost,localhost port=" + server.port() + "," + standby.getPort() + " dbname="
          + TlsServer.TARGET_DB + " user=" + TlsServer.READER + " password=" + TlsServer.PASSWORD
          + " sslmode=verify-full sslrootcert=" + server.ca + " target_session_attrs=";
      // zonky's start waits for connections; the standby answers as soon as it has replayed to consistency
      for (var e : Map.of("standby", standby.getPort(), "read-only", standby.getPort(), "prefer-standby", standby.getPort(),
          "primary", server.port(), "read-write", server.port(), "any", server.port()).entrySet()) {
        PgUrl picked = parse(list + e.getKey()).pick();
        assertThat(picked.port()).as(e.getKey()).isEqualTo(e.getValue());
        List<String> a = jdbc(picked);
        assertThat(reactive(picked)).isEqualTo(a);
        assertThat(a.get(0)).as(e.getKey()).isEqualTo(String.valueOf(e.getValue()));
        assertThat(a.get(3)).isEqualTo("true");
      }
      // the list's JDBC connection picks the same way
      try (Connection c = parse(list + "standby").connect("list"); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
        rs.next();
        assertThat(rs.getBoolean(1)).isTrue();
      }
      // prefer-standby with no standby up falls back to the primary; standby alone says why not
      String primaryOnly = "host=localhost port=" + server.port() + " dbname=" + TlsServer.TARGET_DB + " user="
          + TlsServer.READER + " password=" + TlsServer.PASSWORD + " sslmode=require target_session_attrs=";
      assertThat(parse(primaryOnly + "prefer-standby").pick().port()).isEqualTo(server.port());
      assertThatThrownBy(() -> parse(primaryOnly + "standby").pick())
          .hasMessage("no server in the host list fits target_session_attrs=standby: localhost:" + server.port()
              + " is a primary");
    }
  }

  @Test
  void peerOverTheUnixSocket() throws Exception {
    assertThat(vertx.isNativeTransportEnabled()).as("netty native epoll").isTrue();
    PgUrl u = parse("postgresql://" + server.peerRole + "@/" + TlsServer.TARGET_DB + "?host=" + server.socketDir
        + "&port=" + server.port());
    assertThat(u.password()).isNull();
    List<String> a = jdbc(u);
    List<String> b = reactive(u);
    assertThat(b).isEqualTo(a);
    assertThat(a.get(1)).isEqualTo(server.peerRole);
    assertThat(a.get(0)).isEqualTo("socket");
    assertThat(a.get(3)).isEqualTo("false");
  }

  /** The same sentence from both clients. */
  private static String failure(PgUrl u) {
    String j = null;
    String r = null;
    try {
      jdbc(u);
    } catch (Exception e) {
      j = e.getMessage();
    }
    try {
      reactive(u);
    } catch (Exception e) {
      r = e.getMessage();
    }
    assertThat(j).as("JDBC to " + u).isNotNull();
    assertThat(r).as("reactive to " + u).isEqualTo(j);
    return j;
  }

  @Test
  void failuresSayWhatToChange() throws Exception {
    assertThat(failure(parse(base(TlsServer.READER + ":" + TlsServer.PASSWORD) + "?sslmode=disable")))
        .isEqualTo("pg_hba.conf refuses a non-TLS connection from this host: add sslmode=require (or verify-full with "
            + "the server's CA in sslrootcert)");
    assertThat(failure(parse(base(TlsServer.READER + ":" + TlsServer.PASSWORD) + "?sslmode=verify-full&sslrootcert="
        + server.otherCa)))
        .isEqualTo("the server's certificate is not signed by the CA in " + server.otherCa
            + ": put the CA that signed it in sslrootcert");
    assertThat(failure(parse(base(TlsServer.READER + ":" + TlsServer.PASSWORD) + "?sslrootcert=system")))
        .startsWith("the server's certificate is not signed by a CA the JDK trusts");
    assertThat(failure(parse("postgresql://" + TlsServer.READER + ":" + TlsServer.PASSWORD + "@127.0.0.1:" + server.port()
        + "/" + TlsServer.TARGET_DB + "?sslmode=verify-full&sslrootcert=" + server.ca)))
        .startsWith("the server's certificate does not name host 127.0.0.1");
    assertThat(failure(parse(base(TlsServer.READER + ":wrong") + "?sslmode=require")))
        .isEqualTo("password authentication failed for user \"" + TlsServer.READER + "\"");
    assertThat(failure(parse(base(TlsServer.READER) + "?sslmode=require")))
        .isEqualTo("the server wants a password for user " + TlsServer.READER + ": put it in the URL, PGPASSWORD or ~/.pgpass");
    PgUrl plain = TestDatabase.get().adminUrl();
    assertThat(failure(parse("postgresql://" + plain.user() + ":" + plain.password() + "@" + plain.host() + ":"
        + plain.port() + "/postgres?sslmode=require")))
        .startsWith("the server does not offer TLS (sslmode=require)");
    int closed = dev.sqlagent.testing.FreePorts.next();
    assertThat(failure(parse("postgresql://u:p@127.0.0.1:" + closed + "/x?sslmode=disable")))
        .startsWith("nothing accepts connections at 127.0.0.1:" + closed);
  }

  @Test
  void aNonSuperuserStateOwnerPreparesTheStore() throws Exception {
    PgUrl owner = parse("postgresql://" + TlsServer.STATE_OWNER + ":" + TlsServer.PASSWORD + "@localhost:" + server.port()
        + "/" + TlsServer.STATE_DB + "?sslmode=verify-full&sslrootcert=" + server.ca);
    dev.sqlagent.state.StateStore store = new dev.sqlagent.state.StateStore(owner, "log-pw-" + System.nanoTime());
    store.migrate();
    assertThat(store.proveLogRole()).isNotEmpty();
    try (Connection c = server.admin("postgres"); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls "
             + "FROM pg_roles WHERE rolname = 'sql_agent_log'")) {
      rs.next();
      for (int i = 1; i <= 5; i++) assertThat(rs.getBoolean(i)).isFalse();
    }
  }
}
