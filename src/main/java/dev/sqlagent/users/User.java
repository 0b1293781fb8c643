package dev.sqlagent.users;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who asked: a user of the users file, or one the company's sign-on vouched for (a verified OpenID Connect token).
 * {@code dbRole}, when set, is the database role the gate switches to for this user's statements (so the target's
 * grants and row-level security apply to them); {@code seeSensitive} whether the user may see sensitive columns
 * unmasked; {@code groups} the groups the users file or a sign-on claim puts them in (their budgets apply to them);
 * {@code settings} the session settings (row rules, {@link RowSettings}) the gate sets for their statements, by name. Never holds the token, so a user can travel on the bus and into events without carrying a credential.
 */
public record User(String name, String displayName, boolean admin, String dbRole, boolean seeSensitive,
    java.util.List<String> groups, Map<String, String> settings) {

  public User {
    groups = groups == null ? java.util.List.of() : java.util.List.copyOf(groups);
    settings = settings == null || settings.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(settings));
  }

  public User(String name, String displayName, boolean admin, String dbRole, boolean seeSensitive) {
    this(name, displayName, admin, dbRole, seeSensitive, java.util.List.of(), Map.of());
  }

  public User(String name, String displayName, boolean admin, String dbRole, boolean seeSensitive,
      java.util.List<String> groups) {
    this(name, displayName, admin, dbRole, seeSensitive, groups, Map.of());
  }

  public User(String name, String displayName, boolean admin, String dbRole, boolean seeSensitive,
      Map<String, String> settings) {
    this(name, displayName, admin, dbRole, seeSensitive, java.util.List.of(), settings);
  }

  public User(String name, String displayName, boolean admin, String dbRole) {
    this(name, displayName, admin, dbRole, false);
  }

  /** The session settings the gate sets for {@code user}'s statements (none for no user). */
  public static Map<String, String> settingsOf(User user) {
    return user == null ? Map.of() : user.settings();
  }

  /** Whether {@code user} (null: no users file, an anonymous caller) is shown sensitive values unmasked. */
  public static boolean seesSensitive(User user) {
    return user != null && user.seeSensitive();
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("name", name).put("display_name", displayName).put("admin", admin).put("db_role", dbRole);
    if (!groups.isEmpty()) json.put("groups", new io.vertx.core.json.JsonArray(groups));
    if (!settings.isEmpty()) json.put("settings", new JsonObject(new java.util.LinkedHashMap<>(settings)));
    return seeSensitive ? json.put("see_sensitive", true) : json;
  }

  /** The user a bus message carries, or null (no users file: everyone is the same anonymous user). */
  public static User fromJson(JsonObject json) {
    if (json == null || json.getString("name") == null) return null;
    return new User(json.getString("name"), json.getString("display_name", json.getString("name")),
        json.getBoolean("admin", false), json.getString("db_role"), json.getBoolean("see_sensitive", false),
        json.getValue("groups") instanceof io.vertx.core.json.JsonArray g
            ? g.stream().filter(String.class::isInstance).map(String.class::cast).toList() : java.util.List.of(),
        settings(json.getValue("settings")));
  }

  private static Map<String, String> settings(Object json) {
    if (!(json instanceof JsonObject o)) return Map.of();
    Map<String, String> out = new TreeMap<>();
    for (String name : o.fieldNames()) {
      if (o.getValue(name) instanceof String v) out.put(name, v);
    }
    return out;
  }

  /**
   * Whether {@code caller} may watch, replay or cancel a run owned by {@code owner} (a user name, null for a run
   * asked without a users file). Without a users file there is no caller and every run is open as before; with
   * one, a user reaches their own runs and an admin reaches all.
   */
  public static boolean mayReach(User caller, String owner) {
    if (caller == null) return true;
    return caller.admin() || caller.name().equals(owner);
  }
}
