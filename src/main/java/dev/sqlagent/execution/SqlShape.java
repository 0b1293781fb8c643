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
    try {
      for (PgLexer.Token t : PgLexer.lex(sql).tokens()) {
        return t.kind() == PgLexer.Kind.WORD ? t.name().toUpperCase(Locale.ROOT) : "SQL";
      }
    } catch (PgLexer.LexException e) {
      String w = firstWord(sql);
      if (!w.isEmpty()) return w.toUpperCase(Locale.ROOT);
    }
    return "SQL";
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
