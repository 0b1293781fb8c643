package dev.sqlagent.db;

import java.util.Set;
import java.util.regex.Pattern;

/** PostgreSQL identifiers written into SQL text: the one place that quotes a table, column, schema, role or database name. */
public final class Identifiers {
  private Identifiers() {}

  private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_$]*");
  private static final Set<String> RESERVED = Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
      "asc", "both", "case", "cast", "check", "collate", "column", "constraint", "create", "default", "desc",
      "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group",
      "having", "in", "into", "leading", "limit", "not", "null", "offset", "on", "only", "or", "order",
      "primary", "references", "select", "table", "then", "to", "true", "union", "unique", "user", "using",
      "when", "where", "window", "with");

  /** Always quoted, so any name is safe inside our own fixed SQL. */
  public static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /** {@code schema.name}, both quoted. */
  public static String qualified(String schema, String name) {
    return quote(schema) + "." + quote(name);
  }

  /** As a person would write it: bare when PostgreSQL reads it back unchanged, quoted otherwise (for prompts and messages). */
  public static String name(String identifier) {
    return PLAIN.matcher(identifier).matches() && !RESERVED.contains(identifier) ? identifier : quote(identifier);
  }

  /**
   * A text as an SQL string literal: the one place that quotes a value into SQL text. A backslash makes it an
   * {@code E'…'} literal, which reads the same whatever {@code standard_conforming_strings} says.
   */
  public static String literal(String text) {
    if (text.indexOf('\\') >= 0) return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
    return "'" + text.replace("'", "''") + "'";
  }
}
