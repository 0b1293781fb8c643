package dev.sqlagent.eval;

import dev.sqlagent.execution.PgLexer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A small lexical view of one SQL statement, enough for the harness to mutate and trim queries without
 * reformatting them: tokens (comments and string literals kept whole, split by the gate's own
 * {@link PgLexer}, so the harness reads SQL exactly as PostgreSQL does), parenthesis depth, and for every
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

  /**
   * The gate's PostgreSQL-faithful lexer's tokens, with the whitespace and comments between them kept as
   * tokens of their own so the text can be rebuilt as written. Text PostgreSQL would not tokenise (an
   * unterminated string) has no tokens here: there is nothing to mutate or trim, and PostgreSQL reports it.
   */
  private static List<Token> lex(String s) {
    List<PgLexer.Token> pg;
    try {
      pg = PgLexer.lex(s).tokens();
    } catch (PgLexer.LexException e) {
      return List.of();
    }
    List<Token> out = new ArrayList<>();
    int at = 0;
    for (PgLexer.Token t : pg) {
      if (t.start() > at) out.add(gap(s, at, t.start()));
      out.add(new Token(kind(t.kind()), s.substring(t.start(), t.end()), t.start(), t.end()));
      at = t.end();
    }
    if (at < s.length()) out.add(gap(s, at, s.length()));
    return out;
  }

  private static Kind kind(PgLexer.Kind k) {
    return switch (k) {
      case WORD -> Kind.WORD;
      case QUOTED_IDENT -> Kind.QUOTED;
      case STRING -> Kind.STRING;
      case NUMBER -> Kind.NUMBER;
      default -> Kind.PUNCT;  // punctuation, operators, parameters
    };
  }

  /** What lies between two tokens: only whitespace, or comments (with any whitespace around them). */
  private static Token gap(String s, int from, int to) {
    boolean blank = s.substring(from, to).isBlank();
    return new Token(blank ? Kind.SPACE : Kind.COMMENT, s.substring(from, to), from, to);
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
