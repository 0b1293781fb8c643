package dev.sqlagent.db;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Why a connection failed, in words that say what to change, for both clients (pgjdbc's SQLException and the
 * reactive client's exceptions): no class names, no stack traces. The server's own sentences (password
 * authentication failed, database does not exist) are already words and pass through.
 */
public final class ConnectFailure {
  private ConnectFailure() {}

  /** pgjdbc's failure, its message replaced by {@link #describe}; the SQLSTATE kept. */
  public static SQLException of(SQLException e, PgUrl url) {
    if (e instanceof Translated) return e;
    return new Translated(describe(e, url), e.getSQLState(), e);
  }

  /** Already translated: not translated twice. */
  static final class Translated extends SQLException {
    Translated(String message, String state, Throwable cause) {
      super(message, state, cause);
    }
  }

  /** The failure of connecting to {@code url} in one sentence. */
  public static String describe(Throwable e, PgUrl url) {
    String all = messages(e);
    if (url.tls().trust() != null) {
      // the reactive client says only "SSL handshake failed": the trust manager kept why
      String why = url.tls().trust().takeFailure();
      if (why != null) all = all + " | " + why;
    }
    String low = all.toLowerCase();
    String where = url.endpoints().size() == 1 ? url.host() + ":" + url.port() : url.host() + ":" + url.port() + " (first of the list)";
    String ca = url.tls().rootCert();
    if (low.contains("no encryption") && low.contains("pg_hba.conf")) {
      return "pg_hba.conf refuses a non-TLS connection from this host: add sslmode=require (or verify-full with the "
          + "server's CA in sslrootcert)";
    }
    if (low.contains("does not support ssl") || low.contains("does not handle ssl") || low.contains("ssl not supported")
        || low.contains("server does not support ssl")) {
      return "the server does not offer TLS (sslmode=" + url.tls().mode() + "): enable ssl on the server, or lower "
          + "sslmode to prefer";
    }
    if (low.contains("pkix path") || low.contains("unable to find valid certification path")
        || low.contains("certificate_unknown") || low.contains("signature check failed")
        || low.contains("unknown_ca") || low.contains("no trust")) {
      return "the server's certificate is not signed by "
          + ("system".equals(ca) ? "a CA the JDK trusts (sslrootcert=system)" : "the CA in " + ca)
          + ": put the CA that signed it in sslrootcert";
    }
    if (low.contains("does not name host") || low.contains("could not be verified by hostnameverifier") || low.contains("no subject alternative")
        || low.contains("no name matching") || low.contains("hostname") && low.contains("verif")
        || low.contains("no subject alternative names matching")) {
      return "the server's certificate does not name host " + url.host() + ": connect by a name the certificate "
          + "lists, or use sslmode=verify-ca";
    }
    if (url.password() == null && (low.contains("password authentication failed") || low.contains("no password was provided")
        || low.contains("'password' must not be empty")
        || low.contains("password-based authentication"))) {
      return "the server wants a password for user " + url.user() + ": put it in the URL, PGPASSWORD or ~/.pgpass";
    }
    if (low.contains("password authentication failed") || low.contains("certificate authentication failed")
        || low.contains("peer authentication failed") || low.contains("does not exist")
        || low.contains("no pg_hba.conf entry") || low.contains("permission denied")) {
      return serverSentence(e);
    }
    if (low.contains("password can not be null") || low.contains("no password was provided")
        || low.contains("password-based authentication")) {
      return "the server wants a password for user " + url.user() + ": put it in the URL, PGPASSWORD or ~/.pgpass";
    }
    if (low.contains("certificate_required") || low.contains("connection requires a valid client certificate")) {
      return "the server wants a client certificate: set sslcert and sslkey";
    }
    if (low.contains("connection refused")) {
      return "nothing accepts connections at " + where + " (connection refused): is the server running, and is that its port?";
    }
    if (low.contains("unknownhost") || low.contains("unknown host") || low.contains("name or service not known")
        || low.contains("failed to resolve") || low.contains("nodename nor servname")) {
      return "host " + url.host() + " is not known (its name does not resolve)";
    }
    if (low.contains("timed out") || low.contains("timeout")) {
      return "no answer from " + where + " in time: check the host, the port and any firewall (connect_timeout)";
    }
    if (low.contains("native transport")) {
      return "a Unix-socket connection (host " + url.host() + ") needs the native transport, which is not available here";
    }
    return serverSentence(e);
  }

  /** The innermost message that is a sentence, without Java class names. */
  private static String serverSentence(Throwable e) {
    String best = null;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (m != null && !m.isBlank()) {
        best = m;
        if (t instanceof SQLException s && s.getSQLState() != null && !s.getSQLState().startsWith("08")) break;
      }
      if (t.getCause() == null) break;
    }
    if (best == null) return "the connection failed";
    // one line, without class names, severity prefixes or the SQLSTATE the reactive client appends
    String line = best.lines().findFirst().orElse(best);
    return line.replaceAll("(?:[a-z]+\\.)+[A-Z][A-Za-z]*(?:Exception|Error):\\s*", "")
        .replaceFirst("^(?:FATAL|ERROR):\\s*", "").replaceFirst("\\s*\\([0-9A-Z]{5}\\)$", "").strip();
  }

  private static String messages(Throwable e) {
    List<String> out = new ArrayList<>();
    for (Throwable t = e; t != null && out.size() < 10; t = t.getCause() == t ? null : t.getCause()) {
      out.add(t.getClass().getSimpleName() + ": " + t.getMessage());
    }
    return String.join(" | ", out);
  }
}
