package dev.sqlagent.users;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How a verified token's claims become a {@link User} ({@code SQLAGENT_OIDC_CLAIMS}): a comma-separated list of
 * {@code field=claim} for the text fields and {@code field=claim:value} for the grants, e.g.
 * <pre>name=preferred_username,display_name=name,admin=groups:sql-admins,role=db_role,see_sensitive=groups:pii</pre>
 * <ul>
 *   <li>{@code name} (required; default {@code preferred_username}), {@code display_name} (default {@code name},
 *       then the user's name), {@code role} (the database role; default none): the claim's text.</li>
 *   <li>{@code admin}, {@code see_sensitive} (default: nobody): granted when the claim is the value, or a list that
 *       holds it, or a space-separated text that holds it (as {@code scope}); {@code claim} alone means the claim
 *       is {@code true}.</li>
 *   <li>{@code groups} (default: none): the claim listing the user's groups (a list, or a space-separated text), whose
 *       budgets in the users file apply to them.</li>
 * </ul>
 * A claim is looked up by its whole name first (namespaced claims like {@code https://example.com/groups} are
 * names), then as a dotted path into nested objects ({@code realm_access.roles:sql-admins}, Keycloak's realm
 * roles). The value of a grant is what follows the last colon.
 */
public record ClaimMap(String name, String displayName, String role, Grant admin, Grant seeSensitive, String groups) {

  public static final ClaimMap DEFAULT = new ClaimMap("preferred_username", "name", null, null, null, null);
  private static final List<String> FIELDS = List.of("name", "display_name", "role", "admin", "see_sensitive", "groups");
  private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
  private static final Pattern ROLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,62}");

  /** A grant: the claim holds {@code value} ({@code "true"} also matches a boolean true). */
  public record Grant(String claim, String value) {
    boolean holds(JsonObject claims) {
      Object v = ClaimMap.claim(claims, claim);
      if (v instanceof Boolean b) return b && value.equals("true");
      if (v instanceof String s) return s.equals(value) || List.of(s.trim().split("\\s+")).contains(value);
      if (v instanceof JsonArray a) return a.stream().anyMatch(x -> value.equals(String.valueOf(x)));
      return false;
    }

    @Override
    public String toString() {
      return claim + ":" + value;
    }
  }

  /**
   * Parses the setting; fields not named keep their defaults.
   *
   * @throws IllegalArgumentException naming the entry that is not right
   */
  public static ClaimMap parse(String spec) {
    if (spec == null || spec.isBlank()) return DEFAULT;
    Map<String, String> given = new LinkedHashMap<>();
    for (String raw : spec.split(",")) {
      String entry = raw.strip();
      if (entry.isEmpty()) continue;
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new IllegalArgumentException("'" + entry + "' is not field=claim (fields: " + String.join(", ", FIELDS) + ")");
      }
      String field = entry.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      if (!FIELDS.contains(field)) {
        throw new IllegalArgumentException("'" + field + "' is not a field; the fields are " + String.join(", ", FIELDS));
      }
      if (given.put(field, entry.substring(eq + 1).strip()) != null) {
        throw new IllegalArgumentException("'" + field + "' is mapped twice");
      }
    }
    return new ClaimMap(given.getOrDefault("name", DEFAULT.name), given.getOrDefault("display_name", DEFAULT.displayName),
        given.get("role"), grant(given.get("admin")), grant(given.get("see_sensitive")), given.get("groups"));
  }

  private static Grant grant(String text) {
    if (text == null) return null;
    int colon = text.lastIndexOf(':');
    // A colon inside a namespaced claim's URL (https://…) is part of the name, not the value's separator.
    if (colon <= 0 || colon == text.length() - 1 || text.substring(colon + 1).startsWith("//")) return new Grant(text, "true");
    return new Grant(text.substring(0, colon), text.substring(colon + 1));
  }

  /**
   * The user these verified claims name.
   *
   * @throws IllegalArgumentException saying which claim is missing or not usable (the caller answers 401 with it)
   */
  public User user(JsonObject claims) {
    Object n = claim(claims, name);
    if (!(n instanceof String userName) || userName.isBlank()) {
      throw new IllegalArgumentException("the token has no \"" + name + "\" claim to name the user (SQLAGENT_OIDC_CLAIMS name=…)");
    }
    if (!USER_NAME.matcher(userName).matches()) {
      throw new IllegalArgumentException("the token's \"" + name + "\" claim is not a user name (1 to 64 letters, digits or . _ @ -)");
    }
    Object d = displayName == null ? null : claim(claims, displayName);
    String display = d instanceof String s && !s.isBlank() ? s.strip() : userName;
    String dbRole = null;
    if (role != null) {
      Object r = claim(claims, role);
      if (r instanceof String s && !s.isBlank()) {
        if (!ROLE.matcher(s).matches()) {
          throw new IllegalArgumentException("the token's \"" + role + "\" claim is not a plain database role name");
        }
        dbRole = s;
      }
    }
    return new User(userName, display, admin != null && admin.holds(claims), dbRole,
        seeSensitive != null && seeSensitive.holds(claims), groups(claims));
  }

  /** The groups the {@code groups} claim lists (a list, or a space-separated text); none when unmapped or absent. */
  private List<String> groups(JsonObject claims) {
    Object v = groups == null ? null : claim(claims, groups);
    if (v instanceof String s) return List.of(s.strip().split("\\s+")).stream().filter(g -> !g.isEmpty()).toList();
    if (v instanceof JsonArray a) return a.stream().filter(String.class::isInstance).map(String.class::cast).toList();
    return List.of();
  }

  /** The claim by its whole name, else by a dotted path into nested objects; null when absent. */
  static Object claim(JsonObject claims, String path) {
    if (claims.containsKey(path)) return claims.getValue(path);
    Object at = claims;
    for (String part : path.split("\\.")) {
      if (!(at instanceof JsonObject o) || !o.containsKey(part)) return null;
      at = o.getValue(part);
    }
    return at;
  }

  @Override
  public String toString() {
    return "name=" + name + ",display_name=" + displayName + (role == null ? "" : ",role=" + role)
        + (admin == null ? "" : ",admin=" + admin) + (seeSensitive == null ? "" : ",see_sensitive=" + seeSensitive)
        + (groups == null ? "" : ",groups=" + groups);
  }
}
