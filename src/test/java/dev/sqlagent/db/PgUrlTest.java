package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The connection string as libpq reads it: both forms, every parameter, the files and the environment. */
class PgUrlTest {

  @TempDir
  Path home;

  private final Map<String, String> vars = new HashMap<>();

  @BeforeEach
  void clean() {
    vars.clear();
  }

  /** A real CA certificate (verifying modes load it when the URL is read). */
  private Path caFile() throws Exception {
    Path dir = Files.createDirectories(home.resolve("ca"));
    Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
        "-out", "ca.pem", "-days", "1", "-subj", "/CN=test CA").directory(dir.toFile()).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    assertThat(p.waitFor()).isZero();
    return dir.resolve("ca.pem");
  }

  private PgEnvironment env() {
    return new PgEnvironment(vars, home, "osuser");
  }

  private PgUrl parse(String s) {
    return PgUrl.parse(s, env());
  }

  @Test
  void uriFormWithEveryPart() {
    PgUrl u = parse("postgresql://reader:s%40cret@db.example.com:6543/app%20db?sslmode=disable&application_name=my%20app"
        + "&connect_timeout=7&options=-c%20statement_timeout%3D5s&target_session_attrs=read-write");
    assertThat(u.host()).isEqualTo("db.example.com");
    assertThat(u.port()).isEqualTo(6543);
    assertThat(u.user()).isEqualTo("reader");
    assertThat(u.password()).isEqualTo("s@cret");
    assertThat(u.passwordFrom()).isEqualTo("url");
    assertThat(u.database()).isEqualTo("app db");
    assertThat(u.tls().mode()).isEqualTo("disable");
    assertThat(u.applicationName()).isEqualTo("my app");
    assertThat(u.connectTimeout()).isEqualTo(7);
    // The reactive pools take it as their TCP connect timeout; unset, 10 s as for JDBC.
    assertThat(u.netOptions().getConnectTimeout()).isEqualTo(7_000);
    assertThat(parse("postgresql://a@h/d").netOptions().getConnectTimeout()).isEqualTo(10_000);
    assertThat(u.settings()).containsExactlyEntriesOf(Map.of("statement_timeout", "5s"));
    assertThat(u.targetSessionAttrs()).isEqualTo("read-write");
    assertThat(parse("postgres://a@h").database()).isEqualTo("a");
    // '+' is a plus in libpq's URIs, not a space
    assertThat(parse("postgresql://a:x+y@h/d").password()).isEqualTo("x+y");
  }

  @Test
  void hostListsIpv6AndSockets() {
    PgUrl list = parse("postgresql://u@h1:5432,h2:5433,h3/d?target_session_attrs=standby");
    assertThat(list.endpoints()).containsExactly(new PgUrl.Endpoint("h1", null, 5432), new PgUrl.Endpoint("h2", null, 5433),
        new PgUrl.Endpoint("h3", null, 5432));
    assertThat(parse("postgresql://u@[::1]:6000/d").endpoints()).containsExactly(new PgUrl.Endpoint("::1", null, 6000));
    assertThat(parse("postgresql://u@[2001:db8::7]/d").host()).isEqualTo("2001:db8::7");
    PgUrl socket = parse("postgresql://reader@/app?host=/var/run/postgresql");
    assertThat(socket.host()).isEqualTo("/var/run/postgresql");
    assertThat(socket.endpoints().get(0).socket()).isTrue();
    assertThat(socket.endpoints().get(0).socketFile()).isEqualTo("/var/run/postgresql/.s.PGSQL.5432");
    assertThat(parse("postgresql://reader@%2Ftmp:5999/app").endpoints().get(0).socketFile()).isEqualTo("/tmp/.s.PGSQL.5999");
    // no host at all: libpq's default socket directory
    assertThat(parse("postgresql:///app").host()).isEqualTo("/var/run/postgresql");
    assertThat(parse("dbname=app").host()).isEqualTo("/var/run/postgresql");
    PgUrl addr = parse("host=db.example.com hostaddr=10.0.0.5 port=5433 user=u");
    assertThat(addr.endpoints()).containsExactly(new PgUrl.Endpoint("db.example.com", "10.0.0.5", 5433));
    assertThat(parse("host=a,b port=1,2 user=u").endpoints()).extracting(PgUrl.Endpoint::port).containsExactly(1, 2);
  }

  @Test
  void keywordValueFormWithQuotesAndEscapes() {
    PgUrl u = parse("host=db port=5432 dbname='my db' user=reader password='it\\'s \\\\ here' sslmode=disable "
        + "application_name = agent options='-c search_path=a,b -c work_mem=4MB'");
    assertThat(u.host()).isEqualTo("db");
    assertThat(u.database()).isEqualTo("my db");
    assertThat(u.password()).isEqualTo("it's \\ here");
    assertThat(u.applicationName()).isEqualTo("agent");
    assertThat(u.settings()).containsExactly(Map.entry("search_path", "a,b"), Map.entry("work_mem", "4MB"));
    assertThat(parse("user=a password=b\\ c").password()).isEqualTo("b c");
  }

  @Test
  void everyFaultNamesTheParameter() {
    assertThatThrownBy(() -> parse("postgresql://h/d?sslmod=require"))
        .hasMessage("unknown connection parameter 'sslmod' (did you mean sslmode?)");
    assertThatThrownBy(() -> parse("host=h dbnmae=x")).hasMessage("unknown connection parameter 'dbnmae' (did you mean dbname?)");
    assertThatThrownBy(() -> parse("host=h frobnicate=1")).hasMessageStartingWith("unknown connection parameter 'frobnicate' (known: ");
    assertThatThrownBy(() -> parse("host=h keepalives=1")).hasMessage("connection parameter 'keepalives' is not supported by sql-agent");
    assertThatThrownBy(() -> parse("postgresql://h/d?sslmode=required")).hasMessageStartingWith("invalid sslmode 'required'");
    assertThatThrownBy(() -> parse("postgresql://h:99999/d")).hasMessage("invalid port number '99999'");
    assertThatThrownBy(() -> parse("postgresql://h:x/d")).hasMessage("invalid port number 'x'");
    assertThatThrownBy(() -> parse("host=a,b,c port=1,2")).hasMessage("could not match 2 port numbers to 3 hosts");
    assertThatThrownBy(() -> parse("host=a,b hostaddr=1.2.3.4")).hasMessage("could not match 2 host names to 1 hostaddr values");
    assertThatThrownBy(() -> parse("host=h target_session_attrs=master")).hasMessageStartingWith("invalid target_session_attrs 'master'");
    assertThatThrownBy(() -> parse("host=h connect_timeout=soon")).hasMessageStartingWith("invalid connect_timeout 'soon'");
    assertThatThrownBy(() -> parse("host=h options=-Xfoo")).hasMessageStartingWith("options: expected -c name=value");
    assertThatThrownBy(() -> parse("host=h password='open")).hasMessage("has an unterminated quoted value for 'password'");
    assertThatThrownBy(() -> parse("host")).hasMessageStartingWith("is not a connection string: 'host' has no '=value'");
    assertThatThrownBy(() -> parse("postgresql://u:p@h/d%zz")).hasMessage("has an invalid percent-encoded token in dbname");
    assertThatThrownBy(() -> parse("mysql://root:pw@h/x")).hasMessageContaining("must start with postgresql://")
        .hasMessageNotContaining("pw@");
    assertThatThrownBy(() -> parse("postgresql://[::1/d")).hasMessageContaining("closing ']'");
    assertThatThrownBy(() -> parse("host=h sslmode=verify-full"))
        .hasMessageStartingWith("sslmode=verify-full needs sslrootcert: the CA's certificate file, or sslrootcert=system");
    assertThatThrownBy(() -> parse("host=h sslrootcert=/nonexistent/ca.pem sslmode=verify-ca"))
        .hasMessage("sslrootcert file '/nonexistent/ca.pem' does not exist");
    assertThatThrownBy(() -> parse("host=h sslrootcert=system sslmode=require"))
        .hasMessage("sslmode=require may not be used with sslrootcert=system (use verify-full)");
    assertThatThrownBy(() -> parse("host=h sslmode=verify-ca sslrootcert=" + Files.writeString(home.resolve("junk.pem"), "junk")))
        .hasMessageStartingWith("sslrootcert file '" + home.resolve("junk.pem") + "' ");
    assertThatThrownBy(() -> parse("host=h service=nowhere")).hasMessageStartingWith("definition of service 'nowhere' not found");
  }

  @Test
  void tlsDefaultsAsLibpq() throws Exception {
    assertThat(parse("host=h").tls().mode()).isEqualTo("prefer");
    assertThat(parse("host=h sslrootcert=system").tls().mode()).isEqualTo("verify-full");
    assertThat(parse("postgresql://h/d?ssl=true").tls().mode()).isEqualTo("require");
    Path ca = caFile();
    // a root certificate turns require into verify-ca, as libpq does
    assertThat(parse("host=h sslmode=require sslrootcert=" + ca).tls().mode()).isEqualTo("verify-ca");
    assertThat(parse("host=h sslmode=prefer sslrootcert=" + ca).tls().mode()).isEqualTo("prefer");
    // ~/.postgresql/root.crt is the default root certificate
    Files.createDirectories(home.resolve(".postgresql"));
    Files.copy(ca, home.resolve(".postgresql/root.crt"));
    PgUrl u = parse("host=h sslmode=verify-full");
    assertThat(u.tls().rootCert()).isEqualTo(home.resolve(".postgresql/root.crt").toString());
  }

  @Test
  void environmentFallbacksAndPrecedence() {
    vars.putAll(Map.of("PGHOST", "envhost", "PGPORT", "7000", "PGDATABASE", "envdb", "PGUSER", "envuser",
        "PGPASSWORD", "envpw", "PGSSLMODE", "disable", "PGAPPNAME", "envapp", "PGCONNECT_TIMEOUT", "9",
        "PGOPTIONS", "-c work_mem=8MB", "PGTARGETSESSIONATTRS", "primary"));
    PgUrl e = parse("dbname=explicit");
    assertThat(e.host()).isEqualTo("envhost");
    assertThat(e.port()).isEqualTo(7000);
    assertThat(e.database()).isEqualTo("explicit");
    assertThat(e.user()).isEqualTo("envuser");
    assertThat(e.password()).isEqualTo("envpw");
    assertThat(e.passwordFrom()).isEqualTo("PGPASSWORD");
    assertThat(e.tls().mode()).isEqualTo("disable");
    assertThat(e.applicationName()).isEqualTo("envapp");
    assertThat(e.connectTimeout()).isEqualTo(9);
    assertThat(e.settings()).containsEntry("work_mem", "8MB");
    assertThat(e.targetSessionAttrs()).isEqualTo("primary");
    PgUrl u = parse("postgresql://me:pw@urlhost:1234/urldb?sslmode=require");
    assertThat(u.host()).isEqualTo("urlhost");
    assertThat(u.port()).isEqualTo(1234);
    assertThat(u.password()).isEqualTo("pw");
    assertThat(u.tls().mode()).isEqualTo("require");
    vars.clear();
    PgUrl d = parse("host=h");
    assertThat(d.user()).isEqualTo("osuser");
    assertThat(d.database()).isEqualTo("osuser");
    assertThat(d.password()).isNull();
    assertThat(d.passwordFrom()).isEqualTo("none");
    vars.put("PGHOSTADDR", "10.1.2.3");
    assertThat(parse("user=u").endpoints()).containsExactly(new PgUrl.Endpoint("10.1.2.3", "10.1.2.3", 5432));
  }

  @Test
  void serviceFileBetweenTheUrlAndTheEnvironment() throws Exception {
    Files.writeString(home.resolve(".pg_service.conf"), """
        # comment
        [other]
        host=wrong

        [shop]
        host=svchost
        port=5444
        dbname=shop
        user=svcuser
        password=svcpw
        sslmode=disable
        """);
    vars.put("PGUSER", "envuser");
    vars.put("PGAPPNAME", "envapp");
    PgUrl s = parse("service=shop dbname=explicit");
    assertThat(s.host()).isEqualTo("svchost");
    assertThat(s.port()).isEqualTo(5444);
    assertThat(s.database()).isEqualTo("explicit");
    assertThat(s.user()).isEqualTo("svcuser");
    assertThat(s.password()).isEqualTo("svcpw");
    assertThat(s.passwordFrom()).isEqualTo("service shop");
    assertThat(s.applicationName()).isEqualTo("envapp");
    vars.put("PGSERVICE", "shop");
    assertThat(parse("postgresql://u@/d").host()).isEqualTo("svchost");
    // PGSERVICEFILE, then PGSYSCONFDIR/pg_service.conf
    vars.clear();
    Path sys = Files.createDirectories(home.resolve("etc"));
    Files.writeString(sys.resolve("pg_service.conf"), "[global]\nhost=syshost\n");
    vars.put("PGSYSCONFDIR", sys.toString());
    assertThat(parse("service=global").host()).isEqualTo("syshost");
    Path own = Files.writeString(home.resolve("mine.conf"), "[global]\nhost=mine\n");
    vars.put("PGSERVICEFILE", own.toString());
    assertThat(parse("service=global").host()).isEqualTo("mine");
    Files.writeString(own, "[bad]\nhots=x\n");
    assertThatThrownBy(() -> parse("service=bad")).hasMessageContaining("line 2: unknown connection parameter 'hots' (did you mean host?)");
  }

  @Test
  void passwordFileMatchesAsLibpq() throws Exception {
    Path pgpass = home.resolve(".pgpass");
    Files.writeString(pgpass, """
        # host:port:db:user:password
        db.example.com:5432:app:reader:first
        db.example.com:*:*:reader:second
        localhost:5432:*:sock:from\\:socket
        *:*:*:*:any\\\\thing
        """);
    Files.setPosixFilePermissions(pgpass, PosixFilePermissions.fromString("rw-------"));
    assertThat(parse("postgresql://reader@db.example.com/app").password()).isEqualTo("first");
    assertThat(parse("postgresql://reader@db.example.com:6000/other").password()).isEqualTo("second");
    PgUrl socket = parse("user=sock dbname=x");
    assertThat(socket.password()).isEqualTo("from:socket");
    assertThat(socket.passwordFrom()).isEqualTo(pgpass.toString());
    assertThat(parse("postgresql://nobody@elsewhere/x").password()).isEqualTo("any\\thing");
    // the URL wins over the file
    assertThat(parse("postgresql://reader:given@db.example.com/app").password()).isEqualTo("given");
    // PGPASSFILE and passfile point elsewhere
    Path other = Files.writeString(home.resolve("pw"), "*:*:*:*:elsewhere\n");
    Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rw-------"));
    vars.put("PGPASSFILE", other.toString());
    assertThat(parse("host=h user=u").password()).isEqualTo("elsewhere");
    vars.clear();
    assertThat(parse("host=h user=u passfile=" + other).password()).isEqualTo("elsewhere");
    // group- or world-readable: ignored with a warning
    Files.setPosixFilePermissions(pgpass, PosixFilePermissions.fromString("rw-r--r--"));
    try (LogCapture log = LogCapture.of(ConnInfo.class)) {
      assertThat(parse("postgresql://reader@db.example.com/app").password()).isNull();
      assertThat(log.messages()).anyMatch(m -> m.contains("has group or world access"));
    }
  }

  @Test
  void textNeverShowsThePasswordAndParsesBack() {
    PgUrl u = parse("host=a,b port=5432,5433 user=r password=s3cr%t dbname=d application_name=x "
        + "target_session_attrs=standby options='-c work_mem=4MB' sslmode=require connect_timeout=5");
    assertThat(u.toString()).doesNotContain("s3cr").contains("****");
    assertThat(parse(u.withSecret())).isEqualTo(u);
    assertThat(parse(u.withSecret()).password()).isEqualTo("s3cr%t");
    PgUrl sock = parse("host=/tmp port=5999 user=r dbname=d");
    assertThat(parse(sock.withSecret()).endpoints()).isEqualTo(sock.endpoints());
    assertThat(u.withUser("other", "pw").withDatabase("db2").toString()).startsWith("postgresql://other:****@a:5432,b:5433/db2");
    assertThat(u.serverKey()).isEqualTo("a:5432");
  }

  @Test
  void bothClientsAreBuiltFromTheSameSpec() throws Exception {
    Path ca = caFile();
    for (String example : List.of(
        "postgresql://reader:pw@db.example.com:5433/app",
        "postgresql://reader:pw@db.example.com/app?sslmode=require",
        "postgresql://reader:pw@db.example.com/app?sslmode=verify-full&sslrootcert=" + ca,
        "host=db.example.com user=reader password=pw dbname=app sslmode=verify-ca sslrootcert=" + ca,
        "host=db.example.com user=reader password=pw dbname=app sslrootcert=system",
        "postgresql://reader:pw@[::1]:6000/app?sslmode=disable&application_name=mine",
        "host=db.example.com hostaddr=10.0.0.5 user=reader dbname=app sslmode=allow options='-c work_mem=4MB'",
        "postgresql://reader@/app?host=/var/run/postgresql")) {
      PgUrl u = parse(example);
      var jdbc = u.jdbcProperties("purpose", 0);
      var reactive = u.options("purpose");
      PgUrl.Endpoint e = u.endpoints().get(0);
      assertThat(reactive.getHost()).as(example).isEqualTo(e.socket() ? e.host() : e.dialHost());
      assertThat(u.jdbcUrl()).as(example).contains(":" + reactive.getPort() + "/");
      assertThat(jdbc.getProperty("user")).as(example).isEqualTo(reactive.getUser());
      assertThat(jdbc.getProperty("password", "")).as(example).isEqualTo(reactive.getPassword());
      assertThat(u.jdbcUrl()).as(example).endsWith("/" + reactive.getDatabase());
      assertThat(jdbc.getProperty("ApplicationName")).as(example).isEqualTo(reactive.getProperties().get("application_name"));
      String mode = e.socket() ? "disable" : u.tls().mode();
      // verify-full's name check is ours (TlsTrust, against host as libpq): both libraries are told verify-ca
      String library = mode.equals("verify-full") ? "verify-ca" : mode;
      assertThat(jdbc.getProperty("sslmode")).as(example).isEqualTo(library);
      assertThat(reactive.getSslMode()).as(example).isEqualTo(io.vertx.pgclient.SslMode.of(library));
      if (!e.socket()) {
        var ssl = reactive.getSslOptions();
        boolean verifies = mode.startsWith("verify");
        assertThat(ssl.isTrustAll()).as(example).isEqualTo(!verifies);
        assertThat(ssl.getHostnameVerificationAlgorithm()).as(example).isEmpty();
        assertThat(jdbc.getProperty("sslfactory")).isEqualTo(JdbcTls.class.getName());
        assertThat(jdbc.getProperty("sslfactoryarg")).as(example)
            .isEqualTo(!verifies ? "" : u.tls().rootCert() + "\n" + (mode.equals("verify-full") ? e.host() : ""));
      } else {
        assertThat(jdbc.getProperty("socketFactoryArg")).isEqualTo("/var/run/postgresql/.s.PGSQL.5432");
      }
      u.settings().forEach((k, v) -> assertThat(reactive.getProperties()).containsEntry(k, v));
      if (!u.settings().isEmpty()) assertThat(jdbc.getProperty("options")).isEqualTo("-c work_mem=4MB");
    }
  }
}
