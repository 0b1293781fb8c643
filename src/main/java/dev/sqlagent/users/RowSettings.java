package dev.sqlagent.users;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Row rules from the sign-on ({@code SQLAGENT_OIDC_SETTINGS}): which session settings the gate sets for a user's
 * statements, and from which claim of their token, e.g.
 * <pre>app.tenant_id=tenant,app.region=claims.region</pre>
 * Row-level security policies read them ({@code USING (tenant_id = current_setting('app.tenant_id')::int)}). A name
 * must be a custom setting's ({@code prefix.name}): PostgreSQL's own settings ({@code role}, {@code search_path}) are
 * not the sign-on's to set. Names are compared as PostgreSQL compares them, in any case. A claim path is read as
 * {@link ClaimMap} reads one (the whole name first, then a dotted path into nested objects).
 */
public final class RowSettings {

  public static final RowSettings NONE = new RowSettings(Map.of());
  /** PostgreSQL's rule for a custom setting's name (guc.c valid_custom_variable_name), ASCII only. */
  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_$]*(?:\\.[a-z_][a-z0-9_$]*)+");
  private static final int MAX_NAME = 200;
  /** The longest value a claim or the users file may give a setting. */
  public static final int MAX_VALUE = 1000;

  /** Setting name (lower case) to the claim path that gives its value, in the order given. */
  private final Map<String, String> claims;

  private RowSettings(Map<String, String> claims) {
    this.claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
  }

  /**
   * Parses the setting's value.
   *
   * @throws IllegalArgumentException naming the entry that is not right
   */
  public static RowSettings parse(String spec) {
    if (spec == null || spec.isBlank()) return NONE;
    Map<String, String> given = new LinkedHashMap<>();
    for (String raw : spec.split(",")) {
      String entry = raw.strip();
      if (entry.isEmpty()) continue;
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new IllegalArgumentException("'" + entry + "' is not setting=claim (e.g. app.tenant_id=tenant)");
      }
      String name = name(entry.substring(0, eq));
      if (given.put(name, entry.substring(eq + 1).strip()) != null) {
        throw new IllegalArgumentException("the setting " + name + " is named twice");
      }
    }
    return new RowSettings(given);
  }

  /**
   * A setting's name as PostgreSQL knows it (lower case).
   *
   * @throws IllegalArgumentException naming it, when it is not a custom setting's name
   */
  public static String name(String given) {
    String name = given.strip().toLowerCase(Locale.ROOT);
    if (name.length() > MAX_NAME || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("'" + given.strip() + "' is not a custom setting's name: expected prefix.name "
          + "(letters, digits, _ and $, parts joined by dots, e.g. app.tenant_id); PostgreSQL's own settings may not be set");
    }
    return name;
  }

  /**
   * A setting's value as a text, or null when {@code value} cannot be one (a list, an object, a NUL character, longer
   * than {@link #MAX_VALUE}).
   */
  public static String value(Object value) {
    String text = value instanceof String s ? s
        : value instanceof Number || value instanceof Boolean ? String.valueOf(value) : null;
    if (text == null || text.length() > MAX_VALUE || text.indexOf('\0') >= 0) return null;
    return text;
  }

  public boolean configured() {
    return !claims.isEmpty();
  }

  /** The settings' names, in the order given. */
  public List<String> names() {
    return List.copyOf(claims.keySet());
  }

  /** The claim that gives {@code name}, or null when none does. */
  public String claimOf(String name) {
    return claims.get(name);
  }

  /** The settings these verified claims give, by name; a claim that is absent or not a single value gives none. */
  public Map<String, String> resolve(JsonObject claims) {
    Map<String, String> resolved = new TreeMap<>();
    for (Map.Entry<String, String> e : this.claims.entrySet()) {
      String v = value(ClaimMap.claim(claims, e.getValue()));
      if (v != null) resolved.put(e.getKey(), v);
    }
    return resolved;
  }

  /** The names of {@code required} that {@code user} has no value for, in order. */
  public static List<String> missing(List<String> required, User user) {
    List<String> out = new ArrayList<>();
    for (String n : required) if (!user.settings().containsKey(n)) out.add(n);
    return out;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    claims.forEach((n, c) -> b.append(b.length() == 0 ? "" : ",").append(n).append('=').append(c));
    return b.toString();
  }
}
