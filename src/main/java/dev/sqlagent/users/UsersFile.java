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
 *     settings:                  # optional: session settings set for her statements (row rules)
 *       app.tenant_id: 42
 * </pre>
 * A token in clear ({@code token:}) is refused: the file stores digests only. Every problem is reported with
 * the user's position and what to write instead; read once, at start, off any event loop.
 */
public final class UsersFile {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
  private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern ROLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,62}");
  private static final Set<String> KEYS = Set.of("name", "display_name", "token_sha256", "admin", "db_role",
      "see_sensitive", "settings");

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
    if (!(root instanceof Map<?, ?> map) || !(map.get("users") instanceof List<?> list) || list.isEmpty()) {
      throw new IllegalArgumentException(where + ": expected a top-level \"users\" list with at least one user");
    }
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
      users.add(new User(name, display == null ? name : display, a, role, seeSensitive, settings(u.get("settings"), at + " (" + name + ")")));
      digests.add(digest);
    }
    return new Users(users, digests);
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
