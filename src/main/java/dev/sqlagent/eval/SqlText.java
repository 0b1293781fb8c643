package dev.sqlagent.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A small lexical view of one SQL statement, enough for the harness to mutate and trim queries without
 * reformatting them: tokens (comments and string literals kept whole), parenthesis depth, and for every
 * token the SELECT it belongs to (its scope) and the clause of that SELECT it sits in.
 *
 * <p>A scope starts at each SELECT keyword; parentheses that hold no SELECT (function calls, IN lists) stay
 * in the enclosing scope, so a column inside {@code sum(...)} belongs to the SELECT that calls sum.
 */
public final class SqlText {

  public enum Kind { WORD, QUOTED, STRING, NUMBER, PUNCT, SPACE, COMMENT }

  /** One token; {@code depth} is the parenthesis depth outside it (a paren carries its outer depth). */
  public static final class Token {
    public final Kind kind;
    public final String text;
    public final int start;
    public final int end;
    public int index;
    public int depth;
    public int scope;
    public String clause;

    Token(Kind kind, String text, int start, int end) {
      this.kind = kind;
      this.text = text;
      this.start = start;
      this.end = end;
    }

    public boolean isWord(String w) {
      return kind == Kind.WORD && text.equalsIgnoreCase(w);
    }

    public boolean isPunct(String p) {
      return kind == Kind.PUNCT && text.equals(p);
    }

    public String lower() {
      return text.toLowerCase(Locale.ROOT);
    }

    public boolean significant() {
      return kind != Kind.SPACE && kind != Kind.COMMENT;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /** One SELECT: its id, the depth of its SELECT keyword and that keyword's token index. */
  public record Scope(int id, int depth, int selectToken) {}

  private static final Set<String> CLAUSES = Set.of("select", "from", "where", "group", "having", "window",
      "order", "limit", "offset", "fetch", "union", "intersect", "except", "with", "returning", "for");

  public final String sql;
  public final List<Token> tokens;
  /** Significant tokens only (no whitespace or comments), in order. */
  public final List<Token> sig;
  public final List<Scope> scopes;

  private SqlText(String sql, List<Token> tokens) {
    this.sql = sql;
    this.tokens = tokens;
    this.sig = tokens.stream().filter(Token::significant).toList();
    for (int i = 0; i < sig.size(); i++) sig.get(i).index = i;
    this.scopes = annotate(sig);
  }

  public static SqlText of(String sql) {
    return new SqlText(sql, lex(sql));
  }

  // ---- lexing ------------------------------------------------------------------------------------

  private static List<Token> lex(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      int start = i;
      Kind kind;
      if (Character.isWhitespace(c)) {
        while (i < n && Character.isWhitespace(s.charAt(i))) i++;
        kind = Kind.SPACE;
      } else if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-') {
        while (i < n && s.charAt(i) != '\n') i++;
        kind = Kind.COMMENT;
      } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
        int close = s.indexOf("*/", i + 2);
        i = close < 0 ? n : close + 2;
        kind = Kind.COMMENT;
      } else if (c == '\'' || ((c == 'E' || c == 'e') && i + 1 < n && s.charAt(i + 1) == '\'')) {
        i = c == '\'' ? i + 1 : i + 2;
        while (i < n) {
          if (s.charAt(i) == '\\' && c != '\'') {
            i += 2;
            continue;
          }
          if (s.charAt(i) == '\'') {
            if (i + 1 < n && s.charAt(i + 1) == '\'') {
              i += 2;
              continue;
            }
            i++;
            break;
          }
          i++;
        }
        kind = Kind.STRING;
      } else if (c == '"') {
        i++;
        while (i < n) {
          if (s.charAt(i) == '"') {
            if (i + 1 < n && s.charAt(i + 1) == '"') {
              i += 2;
              continue;
            }
            i++;
            break;
          }
          i++;
        }
        kind = Kind.QUOTED;
      } else if (c == '$' && dollarTag(s, i) != null) {
        String tag = dollarTag(s, i);
        int close = s.indexOf(tag, i + tag.length());
        i = close < 0 ? n : close + tag.length();
        kind = Kind.STRING;
      } else if (Character.isLetter(c) || c == '_') {
        while (i < n && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '$')) i++;
        kind = Kind.WORD;
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
        while (i < n && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
          int j = i + 1;
          if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) j++;
          if (j < n && Character.isDigit(s.charAt(j))) {
            i = j;
            while (i < n && Character.isDigit(s.charAt(i))) i++;
          }
        }
        kind = Kind.NUMBER;
      } else {
        String two = i + 1 < n ? s.substring(i, i + 2) : "";
        i += switch (two) {
          case "<=", ">=", "<>", "!=", "::", "||" -> 2;
          default -> 1;
        };
        kind = Kind.PUNCT;
      }
      out.add(new Token(kind, s.substring(start, i), start, i));
    }
    return out;
  }

  /** {@code $tag$} or {@code $$} at i, else null. */
  private static String dollarTag(String s, int i) {
    int j = i + 1;
    while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) j++;
    if (j < s.length() && s.charAt(j) == '$' && (j == i + 1 || !Character.isDigit(s.charAt(i + 1)))) {
      return s.substring(i, j + 1);
    }
    return null;
  }

  // ---- scopes and clauses ------------------------------------------------------------------------

  private static List<Scope> annotate(List<Token> sig) {
    List<Scope> scopes = new ArrayList<>();
    scopes.add(new Scope(0, 0, -1));              // the statement around any SELECT (e.g. WITH)
    List<String> clauseOf = new ArrayList<>();
    clauseOf.add("with");
    int[] stack = new int[sig.size() + 2];          // scope per open parenthesis level
    int depth = 0;
    stack[0] = 0;
    for (Token t : sig) {
      if (t.isPunct(")")) {
        depth = Math.max(0, depth - 1);
      }
      if (t.isWord("select")) {
        Scope s = new Scope(scopes.size(), depth, t.index);
        scopes.add(s);
        clauseOf.add("select");
        stack[depth] = s.id;
      }
      t.depth = depth;
      t.scope = stack[depth];
      Scope own = scopes.get(t.scope);
      if (t.kind == Kind.WORD && own.depth() == depth && CLAUSES.contains(t.lower())) {
        clauseOf.set(own.id(), t.lower());
      }
      t.clause = clauseOf.get(t.scope);
      if (t.isPunct("(")) {
        depth++;
        stack[depth] = stack[depth - 1];
      }
    }
    return scopes;
  }

  // ---- queries over tokens -----------------------------------------------------------------------

  public Token sig(int i) {
    return i >= 0 && i < sig.size() ? sig.get(i) : null;
  }

  /** Index of the parenthesis closing the one at {@code open}, or -1. */
  public int closing(int open) {
    int d = 0;
    for (int i = open; i < sig.size(); i++) {
      Token t = sig.get(i);
      if (t.isPunct("(")) d++;
      if (t.isPunct(")") && --d == 0) return i;
    }
    return -1;
  }

  /** Significant tokens of one scope in one clause (at any depth inside that scope). */
  public List<Token> clauseTokens(int scope, String clause) {
    return sig.stream().filter(t -> t.scope == scope && clause.equals(t.clause)).toList();
  }

  /** The text of significant tokens {@code from..to} (inclusive) exactly as written. */
  public String text(int from, int to) {
    return sql.substring(sig.get(from).start, sig.get(to).end);
  }

  /**
   * The statement without a trailing top-level {@code LIMIT n} (and a trailing semicolon), when n is
   * {@code rowCount} or one more: the bound the gate imposes (cap, or cap + 1 to detect truncation),
   * removed to get every row back. A LIMIT the query chose itself (any other n) stays.
   */
  public static String withoutTrailingLimit(String sql, long rowCount) {
    SqlText t = of(sql);
    int last = t.sig.size() - 1;
    while (last >= 0 && t.sig.get(last).isPunct(";")) last--;
    if (last < 1) return sql;
    Token num = t.sig.get(last);
    Token limit = t.sig.get(last - 1);
    if (num.kind == Kind.NUMBER && limit.isWord("limit") && limit.depth == 0) {
      try {
        long n = Long.parseLong(num.text);
        if (n == rowCount || n == rowCount + 1) return sql.substring(0, limit.start).stripTrailing();
      } catch (NumberFormatException e) {
        return sql;
      }
    }
    return sql;
  }
}
