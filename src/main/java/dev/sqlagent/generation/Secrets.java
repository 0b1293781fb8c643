package dev.sqlagent.generation;

import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Masks API keys (and credentials in URLs) in any text that may reach a log line, an event, an error or
 * a reply. A server may echo the key it was sent ("Incorrect API key provided: sk-..."), so every message
 * built from a server's answer goes through here.
 */
final class Secrets {

  static final String MASK = "****";
  private static final Pattern URL_USERINFO = Pattern.compile("(?i)(\\bhttps?://)[^/@\\s]+@");
  private static final Pattern KEY_PARAM = Pattern.compile("(?i)([?&](?:key|api[_-]?key|token|access_token)=)[^&\\s]+");
  private static final Pattern BEARER = Pattern.compile("(?i)(\\bBearer\\s+)[A-Za-z0-9._~+/=-]{8,}");

  private final List<String> keys;

  Secrets(List<String> keys) {
    // Longest first, so a key that contains another is masked whole.
    this.keys = keys.stream().filter(k -> k != null && !k.isBlank()).sorted(Comparator.comparingInt(String::length).reversed()).toList();
  }

  String redact(String text) {
    if (text == null) return null;
    String out = text;
    for (String k : keys) out = out.replace(k, MASK);
    out = URL_USERINFO.matcher(out).replaceAll("$1" + MASK + "@");
    out = KEY_PARAM.matcher(out).replaceAll("$1" + MASK);
    return BEARER.matcher(out).replaceAll("$1" + MASK);
  }
}
