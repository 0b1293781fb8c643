package dev.sqlagent.db;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * The admin connection, from {@code postgresql://user[:pass]@host[:port][/db]}. The database named in the
 * path, if any other than the maintenance database {@code postgres}, is the one setup builds the shop in;
 * otherwise it is {@code shop}.
 */
public record AdminUrl(String host, int port, String user, String password, String database) {

  public static final String DEFAULT_DATABASE = "shop";

  public static AdminUrl parse(String url) {
    if (url == null || url.isBlank()) throw new IllegalArgumentException("is empty");
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("is not a URL (" + e.getReason() + ")");
    }
    if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
      throw new IllegalArgumentException("must start with postgresql:// (got " + uri.getScheme() + "://)");
    }
    if (uri.getHost() == null) throw new IllegalArgumentException("has no host");
    String userInfo = uri.getRawUserInfo();
    if (userInfo == null || userInfo.isEmpty()) {
      throw new IllegalArgumentException("has no user: use postgresql://user[:password]@host:port/db");
    }
    int colon = userInfo.indexOf(':');
    String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
    String password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    String db = path.isEmpty() || path.equals("postgres") ? DEFAULT_DATABASE : decode(path);
    if (!db.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("names database '" + db + "': use letters, digits and underscores");
    }
    return new AdminUrl(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), user, password, db);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** Where the credentials file keys this server's role passwords: roles belong to the whole server. */
  public String serverKey() {
    return host + ":" + port;
  }

  @Override
  public String toString() {
    return "postgresql://" + user + (password == null ? "" : ":****") + "@" + host + ":" + port + "/" + database;
  }
}
