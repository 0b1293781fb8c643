package dev.sqlagent.db;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The SQL files in {@code db/} (on the classpath), split into statements for JDBC. */
public final class SqlScript {

  private SqlScript() {}

  /** Loads {@code db/<name>} and replaces each {@code ${key}} with its value, given already quoted. */
  public static List<String> load(String name, Map<String, String> values) {
    String text = text(name);
    for (var e : values.entrySet()) text = text.replace("${" + e.getKey() + "}", e.getValue());
    return split(text);
  }

  /** The raw text of {@code db/<name>}, its ${key} markers left as they are. */
  public static String text(String name) {
    try (InputStream in = SqlScript.class.getClassLoader().getResourceAsStream("db/" + name)) {
      if (in == null) throw new IllegalStateException("db/" + name + " is missing from the classpath");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read db/" + name, e);
    }
  }

  /** Splits on top-level semicolons: not inside quotes, dollar quotes or comments. */
  static List<String> split(String sql) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
        cur.append('\n');
      } else if (c == '\'' || c == '"') {
        int end = i + 1;
        while (end < n && sql.charAt(end) != c) end++;
        cur.append(sql, i, Math.min(end + 1, n));
        i = end + 1;
      } else if (c == '$' && sql.startsWith("$$", i)) {
        int end = sql.indexOf("$$", i + 2);
        end = end < 0 ? n : end + 2;
        cur.append(sql, i, end);
        i = end;
      } else if (c == ';') {
        add(out, cur);
        cur.setLength(0);
        i++;
      } else {
        cur.append(c);
        i++;
      }
    }
    add(out, cur);
    return out;
  }

  private static void add(List<String> out, StringBuilder cur) {
    String s = cur.toString().strip();
    if (!s.isEmpty()) out.add(s);
  }
}
