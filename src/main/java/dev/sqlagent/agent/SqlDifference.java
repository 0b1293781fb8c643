package dev.sqlagent.agent;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one reading's SQL does that the others' do not, in one plain line, when the model gave no words for it: the
 * conditions (WHERE and HAVING, split at their top-level ANDs) only it has, those it leaves out, or the tables only it
 * reads. A text comparison, no parsing: cheap enough for the event loop, and only ever a description.
 */
final class SqlDifference {

  private static final Pattern CLAUSE = Pattern.compile(
      "(?is)\\b(where|having)\\b(.*?)(?=\\bgroup\\s+by\\b|\\border\\s+by\\b|\\bhaving\\b|\\blimit\\b|\\bwindow\\b|\\bunion\\b|\\)\\s*$|$)");
  private static final Pattern TABLE = Pattern.compile("(?i)\\b(?:from|join)\\s+([\\w.\"]+)");

  private SqlDifference() {}

  static String describe(String sql, List<String> others) {
    Set<String> mine = conditions(sql);
    Set<String> theirs = new LinkedHashSet<>();
    for (String o : others) theirs.addAll(conditions(o));
    List<String> only = new ArrayList<>();
    for (String c : mine) if (!contains(theirs, c)) only.add(c);
    List<String> without = new ArrayList<>();
    for (String c : theirs) if (!contains(mine, c)) without.add(c);
    if (!only.isEmpty()) return "Only where " + String.join(" and ", only);
    if (!without.isEmpty()) {
      return without.size() == 1 ? "Without the condition " + without.get(0)
          : "Without the other readings' conditions (" + String.join("; ", without) + ")";
    }
    Set<String> tables = tables(sql);
    Set<String> otherTables = new LinkedHashSet<>();
    for (String o : others) otherTables.addAll(tables(o));
    List<String> onlyTables = new ArrayList<>();
    for (String t : tables) if (!otherTables.contains(t)) onlyTables.add(t);
    if (!onlyTables.isEmpty()) return "Reads " + String.join(", ", onlyTables) + " (the other readings do not)";
    String flat = sql == null ? "" : sql.strip().replaceAll("\\s+", " ");
    return "Computed as " + flat;
  }

  private static boolean contains(Set<String> set, String condition) {
    String key = condition.toLowerCase(Locale.ROOT);
    return set.stream().anyMatch(c -> c.toLowerCase(Locale.ROOT).equals(key));
  }

  /** The top-level conjuncts of the statement's WHERE and HAVING clauses, whitespace collapsed. */
  static Set<String> conditions(String sql) {
    Set<String> out = new LinkedHashSet<>();
    if (sql == null) return out;
    Matcher m = CLAUSE.matcher(sql);
    while (m.find()) {
      for (String part : splitAnd(m.group(2))) {
        String p = part.strip().replaceAll("\\s+", " ");
        if (!p.isEmpty()) out.add(p);
      }
    }
    return out;
  }

  private static List<String> splitAnd(String clause) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    boolean quoted = false;
    int start = 0;
    String lower = clause.toLowerCase(Locale.ROOT);
    boolean between = false;
    for (int i = 0; i < clause.length(); i++) {
      char ch = clause.charAt(i);
      if (ch == '\'') quoted = !quoted;
      if (quoted) continue;
      if (ch == '(') depth++;
      else if (ch == ')') depth--;
      else if (depth == 0 && word(lower, i, "between")) between = true;
      else if (depth == 0 && word(lower, i, "and")) {
        if (between) {
          between = false;  // BETWEEN a AND b is one condition
          continue;
        }
        parts.add(clause.substring(start, i));
        start = i + 3;
      }
    }
    parts.add(clause.substring(start));
    return parts;
  }

  private static boolean word(String s, int i, String w) {
    if (!s.startsWith(w, i)) return false;
    boolean before = i == 0 || !Character.isLetterOrDigit(s.charAt(i - 1)) && s.charAt(i - 1) != '_';
    int end = i + w.length();
    boolean after = end >= s.length() || !Character.isLetterOrDigit(s.charAt(end)) && s.charAt(end) != '_';
    return before && after;
  }

  private static Set<String> tables(String sql) {
    Set<String> out = new LinkedHashSet<>();
    if (sql == null) return out;
    Matcher m = TABLE.matcher(sql);
    while (m.find()) out.add(m.group(1).toLowerCase(Locale.ROOT));
    return out;
  }
}
