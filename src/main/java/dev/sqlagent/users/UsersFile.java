package dev.sqlagent.users;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads the users file (YAML, or JSON which YAML reads too):
 * <pre>
 * users:
 *   - name: alice
 *     display_name: Alice Martin
 *     token_sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 *     admin: false
 *     db_role: analyst_eu        # optional
 *     see_sensitive: true        # optional: shown sensitive columns unmasked
 *     groups: [analysts]         # optional: the groups whose budgets apply
 *     budget: {questions_per_day: 50, tokens_per_day: 200000, cost_usd_per_day: 2.0}   # optional
 *     settings:                  # optional: session settings set for her statements (row rules)
 *       app.tenant_id: 42
 * groups:                        # optional: group name -> its budget (groups may also come from a sign-on claim)
 *   analysts:
 *     budget: {questions_per_day: 200}
 * default_budget: {questions_per_day: 20}   # optional: for everyone without a limit of their own or a group's
 * </pre>
 * With only sign-on users the file may list no users and hold just the budgets.
 * A token in clear ({@code token:}) is refused: the file stores digests only. Every problem is reported with
 * the user's position and what to write instead; read once, at start, off any event loop.
 */
public final class UsersFile {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
  private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern ROLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,62}");
  private static final Set<String> KEYS = Set.of("name", "display_name", "token_sha256", "admin", "db_role",
      "see_sensitive", "groups", "budget", "settings");

  private UsersFile() {}

  /** The users of {@code file}; IllegalArgumentException with a precise message when it is not right. */
  public static Users load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": cannot read the users file (" + e.getClass().getSimpleName() + ")");
    }
    return parse(text, file.toString());
  }

  static Users parse(String text, String where) {
    Object root;
    try {
      root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    } catch (YAMLException e) {
      throw new IllegalArgumentException(where + ": not valid YAML or JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    boolean budgetsOnly = root instanceof Map<?, ?> m && (m.containsKey("groups") || m.containsKey("default_budget"))
        && (m.get("users") == null || m.get("users") instanceof List<?> l && l.isEmpty());
    if (!(root instanceof Map<?, ?> map) || !(budgetsOnly || map.get("users") instanceof List<?> l && !l.isEmpty())) {
      throw new IllegalArgumentException(where + ": expected a top-level \"users\" list with at least one user");
    }
    List<?> list = map.get("users") instanceof List<?> l ? l : List.of();
    Map<String, Budget> groupBudgets = groupBudgets(map.get("groups"), where);
    Budget fallback = map.containsKey("default_budget") ? Budget.parse(map.get("default_budget"), where + ": default_budget")
        : Budget.NONE;
    Map<String, Budget> userBudgets = new java.util.HashMap<>();
    List<User> users = new ArrayList<>();
    List<String> digests = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> seenDigests = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String at = where + ": users[" + i + "]";
      if (!(list.get(i) instanceof Map<?, ?> u)) throw new IllegalArgumentException(at + " must be a mapping of name, token_sha256, ...");
      if (u.containsKey("token")) {
        throw new IllegalArgumentException(at + " has a token in clear; store its SHA-256 instead as token_sha256 "
            + "(printf %s \"$TOKEN\" | sha256sum)");
      }
      for (Object k : u.keySet()) {
        if (!KEYS.contains(String.valueOf(k))) {
          throw new IllegalArgumentException(at + ": unknown key \"" + k + "\"; known: " + String.join(", ", KEYS.stream().sorted().toList()));
        }
      }
      String name = string(u.get("name"));
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(at + ": name must be 1 to 64 letters, digits or . _ @ -");
      }
      if (!names.add(name)) throw new IllegalArgumentException(at + ": the name " + name + " appears twice");
      String digest = string(u.get("token_sha256"));
      if (digest == null || !DIGEST.matcher(digest.toLowerCase(java.util.Locale.ROOT)).matches()) {
        throw new IllegalArgumentException(at + " (" + name + "): token_sha256 must be 64 hex digits, the SHA-256 of the token");
      }
      digest = digest.toLowerCase(java.util.Locale.ROOT);
      if (!seenDigests.add(digest)) throw new IllegalArgumentException(at + " (" + name + "): two users share one token");
      Object admin = u.containsKey("admin") ? u.get("admin") : Boolean.FALSE;
      if (!(admin instanceof Boolean a)) throw new IllegalArgumentException(at + " (" + name + "): admin must be true or false");
      String role = string(u.get("db_role"));
      if (role != null && !ROLE.matcher(role).matches()) {
        throw new IllegalArgumentException(at + " (" + name + "): db_role must be a plain role name (letters, digits, _)");
      }
      Object sees = u.containsKey("see_sensitive") ? u.get("see_sensitive") : Boolean.FALSE;
      if (!(sees instanceof Boolean seeSensitive)) {
        throw new IllegalArgumentException(at + " (" + name + "): see_sensitive must be true or false");
      }
      String display = string(u.get("display_name"));
      List<String> groups = userGroups(u.get("groups"), at + " (" + name + ")", groupBudgets);
      if (u.containsKey("budget")) userBudgets.put(name, Budget.parse(u.get("budget"), at + " (" + name + ")"));
      users.add(new User(name, display == null ? name : display, a, role, seeSensitive, groups,
          settings(u.get("settings"), at + " (" + name + ")")));
      digests.add(digest);
    }
    return new Users(users, digests, new Budgets(userBudgets, groupBudgets, fallback));
  }

  /** The {@code groups:} section: each group's name and budget. */
  private static Map<String, Budget> groupBudgets(Object section, String where) {
    Map<String, Budget> groups = new java.util.HashMap<>();
    if (section == null) return groups;
    if (!(section instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(where + ": groups must be a mapping of group name to {budget: {...}}");
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String name = groupName(e.getKey());
      String at = where + ": groups." + e.getKey();
      if (name == null) throw new IllegalArgumentException(at + ": a group's name must be 1 to 128 characters");
      if (!(e.getValue() instanceof Map<?, ?> g) || !g.keySet().equals(Set.of("budget"))) {
        throw new IllegalArgumentException(at + " must be a mapping with one key, budget: {questions_per_day: ..., ...}");
      }
      groups.put(name, Budget.parse(g.get("budget"), at));
    }
    return groups;
  }

  /** A user's {@code groups:}: each one the file's {@code groups:} section defines (a typo would lift no limit). */
  private static List<String> userGroups(Object value, String at, Map<String, Budget> defined) {
    if (value == null) return List.of();
    if (!(value instanceof List<?> list)) throw new IllegalArgumentException(at + ": groups must be a list, like [analysts]");
    List<String> groups = new ArrayList<>();
    for (Object g : list) {
      String name = groupName(g);
      if (name == null || !defined.containsKey(name)) {
        throw new IllegalArgumentException(at + ": group \"" + g + "\" is not in the file's groups section"
            + (defined.isEmpty() ? "" : " (" + String.join(", ", defined.keySet().stream().sorted().toList()) + ")"));
      }
      groups.add(name);
    }
    return groups;
  }

  private static String groupName(Object o) {
    String s = string(o);
    return s == null || s.length() > 128 ? null : s;
  }

  /** A user's {@code settings:}: custom setting names to single values (text, number, true/false). */
  private static Map<String, String> settings(Object given, String at) {
    if (given == null) return Map.of();
    if (!(given instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(at + ": settings must be a mapping of setting name to value, like "
          + "settings: {app.tenant_id: 42}");
    }
    Map<String, String> out = new java.util.TreeMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String name;
      try {
        name = RowSettings.name(String.valueOf(e.getKey()));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(at + ": settings: " + bad.getMessage());
      }
      String value = RowSettings.value(e.getValue());
      if (value == null) {
        throw new IllegalArgumentException(at + ": settings: " + name + " must be one value (a text, a number or true/false, "
            + "at most " + RowSettings.MAX_VALUE + " characters)");
      }
      if (out.put(name, value) != null) throw new IllegalArgumentException(at + ": settings: " + name + " is named twice");
    }
    return out;
  }

  private static String string(Object o) {
    if (o == null) return null;
    String s = String.valueOf(o).trim();
    return s.isEmpty() ? null : s;
  }
}
