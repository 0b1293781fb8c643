package dev.sqlagent.execution;

import java.util.Locale;

/**
 * A statement's shape: its words, names, operators and parameters as they are, every literal (string, number,
 * dollar-quoted text) replaced by {@code ?} and comments left out, so that a trace or a log can say what ran without
 * a value a user typed. Tokenised as PostgreSQL does ({@link PgLexer}); text it cannot tokenise (an unclosed quote)
 * is shown as its first word only.
 */
public final class SqlShape {

  /** Longest shape kept; a longer one ends with an ellipsis. */
  static final int MAX_CHARS = 4_096;

  private SqlShape() {}

  public static String of(String sql) {
    if (sql == null) return null;
    PgLexer.Result lexed;
    try {
      lexed = PgLexer.lex(sql);
    } catch (PgLexer.LexException e) {
      return firstWord(sql) + " …";
    }
    StringBuilder out = new StringBuilder(Math.min(sql.length(), MAX_CHARS));
    PgLexer.Token previous = null;
    for (PgLexer.Token t : lexed.tokens()) {
      String text = switch (t.kind()) {
        case STRING, NUMBER, OTHER -> "?";
        default -> t.text();
      };
      if (previous != null && spaced(previous, t)) out.append(' ');
      out.append(text);
      previous = t;
      if (out.length() > MAX_CHARS) return out.substring(0, MAX_CHARS) + " …";
    }
    return out.toString();
  }

  /** The statement's first keyword, upper-cased ("SELECT", "BEGIN"), or "SQL" when it has none. */
  public static String operation(String sql) {
    if (sql == null) return "SQL";
    // Only the first word matters: skip blanks and comments as PostgreSQL does, without lexing the whole statement
    // (a span is named for every statement sent; the statement may be long).
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (sql.startsWith("--", i)) {
        int eol = sql.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (sql.startsWith("/*", i)) {
        i = afterComment(sql, i);
        if (i < 0) return "SQL";
      } else {
        break;
      }
    }
    int start = i;
    while (i < n && wordChar(sql.charAt(i), i == start)) i++;
    return i == start ? "SQL" : sql.substring(start, i).toUpperCase(Locale.ROOT);
  }

  /** Where the block comment opening at {@code at} ends (comments nest), or -1 when it never closes. */
  private static int afterComment(String sql, int at) {
    int depth = 0;
    int i = at;
    while (i < sql.length() - 1) {
      if (sql.startsWith("/*", i)) {
        depth++;
        i += 2;
      } else if (sql.startsWith("*/", i)) {
        depth--;
        i += 2;
        if (depth == 0) return i;
      } else {
        i++;
      }
    }
    return -1;
  }

  /** A character of an unquoted word: a letter, underscore or non-ASCII first, then digits and {@code $} too. */
  private static boolean wordChar(char c, boolean first) {
    if (c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    return !first && ((c >= '0' && c <= '9') || c == '$');
  }

  /** A space where the original had one between the two tokens. */
  private static boolean spaced(PgLexer.Token a, PgLexer.Token b) {
    return b.start() > a.end();
  }

  private static String firstWord(String sql) {
    String s = sql.stripLeading();
    int i = 0;
    while (i < s.length() && Character.isLetter(s.charAt(i))) i++;
    return s.substring(0, i);
  }
}
