package dev.sqlagent.db;

import io.vertx.pgclient.PgConnectOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * A PostgreSQL connection, from {@code postgresql://user[:pass]@host[:port][/db]}: the target (the agent
 * role on the user's database), the state store's owner, or the embedded server's superuser. With no
 * database in the path the user's name is the database, as in libpq.
 */
public record PgUrl(String host, int port, String user, String password, String database) {

  public static PgUrl parse(String url) {
    if (url == null || url.isBlank()) throw new IllegalArgumentException("is empty");
    String raw = url.trim();
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("='" + masked(raw) + "' is not a URL (" + e.getReason()
          + "); expected postgresql://user[:password]@host:port/database");
    }
    if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
      throw new IllegalArgumentException("='" + masked(raw) + "' must start with postgresql://, "
          + "as in postgresql://user[:password]@host:port/database");
    }
    if (uri.getHost() == null) throw new IllegalArgumentException("='" + masked(raw) + "' has no host");
    String userInfo = uri.getRawUserInfo();
    if (userInfo == null || userInfo.isEmpty()) {
      throw new IllegalArgumentException("='" + masked(raw) + "' has no user: use postgresql://user[:password]@host:port/database");
    }
    int colon = userInfo.indexOf(':');
    String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
    String password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
    String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceFirst("^/", "");
    String db = path.isEmpty() ? user : decode(path);
    if (db.isEmpty() || db.length() > 63 || db.contains("/")) {
      throw new IllegalArgumentException("names database '" + db + "': expected a database name of 1 to 63 characters");
    }
    return new PgUrl(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), user, password, db);
  }

  /** The URL with its password replaced, for messages about a value that did not parse. */
  private static String masked(String raw) {
    return raw.replaceFirst("^([^:/]+://[^:@/]+):[^@/]*@", "$1:****@");
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  public PgUrl withDatabase(String db) {
    return new PgUrl(host, port, user, password, db);
  }

  public PgUrl withUser(String newUser, String newPassword) {
    return new PgUrl(host, port, newUser, newPassword, database);
  }

  /** Where credentials are keyed: roles belong to a whole server, not to one database. */
  public String serverKey() {
    return host + ":" + port;
  }

  /** Same server and database (however the user logs in). */
  public boolean sameDatabase(PgUrl other) {
    return serverKey().equals(other.serverKey()) && database.equals(other.database);
  }

  /** A blocking JDBC connection (command line, setup and proofs only: never on an event loop). */
  public Connection connect(String applicationName) throws SQLException {
    return connect(applicationName, 0);
  }

  /** As {@link #connect(String)}, every network wait bounded by {@code timeoutSeconds} (0: connect 10 s, reads unbounded). */
  public Connection connect(String applicationName, int timeoutSeconds) throws SQLException {
    Properties p = new Properties();
    if (timeoutSeconds > 0) p.setProperty("socketTimeout", String.valueOf(timeoutSeconds));
    p.setProperty("user", user);
    if (password != null) p.setProperty("password", password);
    p.setProperty("ApplicationName", applicationName);
    p.setProperty("connectTimeout", String.valueOf(timeoutSeconds > 0 ? timeoutSeconds : 10));
    return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/"
        + URLEncoder.encode(database, StandardCharsets.UTF_8), p);
  }

  /** Reactive connect options. */
  public PgConnectOptions options(String applicationName) {
    return new PgConnectOptions().setHost(host).setPort(port).setDatabase(database).setUser(user).setPassword(password)
        .addProperty("application_name", applicationName);
  }

  /** The URL as it would be typed, password included: only for a user who just created that role. */
  public String withSecret() {
    return "postgresql://" + enc(user) + (password == null ? "" : ":" + enc(password)) + "@" + host + ":" + port + "/" + enc(database);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public String toString() {
    return "postgresql://" + user + (password == null ? "" : ":****") + "@" + host + ":" + port + "/" + database;
  }
}
