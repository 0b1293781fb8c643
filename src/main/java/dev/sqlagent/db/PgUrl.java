package dev.sqlagent.db;

import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.TrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * One PostgreSQL connection, read as libpq reads a connection string ({@link ConnInfo}): the target, the
 * state store's owner, the embedded server's superuser, {@code grant}'s admin, {@code demo --into}. Both
 * clients are built from it, so they agree on host, port, TLS, user and database: {@link #connect} (JDBC, for
 * the command line, setup and proofs) and {@link #options} (the reactive client).
 *
 * <p>{@link #host()} and {@link #port()} are the first of the host list; a Unix-socket host is the socket's
 * directory (starting with {@code /}).
 */
public final class PgUrl {

  /** One entry of the host list: a name (or a socket directory), an optional numeric address, a port. */
  public record Endpoint(String host, String hostaddr, int port) {
    public boolean socket() {
      return host.startsWith("/");
    }

    /** The socket file of a Unix-socket endpoint, as libpq names it. */
    public String socketFile() {
      return host + "/.s.PGSQL." + port;
    }

    /** Where the TCP connection goes: the numeric address when given (the name still verifies TLS). */
    String dialHost() {
      return hostaddr != null ? hostaddr : host;
    }
  }

  private final List<Endpoint> endpoints;
  private final String user;
  private final String password;
  private final String database;
  private final Tls tls;
  private final String applicationName;
  private final int connectTimeout;
  private final Map<String, String> settings;
  private final String targetSessionAttrs;
  private final String passwordFrom;

  PgUrl(List<Endpoint> endpoints, String user, String password, String database, Tls tls, String applicationName,
      int connectTimeout, Map<String, String> settings, String targetSessionAttrs, String passwordFrom) {
    this.endpoints = List.copyOf(endpoints);
    this.user = Objects.requireNonNull(user);
    this.password = password;
    this.database = Objects.requireNonNull(database);
    this.tls = tls;
    this.applicationName = applicationName;
    this.connectTimeout = connectTimeout;
    this.settings = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(settings));  // in order
    this.targetSessionAttrs = targetSessionAttrs;
    this.passwordFrom = passwordFrom;
  }

  /**
   * A plain TCP connection to a server known to have no TLS ({@code sslmode=disable}): the embedded server and
   * test servers. (The reactive client's {@code prefer} opens a second connection when TLS is refused.)
   */
  public PgUrl(String host, int port, String user, String password, String database) {
    this(List.of(new Endpoint(host, null, port)), user, password, database, Tls.DISABLE, null, 0, Map.of(), "any",
        password == null ? "none" : "url");
  }

  /** Parses a URI or keyword/value connection string, with libpq's fallbacks from the process environment. */
  public static PgUrl parse(String conninfo) {
    return parse(conninfo, PgEnvironment.system());
  }

  /** As {@link #parse(String)} with the environment (PG* variables, home directory, OS user) given. */
  public static PgUrl parse(String conninfo, PgEnvironment env) {
    return ConnInfo.resolve(conninfo, env);
  }

  // ---- what the connection is

  public List<Endpoint> endpoints() {
    return endpoints;
  }

  public String host() {
    return endpoints.get(0).host();
  }

  public int port() {
    return endpoints.get(0).port();
  }

  public String user() {
    return user;
  }

  public String password() {
    return password;
  }

  public String database() {
    return database;
  }

  public Tls tls() {
    return tls;
  }

  /** {@code application_name} as the URL gives it, or null (then each connection names its purpose). */
  public String applicationName() {
    return applicationName;
  }

  /** Seconds, 0 for the default. */
  public int connectTimeout() {
    return connectTimeout;
  }
  /**
   * TCP options of a reactive pool on this connection: its connect_timeout (seconds; unset, 10 s as for JDBC here),
   * so a host that never answers fails the start in that time rather than in Vert.x's own 60 s.
   */
  public io.vertx.core.net.NetClientOptions netOptions() {
    return new io.vertx.core.net.NetClientOptions().setConnectTimeout((connectTimeout > 0 ? connectTimeout : 10) * 1000);
  }


  /** Run-time settings sent at start-up ({@code options='-c name=value'}). */
  public Map<String, String> settings() {
    return settings;
  }

  public String targetSessionAttrs() {
    return targetSessionAttrs;
  }

  /** Where the password came from: url, PGPASSWORD, a passfile's path, or none (for the start-up log). */
  public String passwordFrom() {
    return passwordFrom;
  }

  // ---- variations

  public PgUrl withDatabase(String db) {
    return new PgUrl(endpoints, user, password, db, tls, applicationName, connectTimeout, settings, targetSessionAttrs,
        passwordFrom);
  }

  public PgUrl withUser(String newUser, String newPassword) {
    return new PgUrl(endpoints, newUser, newPassword, database, tls, applicationName, connectTimeout, settings,
        targetSessionAttrs, newPassword == null ? "none" : "url");
  }

  /** The same connection to one endpoint of the list only. */
  public PgUrl withEndpoint(Endpoint e) {
    return new PgUrl(List.of(e), user, password, database, tls, applicationName, connectTimeout, settings, "any",
        passwordFrom);
  }

  /** Where credentials are keyed: roles belong to a whole server, not to one database. */
  public String serverKey() {
    return host() + ":" + port();
  }

  /** Same server and database (however the user logs in). */
  public boolean sameDatabase(PgUrl other) {
    return serverKey().equals(other.serverKey()) && database.equals(other.database);
  }

  // ---- the JDBC client

  /** A blocking JDBC connection (command line, setup and proofs only: never on an event loop). */
  public Connection connect(String applicationName) throws SQLException {
    return connect(applicationName, 0);
  }

  /** As {@link #connect(String)}, every network wait bounded by {@code timeoutSeconds} (0: connect 10 s, reads unbounded). */
  public Connection connect(String applicationName, int timeoutSeconds) throws SQLException {
    PgUrl one = endpoints.size() == 1 ? this : pick();
    Properties p = one.jdbcProperties(applicationName, timeoutSeconds);
    try {
      return DriverManager.getConnection(one.jdbcUrl(), p);
    } catch (SQLException e) {
      throw ConnectFailure.of(e, one);
    }
  }

  /** The JDBC URL: host, port and database; everything else is in {@link #jdbcProperties}. */
  String jdbcUrl() {
    Endpoint e = endpoints.get(0);
    // A socket has no host for pgjdbc: the socket factory below dials the file.
    String h = e.socket() ? "localhost" : e.dialHost();
    if (h.contains(":")) h = "[" + h + "]";
    return "jdbc:postgresql://" + h + ":" + e.port() + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8);
  }

  Properties jdbcProperties(String purpose, int timeoutSeconds) {
    Endpoint e = endpoints.get(0);
    Properties p = new Properties();
    p.setProperty("user", user);
    if (password != null) p.setProperty("password", password);
    p.setProperty("ApplicationName", applicationName != null ? applicationName : purpose);
    int connect = timeoutSeconds > 0 ? timeoutSeconds : connectTimeout > 0 ? connectTimeout : 10;
    p.setProperty("connectTimeout", String.valueOf(connect));
    p.setProperty("loginTimeout", String.valueOf(connect));
    if (timeoutSeconds > 0) p.setProperty("socketTimeout", String.valueOf(timeoutSeconds));
    if (!settings.isEmpty()) {
      StringBuilder o = new StringBuilder();
      settings.forEach((k, v) -> o.append(o.length() == 0 ? "" : " ").append("-c ").append(k).append('=')
          .append(v.replace("\\", "\\\\").replace(" ", "\\ ")));
      p.setProperty("options", o.toString());
    }
    if (e.socket()) {
      p.setProperty("socketFactory", "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg");
      p.setProperty("socketFactoryArg", e.socketFile());
      p.setProperty("sslmode", "disable");  // libpq never uses TLS over a Unix socket
      return p;
    }
    tls.jdbc(p, e.host());
    return p;
  }

  // ---- the reactive client

  /** Reactive connect options, to the first endpoint ({@link #pick()} first when there is a list). */
  public PgConnectOptions options(String purpose) {
    Endpoint e = endpoints.get(0);
    PgConnectOptions o = new PgConnectOptions()
        .setHost(e.socket() ? e.host() : e.dialHost()).setPort(e.port())
        .setDatabase(database).setUser(user)
        // no password: an empty one rather than the client's default "pass" (trust, peer and cert ask for none)
        .setPassword(password == null ? "" : password)
        .addProperty("application_name", applicationName != null ? applicationName : purpose);
    settings.forEach(o::addProperty);
    if (e.socket()) return o.setSslMode(SslMode.DISABLE);
    return tls.reactive(o, e.host());
  }

  // ---- host lists

  /**
   * With a host list, the first endpoint that accepts the connection and satisfies {@code target_session_attrs},
   * in order, as libpq tries them; a one-endpoint spec as it is. Blocking: at start, before Vert.x runs.
   */
  public PgUrl pick() throws SQLException {
    if (endpoints.size() == 1 && "any".equals(targetSessionAttrs)) return this;
    List<String> refused = new ArrayList<>();
    SQLException last = null;
    for (String pass : "prefer-standby".equals(targetSessionAttrs) ? List.of("standby", "any") : List.of(targetSessionAttrs)) {
      for (Endpoint e : endpoints) {
        PgUrl one = withEndpoint(e);
        try (Connection c = DriverManager.getConnection(one.jdbcUrl(), one.jdbcProperties("sql-agent-pick", 0));
             var s = c.createStatement();
             var rs = s.executeQuery("SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'")) {
          rs.next();
          boolean standby = rs.getBoolean(1);
          boolean readOnly = rs.getBoolean(2);
          boolean fits = switch (pass) {
            case "read-write" -> !readOnly;
            case "read-only" -> readOnly;
            case "primary" -> !standby;
            case "standby" -> standby;
            default -> true;
          };
          if (fits) return one;
          refused.add(e.host() + ":" + e.port() + (standby ? " is a standby" : " is a primary"));
        } catch (SQLException ex) {
          last = ConnectFailure.of(ex, one);
          refused.add(last.getMessage());
        }
      }
    }
    throw new SQLException("no server in the host list fits target_session_attrs=" + targetSessionAttrs + ": "
        + String.join("; ", refused), last == null ? "08001" : last.getSQLState(), last);
  }

  // ---- text

  /**
   * The connection as a URI that parses back to the same connection anywhere, password included: only for
   * a user who just created that role, or a child process of the service.
   */
  public String withSecret() {
    return uri(true);
  }

  private String uri(boolean secret) {
    StringBuilder b = new StringBuilder("postgresql://").append(enc(user));
    if (password != null) b.append(':').append(secret ? enc(password) : "****");
    b.append('@');
    List<String> query = new ArrayList<>();
    boolean socket = endpoints.get(0).socket();
    if (socket) {
      query.add("host=" + enc(endpoints.get(0).host()));
      query.add("port=" + endpoints.get(0).port());
    } else {
      List<String> parts = new ArrayList<>();
      for (Endpoint e : endpoints) {
        parts.add((e.host().contains(":") ? "[" + e.host() + "]" : enc(e.host())) + ":" + e.port());
      }
      b.append(String.join(",", parts));
      if (endpoints.stream().anyMatch(e -> e.hostaddr() != null)) {
        query.add("hostaddr=" + String.join(",", endpoints.stream().map(e -> e.hostaddr() == null ? "" : e.hostaddr()).toList()));
      }
    }
    b.append('/').append(enc(database));
    tls.query(query);
    if (applicationName != null) query.add("application_name=" + enc(applicationName));
    if (connectTimeout > 0) query.add("connect_timeout=" + connectTimeout);
    if (!"any".equals(targetSessionAttrs)) query.add("target_session_attrs=" + targetSessionAttrs);
    if (!settings.isEmpty()) {
      StringBuilder o = new StringBuilder();
      settings.forEach((k, v) -> o.append(o.length() == 0 ? "" : " ").append("-c ").append(k).append('=')
          .append(v.replace("\\", "\\\\").replace(" ", "\\ ")));
      query.add("options=" + enc(o.toString()));
    }
    if (!query.isEmpty()) b.append('?').append(String.join("&", query));
    return b.toString();
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The URL with the password masked. */
  @Override
  public String toString() {
    return uri(false);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PgUrl u && u.withSecret().equals(withSecret());
  }

  @Override
  public int hashCode() {
    return withSecret().hashCode();
  }

  /**
   * TLS as libpq means it: {@code mode} is the sslmode after libpq's adjustments ({@code require} with a root
   * certificate is {@code verify-ca}); {@code rootCert} is a PEM file, {@code "system"} (the JDK's trust store)
   * or null; the client certificate and key are PEM files ({@code keyFile} as given; {@code key} the plain PEM the reactive client reads, {@code keyPk8} the PKCS-8
   * DER pgjdbc reads).
   */
  public record Tls(String mode, String rootCert, String cert, String keyFile, String key, String keyPk8,
      String keyPassword, TlsTrust trust) {
    public static final Tls DISABLE = new Tls("disable", null, null, null, null, null, null, null);

    boolean verifies() {
      return mode.equals("verify-ca") || mode.equals("verify-full");
    }

    void jdbc(Properties p, String host) {
      // pgjdbc's TLS from the same trust and key as the reactive client's (JdbcTls), which checks the name
      p.setProperty("sslmode", mode.equals("verify-full") ? "verify-ca" : mode);
      p.setProperty("sslfactory", JdbcTls.class.getName());
      p.setProperty("sslfactoryarg", verifies() ? rootCert + "\n" + (mode.equals("verify-full") ? host : "") : "");
      if (cert != null) {
        p.setProperty("sslcert", cert);
        p.setProperty("sslkey", keyPk8);  // decrypted already when it came with sslpassword
      }
    }

    PgConnectOptions reactive(PgConnectOptions o, String host) {
      // verify-full's name check is TlsTrust's (against host, not hostaddr): the client is told verify-ca
      o.setSslMode(SslMode.of(mode.equals("verify-full") ? "verify-ca" : mode));
      ClientSSLOptions ssl = new ClientSSLOptions();
      if (!verifies()) {
        ssl.setTrustAll(true);
      } else {
        ssl.setTrustOptions(TrustOptions.wrap(mode.equals("verify-full") ? trust.forHost(host) : trust));
      }
      ssl.setHostnameVerificationAlgorithm("");
      if (cert != null) ssl.setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert).setKeyPath(key));
      return o.setSslOptions(ssl);
    }

    void query(List<String> q) {
      if (!mode.equals("prefer")) q.add("sslmode=" + mode);
      if (rootCert != null) q.add("sslrootcert=" + enc(rootCert));
      if (cert != null) q.add("sslcert=" + enc(cert));
      if (keyFile != null) q.add("sslkey=" + enc(keyFile));
      if (keyPassword != null) q.add("sslpassword=" + enc(keyPassword));
    }
  }

}
