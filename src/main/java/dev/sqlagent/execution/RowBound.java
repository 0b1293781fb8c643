package dev.sqlagent.execution;

import dev.sqlagent.execution.PgLexer.Token;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The row cap, applied to PostgreSQL's tokens so it holds whether or not JSqlParser parsed the query. The
 * outermost (bracket depth 0) LIMIT / FETCH is rewritten in place where it is a plain number: missing or
 * above the cap becomes the cap, a smaller one stays. Anything it cannot read with certainty (LIMIT with
 * an expression, a subquery or a parameter, FETCH ... WITH TIES, several limit clauses) keeps the query
 * whole and bounds it from outside: {@code SELECT * FROM (<query>) AS q LIMIT cap}.
 *
 * <p>{@link Bounded#sql()} is what callers see and can re-run: it returns exactly the rows the gate
 * returns. The gate executes {@link Bounded#executed()}, the same text with cap + 1 in place of the cap,
 * so that one probe row tells whether the cap cut anything off ({@code truncated}); the cursor never
 * fetches more than cap + 1 rows whatever the text says.
 */
public final class RowBound {
  private RowBound() {}

  static final String WRAP_PREFIX = "SELECT * FROM (\n";

  /**
   * The bounded query. {@code capped}: the gate's cap is in force (so more rows may have existed);
   * {@code editAt}/{@code delta}/{@code prefix} map positions in {@code executed} back to the submitted text.
   */
  public record Bounded(String sql, String executed, boolean capped, boolean wrapped, int editAt, int delta) {
    /** The 1-based position in the submitted text of a 1-based position in {@link #executed()}, or null. */
    public Integer toSubmitted(int executedPosition, int submittedLength) {
      int p = executedPosition;
      if (wrapped) p -= WRAP_PREFIX.length();
      else if (editAt >= 0 && p - 1 > editAt) p -= delta;
      return p >= 1 && p <= submittedLength ? p : null;
    }
  }

  public static Bounded apply(String sql, List<Token> tokens, int cap) {
    List<Token> body = new ArrayList<>(tokens);
    while (!body.isEmpty() && body.get(body.size() - 1).isPunct(";")) body.remove(body.size() - 1);
    String text = body.isEmpty() ? sql.strip() : sql.substring(0, body.get(body.size() - 1).end());
    List<Integer> limits = new ArrayList<>();
    List<Integer> fetches = new ArrayList<>();
    for (int i = 0; i < body.size(); i++) {
      Token t = body.get(i);
      if (t.depth() != 0) continue;
      if (t.isWord("limit")) limits.add(i);
      if (t.isWord("fetch")) fetches.add(i);
    }
    if (limits.size() + fetches.size() > 1) return wrap(text, cap);
    if (limits.isEmpty() && fetches.isEmpty()) {
      String sep = text.indexOf('\n') >= 0 ? "\n" : " ";
      return new Bounded(text + sep + "LIMIT " + cap, text + sep + "LIMIT " + (cap + 1), true, false, -1, 0);
    }
    if (!limits.isEmpty()) {
      int i = limits.get(0);
      Token value = i + 1 < body.size() ? body.get(i + 1) : null;
      if (value == null || !endsClause(body, i + 2)) return wrap(text, cap);
      if (value.isWord("all") || value.isWord("null")) return replace(text, value, cap, true);
      return literal(text, value, cap);
    }
    // FETCH { FIRST | NEXT } [ n ] { ROW | ROWS } ONLY
    int i = fetches.get(0);
    if (i + 1 >= body.size() || !(body.get(i + 1).isWord("first") || body.get(i + 1).isWord("next"))) return wrap(text, cap);
    int k = i + 2;
    Token count = null;
    if (k < body.size() && body.get(k).kind() == PgLexer.Kind.NUMBER) {
      count = body.get(k);
      k++;
    }
    if (k >= body.size() || !(body.get(k).isWord("row") || body.get(k).isWord("rows"))) return wrap(text, cap);
    if (k + 1 >= body.size() || !body.get(k + 1).isWord("only") || !endsClause(body, k + 2)) return wrap(text, cap);
    if (count == null) return new Bounded(text, text, false, false, -1, 0);
    return literal(text, count, cap);
  }

  /**
   * The query as submitted, trailing semicolons dropped, with no bound at all: the gate's grading mode
   * ({@link Gate#grade}), which returns every row up to its own memory guard.
   */
  public static Bounded none(String sql, List<Token> tokens) {
    int end = tokens.size();
    while (end > 0 && tokens.get(end - 1).isPunct(";")) end--;
    String text = end == 0 ? sql.strip() : sql.substring(0, tokens.get(end - 1).end());
    return new Bounded(text, text, false, false, -1, 0);
  }

  static final String WRAP_SUFFIX = "\n) AS q LIMIT ";

  /**
   * The statement an answer ran, with the interactive row cap taken off, for an export of a result that cap cut
   * ({@code truncated}): the gate's wrapping around it is removed, or its one outermost {@code LIMIT n} becomes
   * {@code LIMIT ALL} ({@code FETCH FIRST n ROWS ONLY} the largest count), so that {@link #apply} with the export's
   * cap bounds it again. A LIMIT the cap lowered (the query asked for more) is lifted altogether: the export's cap
   * bounds it then. Anything else is returned as it is.
   */
  public static String lift(String sql, List<Token> tokens) {
    List<Token> body = new ArrayList<>(tokens);
    while (!body.isEmpty() && body.get(body.size() - 1).isPunct(";")) body.remove(body.size() - 1);
    String text = body.isEmpty() ? sql.strip() : sql.substring(0, body.get(body.size() - 1).end());
    int suffix = text.lastIndexOf(WRAP_SUFFIX);
    if (text.startsWith(WRAP_PREFIX) && suffix > WRAP_PREFIX.length()
        && text.substring(suffix + WRAP_SUFFIX.length()).chars().allMatch(Character::isDigit)
        && suffix + WRAP_SUFFIX.length() < text.length()) {
      return text.substring(WRAP_PREFIX.length(), suffix);
    }
    Token count = null;
    boolean limit = false;
    int clauses = 0;
    for (int i = 0; i < body.size(); i++) {
      Token t = body.get(i);
      if (t.depth() != 0 || !(t.isWord("limit") || t.isWord("fetch"))) continue;
      clauses++;
      limit = t.isWord("limit");
      int k = limit ? i + 1 : i + 2;  // LIMIT n, FETCH FIRST n
      if (k < body.size() && body.get(k).kind() == PgLexer.Kind.NUMBER) count = body.get(k);
    }
    if (clauses != 1 || count == null) return text;
    String replacement = limit ? "ALL" : String.valueOf(Long.MAX_VALUE);
    return text.substring(0, count.start()) + replacement + text.substring(count.end());
  }

  /** Whether the limit clause ends at token {@code i}: the end of the query or an OFFSET clause. */
  private static boolean endsClause(List<Token> body, int i) {
    return i >= body.size() || body.get(i).isWord("offset");
  }

  private static Bounded literal(String text, Token value, int cap) {
    if (value.kind() != PgLexer.Kind.NUMBER || !value.text().chars().allMatch(Character::isDigit)) return wrap(text, cap);
    if (new BigInteger(value.text()).compareTo(BigInteger.valueOf(cap)) <= 0) {
      return new Bounded(text, text, false, false, -1, 0);
    }
    return replace(text, value, cap, true);
  }

  private static Bounded replace(String text, Token value, int cap, boolean capped) {
    String shown = text.substring(0, value.start()) + cap + text.substring(value.end());
    String run = text.substring(0, value.start()) + (cap + 1) + text.substring(value.end());
    return new Bounded(shown, run, capped, false, value.start(), String.valueOf(cap + 1).length() - value.text().length());
  }

  private static Bounded wrap(String text, int cap) {
    String head = WRAP_PREFIX + text + WRAP_SUFFIX;
    return new Bounded(head + cap, head + (cap + 1), true, true, -1, 0);
  }
}
