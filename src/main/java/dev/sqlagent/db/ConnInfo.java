package dev.sqlagent.db;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection string read as libpq reads it (fe-connect.c: conninfo_parse, conninfo_uri_parse_options,
 * parseServiceInfo, passwordFromFile): the URI form {@code postgresql://user:pw@h1:5432,h2/db?k=v} or the
 * keyword/value form {@code host=h dbname=db sslmode='verify-full'}, then the service file, the PG* variables
 * and the defaults, in that order of precedence. Every fault throws {@link IllegalArgumentException} naming
 * the parameter.
 */
final class ConnInfo {

  private static final Logger LOG = LoggerFactory.getLogger(ConnInfo.class);

  /**
   * libpq's compiled-in DEFAULT_PGSOCKET_DIR as Debian and Ubuntu build it (upstream's default is /tmp): the
   * socket directory when no host is given, and the one a {@code localhost} line of ~/.pgpass stands for.
   */
  static final String DEFAULT_SOCKET_DIR = "/var/run/postgresql";
  /** libpq's SYSCONFDIR on Debian, where pg_service.conf lives unless PGSYSCONFDIR says otherwise. */
  static final String DEFAULT_SYSCONFDIR = "/etc/postgresql-common";

  /** The parameters sql-agent reads, each with its environment variable (null: none). */
  static final Map<String, String> KEYWORDS = new LinkedHashMap<>();

  static {
    KEYWORDS.put("service", "PGSERVICE");
    KEYWORDS.put("host", "PGHOST");
    KEYWORDS.put("hostaddr", "PGHOSTADDR");
    KEYWORDS.put("port", "PGPORT");
    KEYWORDS.put("dbname", "PGDATABASE");
    KEYWORDS.put("user", "PGUSER");
    KEYWORDS.put("password", "PGPASSWORD");
    KEYWORDS.put("passfile", "PGPASSFILE");
    KEYWORDS.put("sslmode", "PGSSLMODE");
    KEYWORDS.put("sslrootcert", "PGSSLROOTCERT");
    KEYWORDS.put("sslcert", "PGSSLCERT");
    KEYWORDS.put("sslkey", "PGSSLKEY");
    KEYWORDS.put("sslpassword", null);
    KEYWORDS.put("application_name", "PGAPPNAME");
    KEYWORDS.put("connect_timeout", "PGCONNECT_TIMEOUT");
    KEYWORDS.put("options", "PGOPTIONS");
    KEYWORDS.put("target_session_attrs", "PGTARGETSESSIONATTRS");
  }

  /** libpq parameters that exist but sql-agent does not act on: refused with a clear word, never ignored. */
  static final Set<String> NOT_SUPPORTED = Set.of("fallback_application_name", "keepalives", "keepalives_idle",
      "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "gsslib",
      "gssdelegation", "sslnegotiation", "sslcompression", "sslcertmode", "sslcrl", "sslcrldir", "sslsni",
      "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "channel_binding",
      "require_auth", "load_balance_hosts", "client_encoding", "min_protocol_version", "max_protocol_version");

  static final List<String> SSLMODES = List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");
  static final List<String> SESSION_ATTRS = List.of("any", "read-write", "read-only", "primary", "standby",
      "prefer-standby");

  private ConnInfo() {}

  static PgUrl resolve(String conninfo, PgEnvironment env) {
    if (conninfo == null) throw new IllegalArgumentException("is empty");
    String s = conninfo.strip();
    Map<String, String> v;
    if (s.startsWith("postgresql://") || s.startsWith("postgres://")) {
      v = uri(s);
    } else if (s.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw new IllegalArgumentException("'" + masked(s) + "' must start with postgresql:// or postgres://, "
          + "or be keyword=value pairs such as 'host=db dbname=app user=reader'");
    } else {
      v = keywordValue(s);
    }
    return build(v, env);
  }

  // ---- the two forms

  /** {@code postgresql://[user[:password]@][host[:port][,...]][/dbname][?param=value&...]}, as libpq. */
  static Map<String, String> uri(String s) {
    Map<String, String> v = new LinkedHashMap<>();
    String rest = s.substring(s.indexOf("://") + 3);
    // libpq looks for the credentials' '@' before the first '/'
    int at = -1;
    for (int i = 0; i < rest.length() && rest.charAt(i) != '/'; i++) if (rest.charAt(i) == '@') at = i;
    if (at >= 0) {
      String userspec = rest.substring(0, at);
      int colon = userspec.indexOf(':');
      String u = decode(colon < 0 ? userspec : userspec.substring(0, colon), "user");
      if (!u.isEmpty()) v.put("user", u);
      if (colon >= 0) v.put("password", decode(userspec.substring(colon + 1), "password"));
      rest = rest.substring(at + 1);
    }
    List<String> hosts = new ArrayList<>();
    List<String> ports = new ArrayList<>();
    int i = 0;
    while (true) {
      String host;
      if (i < rest.length() && rest.charAt(i) == '[') {
        int close = rest.indexOf(']', i);
        if (close < 0) throw new IllegalArgumentException("has an IPv6 host without its closing ']'");
        host = rest.substring(i + 1, close);
        if (host.isEmpty()) throw new IllegalArgumentException("has an empty IPv6 host '[]'");
        i = close + 1;
        if (i < rest.length() && ":/?,".indexOf(rest.charAt(i)) < 0) {
          throw new IllegalArgumentException("has '" + rest.charAt(i) + "' after the IPv6 host [" + host + "]");
        }
      } else {
        int start = i;
        while (i < rest.length() && ":/?,".indexOf(rest.charAt(i)) < 0) i++;
        host = decode(rest.substring(start, i), "host");
      }
      String port = "";
      if (i < rest.length() && rest.charAt(i) == ':') {
        int start = ++i;
        while (i < rest.length() && "/?,".indexOf(rest.charAt(i)) < 0) i++;
        port = decode(rest.substring(start, i), "port");
      }
      hosts.add(host);
      ports.add(port);
      if (i < rest.length() && rest.charAt(i) == ',') {
        i++;
        continue;
      }
      break;
    }
    if (hosts.stream().anyMatch(h -> !h.isEmpty())) v.put("host", String.join(",", hosts));
    if (ports.stream().anyMatch(p -> !p.isEmpty())) v.put("port", String.join(",", ports));
    if (i < rest.length() && rest.charAt(i) == '/') {
      int q = rest.indexOf('?', i);
      String db = decode(rest.substring(i + 1, q < 0 ? rest.length() : q), "dbname");
      if (!db.isEmpty()) v.put("dbname", db);
      i = q < 0 ? rest.length() : q;
    }
    if (i < rest.length() && rest.charAt(i) == '?') {
      for (String pair : rest.substring(i + 1).split("&")) {
        if (pair.isEmpty()) continue;
        int eq = pair.indexOf('=');
        if (eq < 0) throw new IllegalArgumentException("has the parameter '" + decode(pair, "parameter") + "' without '=value'");
        String key = decode(pair.substring(0, eq), "parameter");
        String value = decode(pair.substring(eq + 1), key);
        if (key.equals("ssl") && value.equals("true")) {
          key = "sslmode";  // libpq's JDBC-compatible spelling
          value = "require";
        }
        v.put(known(key), value);
      }
    } else if (i < rest.length()) {
      throw new IllegalArgumentException("has unexpected '" + rest.substring(i) + "' after the host");
    }
    return v;
  }

  /** {@code keyword = value ...}; a value may be single-quoted; a backslash escapes the next character. */
  static Map<String, String> keywordValue(String s) {
    Map<String, String> v = new LinkedHashMap<>();
    int i = 0;
    int n = s.length();
    while (true) {
      while (i < n && Character.isWhitespace(s.charAt(i))) i++;
      if (i >= n) break;
      int start = i;
      while (i < n && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != '=') i++;
      String key = s.substring(start, i);
      while (i < n && Character.isWhitespace(s.charAt(i))) i++;
      if (i >= n || s.charAt(i) != '=') {
        throw new IllegalArgumentException("is not a connection string: '" + key
            + "' has no '=value' (expected postgresql://… or keyword=value pairs such as 'host=db dbname=app')");
      }
      i++;
      while (i < n && Character.isWhitespace(s.charAt(i))) i++;
      StringBuilder value = new StringBuilder();
      if (i < n && s.charAt(i) == '\'') {
        i++;
        boolean closed = false;
        while (i < n) {
          char c = s.charAt(i++);
          if (c == '\\' && i < n) {
            value.append(s.charAt(i++));
          } else if (c == '\'') {
            closed = true;
            break;
          } else {
            value.append(c);
          }
        }
        if (!closed) throw new IllegalArgumentException("has an unterminated quoted value for '" + key + "'");
      } else {
        while (i < n && !Character.isWhitespace(s.charAt(i))) {
          char c = s.charAt(i++);
          if (c == '\\' && i < n) c = s.charAt(i++);
          value.append(c);
        }
      }
      v.put(known(key), value.toString());
    }
    return v;
  }

  /** The keyword, or a refusal that names it (and the nearest known one). */
  static String known(String key) {
    if (KEYWORDS.containsKey(key)) return key;
    if (NOT_SUPPORTED.contains(key)) {
      throw new IllegalArgumentException("connection parameter '" + key + "' is not supported by sql-agent");
    }
    String near = null;
    int best = 3;
    for (String k : KEYWORDS.keySet()) {
      int d = distance(key.toLowerCase(), k);
      if (d < best) {
        best = d;
        near = k;
      }
    }
    throw new IllegalArgumentException("unknown connection parameter '" + key + "'"
        + (near == null ? " (known: " + String.join(", ", KEYWORDS.keySet()) + ")" : " (did you mean " + near + "?)"));
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        cur[j] = Math.min(Math.min(cur[j - 1], prev[j]) + 1, prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** Percent-decoding as libpq's conninfo_uri_decode: {@code %XX} only ({@code +} stays a plus). */
  static String decode(String s, String what) {
    if (s.indexOf('%') < 0) return s;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length()) {
          throw new IllegalArgumentException("has an invalid percent-encoded token in " + what);
        }
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) throw new IllegalArgumentException("has an invalid percent-encoded token in " + what);
        int b = hi * 16 + lo;
        if (b == 0) throw new IllegalArgumentException("has a forbidden %00 in " + what);
        out.write(b);
        i += 2;
      } else {
        byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  // ---- service file, environment, defaults

  static PgUrl build(Map<String, String> explicit, PgEnvironment env) {
    Map<String, String> v = new LinkedHashMap<>(explicit);
    String service = v.containsKey("service") ? v.get("service") : env.get("PGSERVICE");
    boolean passwordFromService = false;
    if (service != null) {
      Map<String, String> fromService = service(service, env);
      passwordFromService = !v.containsKey("password") && fromService.containsKey("password");
      fromService.forEach(v::putIfAbsent);
    }
    boolean passwordFromEnv = !v.containsKey("password") && env.get("PGPASSWORD") != null;
    KEYWORDS.forEach((k, var) -> {
      if (var != null && env.get(var) != null) v.putIfAbsent(k, env.get(var));
    });

    // hosts, addresses and ports: lists that must line up, as libpq's connectOptions2
    List<String> hosts = split(v.get("host"));
    List<String> addrs = split(v.get("hostaddr"));
    List<String> ports = split(v.get("port"));
    int count = Math.max(hosts.size(), addrs.size());
    if (!hosts.isEmpty() && !addrs.isEmpty() && hosts.size() != addrs.size()) {
      throw new IllegalArgumentException("could not match " + hosts.size() + " host names to " + addrs.size()
          + " hostaddr values");
    }
    if (count == 0) count = 1;
    if (ports.size() > 1 && ports.size() != count) {
      throw new IllegalArgumentException("could not match " + ports.size() + " port numbers to " + count + " hosts");
    }
    List<PgUrl.Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String h = i < hosts.size() ? hosts.get(i) : "";
      String a = i < addrs.size() && !addrs.get(i).isEmpty() ? addrs.get(i) : null;
      if (a != null && !a.matches("[0-9.]+|[0-9A-Fa-f:.]+")) {
        throw new IllegalArgumentException("hostaddr '" + a + "' is not a numeric IP address");
      }
      if (h.isEmpty()) h = a != null ? a : DEFAULT_SOCKET_DIR;
      String p = ports.isEmpty() ? "" : ports.get(ports.size() == 1 ? 0 : i);
      endpoints.add(new PgUrl.Endpoint(h, a, port(p)));
    }

    String user = v.getOrDefault("user", env.osUser());
    String db = v.getOrDefault("dbname", user);
    if (db.isEmpty() || db.length() > 63) {
      throw new IllegalArgumentException("names database '" + db + "': expected a database name of 1 to 63 characters");
    }
    String password = v.get("password");
    String passwordFrom = password == null ? "none" : passwordFromService ? "service " + service
        : passwordFromEnv ? "PGPASSWORD" : "url";
    if (password == null) {
      Path passfile = v.containsKey("passfile") ? Path.of(v.get("passfile")) : env.home().resolve(".pgpass");
      for (PgUrl.Endpoint e : endpoints) {
        password = PassFile.lookup(passfile, e.host(), e.port(), db, user);
        if (password != null) {
          passwordFrom = passfile.toString();
          break;
        }
      }
    }

    String tsa = v.getOrDefault("target_session_attrs", "any");
    if (!SESSION_ATTRS.contains(tsa)) {
      throw new IllegalArgumentException("invalid target_session_attrs '" + tsa + "' (one of " + String.join(", ", SESSION_ATTRS) + ")");
    }
    int timeout = 0;
    if (v.containsKey("connect_timeout") && !v.get("connect_timeout").isBlank()) {
      try {
        timeout = Integer.parseInt(v.get("connect_timeout").strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("invalid connect_timeout '" + v.get("connect_timeout") + "' (whole seconds)");
      }
      if (timeout < 0) throw new IllegalArgumentException("invalid connect_timeout '" + timeout + "' (whole seconds)");
      if (timeout == 1) timeout = 2;  // libpq: one second is too little to be meant
    }
    return new PgUrl(endpoints, user, password, db, tls(v, env), v.get("application_name"), timeout,
        settings(v.get("options")), tsa, passwordFrom);
  }

  private static List<String> split(String s) {
    if (s == null) return List.of();
    return Arrays.asList(s.split(",", -1));
  }

  private static int port(String p) {
    if (p.isBlank()) return 5432;
    try {
      int n = Integer.parseInt(p.strip());
      if (n >= 1 && n <= 65535) return n;
    } catch (NumberFormatException ignored) {
      // below
    }
    throw new IllegalArgumentException("invalid port number '" + p + "'");
  }

  /** sslmode and its files, with libpq's defaults under ~/.postgresql and its rules for sslrootcert. */
  private static PgUrl.Tls tls(Map<String, String> v, PgEnvironment env) {
    Path dir = env.home().resolve(".postgresql");
    String root = v.get("sslrootcert");
    if (root == null && Files.isRegularFile(dir.resolve("root.crt"))) root = dir.resolve("root.crt").toString();
    String mode = v.get("sslmode");
    if (mode != null && !SSLMODES.contains(mode)) {
      throw new IllegalArgumentException("invalid sslmode '" + mode + "' (one of " + String.join(", ", SSLMODES) + ")");
    }
    if ("system".equals(root)) {
      // libpq 16: the system's CAs vouch for any name, so only verify-full is safe with them
      if (mode == null) mode = "verify-full";
      if (!mode.equals("verify-full")) {
        throw new IllegalArgumentException("sslmode=" + mode + " may not be used with sslrootcert=system (use verify-full)");
      }
    }
    if (mode == null) mode = "prefer";
    if (root != null && !root.equals("system")) {
      readable(root, "sslrootcert");
      if (mode.equals("require")) mode = "verify-ca";  // libpq: a root certificate makes require verify the chain
    }
    if ((mode.equals("verify-ca") || mode.equals("verify-full")) && root == null) {
      throw new IllegalArgumentException("sslmode=" + mode + " needs sslrootcert: the CA's certificate file, or "
          + "sslrootcert=system for the JDK's trusted CAs (" + dir.resolve("root.crt") + " does not exist)");
    }
    String cert = v.get("sslcert");
    String key = v.get("sslkey");
    if (cert == null && Files.isRegularFile(dir.resolve("postgresql.crt"))) cert = dir.resolve("postgresql.crt").toString();
    if (key == null && cert != null && Files.isRegularFile(dir.resolve("postgresql.key"))) {
      key = dir.resolve("postgresql.key").toString();
    }
    String pk8 = null;
    String keyFile = key;
    if (cert != null && !cert.isEmpty()) {
      readable(cert, "sslcert");
      if (key == null) throw new IllegalArgumentException("sslcert is set but sslkey is not: name the client key's file");
      readable(key, "sslkey");
      ClientKey k = ClientKey.read(Path.of(key), v.get("sslpassword"));
      key = k.pem().toString();
      pk8 = k.pk8().toString();
    } else {
      cert = null;
      key = null;
      keyFile = null;
    }
    boolean verifies = mode.equals("verify-ca") || mode.equals("verify-full");
    return new PgUrl.Tls(mode, root, cert, keyFile, key, pk8, v.get("sslpassword"), verifies ? TlsTrust.of(root) : null);
  }

  private static void readable(String file, String what) {
    Path p = Path.of(file);
    if (!Files.isRegularFile(p)) throw new IllegalArgumentException(what + " file '" + file + "' does not exist");
    if (!Files.isReadable(p)) throw new IllegalArgumentException(what + " file '" + file + "' cannot be read");
  }

  /** {@code options}: only {@code -c name=value} (or {@code --name=value}) settings, as libpq passes them on. */
  static Map<String, String> settings(String options) {
    Map<String, String> out = new LinkedHashMap<>();
    if (options == null || options.isBlank()) return out;
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    for (int i = 0; i < options.length(); i++) {
      char c = options.charAt(i);
      if (c == '\\' && i + 1 < options.length()) {
        w.append(options.charAt(++i));
      } else if (Character.isWhitespace(c)) {
        if (w.length() > 0) words.add(w.toString());
        w.setLength(0);
      } else {
        w.append(c);
      }
    }
    if (w.length() > 0) words.add(w.toString());
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      String setting;
      if (word.equals("-c") && i + 1 < words.size()) {
        setting = words.get(++i);
      } else if (word.startsWith("-c")) {
        setting = word.substring(2);
      } else if (word.startsWith("--")) {
        setting = word.substring(2);
      } else {
        throw new IllegalArgumentException("options: expected -c name=value settings, not '" + word + "'");
      }
      int eq = setting.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("options: expected -c name=value, not '" + setting + "'");
      out.put(setting.substring(0, eq).replace('-', '_'), setting.substring(eq + 1));
    }
    return out;
  }

  /**
   * The named service's parameters: PGSERVICEFILE (default ~/.pg_service.conf) first, then
   * PGSYSCONFDIR/pg_service.conf, as libpq's parseServiceInfo.
   */
  static Map<String, String> service(String name, PgEnvironment env) {
    List<Path> files = new ArrayList<>();
    files.add(env.get("PGSERVICEFILE") != null ? Path.of(env.get("PGSERVICEFILE")) : env.home().resolve(".pg_service.conf"));
    files.add(Path.of(env.get("PGSYSCONFDIR") != null ? env.get("PGSYSCONFDIR") : DEFAULT_SYSCONFDIR, "pg_service.conf"));
    for (Path f : files) {
      if (!Files.isRegularFile(f)) continue;
      Map<String, String> found = serviceIn(f, name);
      if (found != null) return found;
    }
    throw new IllegalArgumentException("definition of service '" + name + "' not found (looked in "
        + files.get(0) + " and " + files.get(1) + ")");
  }

  private static Map<String, String> serviceIn(Path file, String name) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("service file '" + file + "' cannot be read: " + e.getMessage());
    }
    Map<String, String> out = null;
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n).strip();
      if (line.isEmpty() || line.startsWith("#")) continue;
      if (line.startsWith("[")) {
        if (out != null) return out;
        if (!line.endsWith("]")) throw new IllegalArgumentException("syntax error in service file '" + file + "', line " + (n + 1));
        if (line.substring(1, line.length() - 1).equals(name)) out = new LinkedHashMap<>();
        continue;
      }
      if (out == null) continue;
      int eq = line.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("syntax error in service file '" + file + "', line " + (n + 1));
      String key = line.substring(0, eq).strip();
      if (key.equals("service")) {
        throw new IllegalArgumentException("nested service specifications not supported in service file '" + file
            + "', line " + (n + 1));
      }
      try {
        out.putIfAbsent(known(key), line.substring(eq + 1).strip());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("service file '" + file + "', line " + (n + 1) + ": " + e.getMessage());
      }
    }
    return out;
  }

  /** The password file, as libpq's passwordFromFile. */
  static final class PassFile {
    private PassFile() {}

    /**
     * Whether the group or others may use the file. False where that cannot be known: a file system without POSIX
     * permissions (libpq checks nothing there either), or permissions that cannot be read (the read that follows
     * then says why).
     */
    private static boolean groupOrWorldAccess(Path file) {
      Set<PosixFilePermission> perms;
      try {
        perms = Files.getPosixFilePermissions(file);
      } catch (UnsupportedOperationException | IOException e) {
        return false;
      }
      return perms.stream().anyMatch(p -> p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_"));
    }

    static String lookup(Path file, String host, int port, String db, String user) {
      if (!Files.isRegularFile(file)) return null;
      if (groupOrWorldAccess(file)) {
        LOG.warn("password file \"{}\" has group or world access; permissions should be u=rw (0600) or less, "
            + "so it is ignored", file);
        return null;
      }
      // libpq: a socket in the default directory is "localhost" in the file
      String h = host.startsWith("/") && host.equals(DEFAULT_SOCKET_DIR) ? "localhost" : host;
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        LOG.warn("password file \"{}\" cannot be read: {}", file, e.getMessage());
        return null;
      }
      for (String line : lines) {
        if (line.startsWith("#") || line.isBlank()) continue;
        List<String> f = fields(line);
        if (f.size() < 5) continue;
        if (matches(f.get(0), h) && matches(f.get(1), String.valueOf(port)) && matches(f.get(2), db)
            && matches(f.get(3), user)) {
          return f.get(4);
        }
      }
      return null;
    }

    private static boolean matches(String field, String value) {
      return field.equals("*") || field.equals(value);
    }

    /** Colon-separated fields with {@code \:} and {@code \\} escapes; the password is the rest of the line. */
    private static List<String> fields(String line) {
      List<String> out = new ArrayList<>();
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (c == '\\' && i + 1 < line.length()) {
          b.append(line.charAt(++i));
        } else if (c == ':' && out.size() < 4) {
          out.add(b.toString());
          b.setLength(0);
        } else {
          b.append(c);
        }
      }
      out.add(b.toString());
      return out;
    }
  }

  /** The URL with its password replaced, for messages about a value that did not parse. */
  static String masked(String raw) {
    return raw.replaceFirst("^([^:/]+://[^:@/]+):[^@/]*@", "$1:****@").replaceAll("password\\s*=\\s*('[^']*'|\\S+)", "password=****");
  }
}
