package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.catalogue.DenyList;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.parsing.SqlParser;
import java.util.List;
import java.util.Optional;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.Select;

/**
 * The gate's first step, plain Java and blocking (call it off the event loop): size and control-character
 * limits on the raw text, PostgreSQL's tokens through the {@link LexicalScreen}, then JSqlParser with a
 * short timeout and a walk of its whole tree. When JSqlParser cannot parse the text (an exception, a null
 * result, a timeout, or constructs its lexer reads differently from PostgreSQL's), the verdict is
 * "fallback": not proven here, so the query goes on to PostgreSQL's own parser (EXPLAIN inside the
 * read-only transaction) with the lexical screen as its static check.
 */
public final class StaticCheck {

  /** Limits on the input; the parse timeout bounds JSqlParser, which can run for minutes on nested input. */
  public record Limits(int maxChars, int maxDepth, long parseTimeoutMs) {
    public static final Limits DEFAULT = new Limits(20_000, 24, 500);
  }

  /**
   * The outcome: an error, or the text's tokens with whether JSqlParser proved it ({@code parsed}) and,
   * if not, why.
   */
  public record Verdict(GateError error, PgLexer.Result lexed, boolean parsed, String fallbackReason) {
    /** The fallback reason of a parse that ran out of time. */
    static final String TIMED_OUT = "JSqlParser: timed out";

    public boolean passed() {
      return error == null;
    }

    boolean parseTimedOut() {
      return TIMED_OUT.equals(fallbackReason);
    }

    public String staticCheck() {
      return parsed ? "parsed" : "fallback";
    }

    static Verdict refused(GateError e) {
      return new Verdict(e, null, false, null);
    }
  }

  private final VisibleSchema schema;
  private final Limits limits;
  private final FunctionRule functions;
  /** Verdicts of queries that passed, by exact text, for this schema only: see {@link #checkAndRemember}. */
  private final TextCache<Verdict> passed = new TextCache<>(1024, 8_000, 512_000);

  public StaticCheck(VisibleSchema schema, Limits limits) {
    this(schema, limits, List.of());
  }

  /** @param allow user functions a query may call by name ({@code SQLAGENT_ALLOW_FUNCTIONS}) */
  public StaticCheck(VisibleSchema schema, Limits limits, List<AppConfig.FunctionName> allow) {
    this.schema = schema;
    this.limits = limits;
    this.functions = new FunctionRule(schema.functions(), allow);
  }

  /**
   * The verdict this check already gave {@code sql} (the exact text) and remembered, or null. A verdict is a pure
   * function of the text, the visible tables and the limits, all fixed for one instance (a schema reload makes a
   * new one), so it can be handed out again without parsing: cheap enough for the event loop.
   */
  Verdict remembered(String sql) {
    return passed.get(sql);
  }

  /**
   * {@link #check}, remembering a passing verdict for {@link #remembered}: at most 1,024 texts of up to 8,000
   * characters, 512,000 in all (a verdict holds its text's tokens, about a hundred bytes each). Not remembered:
   * refusals (their unknown-table case reloads the schema and checks again), and a fallback because JSqlParser ran
   * out of time (a busy machine, not the text: the next check may parse it).
   */
  Verdict checkAndRemember(String sql) {
    Verdict verdict = check(sql);
    if (verdict.passed() && !verdict.parseTimedOut()) passed.put(sql, verdict);
    return verdict;
  }

  public VisibleSchema schema() {
    return schema;
  }

  /** Loads JSqlParser's classes so the first real query is not the one that pays for it (and times out). */
  public static void warmUp() {
    try {
      SqlParser.parseStatements("SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a ORDER BY 2 DESC LIMIT 5", 10_000);
    } catch (Exception ignored) {
      // Warm-up only.
    }
  }

  public Verdict check(String sql) {
    if (sql == null || sql.isBlank()) {
      return Verdict.refused(GateError.rejected("The query is empty.", "Send exactly one SELECT statement.", null));
    }
    if (sql.length() > limits.maxChars()) {
      return Verdict.refused(GateError.rejected("The query is " + sql.length() + " characters long; the gate accepts at most "
          + limits.maxChars() + ".", "Write a shorter query.", null));
    }
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\0' || (c < ' ' && !PgLexer.isSpace(c))) {
        return Verdict.refused(GateError.rejected("The query contains a control character (code " + (int) c
            + ") that SQL text never needs.", "Remove control characters from the query.", i + 1));
      }
    }
    PgLexer.Result lexed;
    try {
      lexed = PgLexer.lex(sql);
    } catch (PgLexer.LexException e) {
      return Verdict.refused(GateError.of(ErrorType.SYNTAX_ERROR, "Syntax error: " + e.getMessage() + ".",
          "Close every quote, quoted identifier and comment.", e.offset() + 1));
    }
    Optional<GateError> screened = LexicalScreen.screen(lexed, schema, limits.maxDepth());
    if (screened.isPresent()) return Verdict.refused(screened.get());
    Optional<GateError> called = functions.check(lexed.tokens(), schema);
    if (called.isPresent()) return Verdict.refused(called.get());
    if (lexed.jsqlparserUnsafe()) {
      return new Verdict(null, lexed, false, "dollar quotes, E'' strings, U& literals or nested comments");
    }
    Statements parsed;
    try {
      parsed = SqlParser.parseStatements(sql, limits.parseTimeoutMs());
    } catch (Exception | StackOverflowError e) {
      if (timedOut(e)) return new Verdict(null, lexed, false, Verdict.TIMED_OUT);
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
      return new Verdict(null, lexed, false, "JSqlParser: " + why);
    }
    if (parsed == null || parsed.size() != 1) {
      return new Verdict(null, lexed, false, "JSqlParser read " + (parsed == null ? "nothing" : parsed.size() + " statements"));
    }
    Statement statement = parsed.get(0);
    if (!(statement instanceof Select)) {
      return Verdict.refused(GateError.rejected("Only a single read-only query may run, and this "
          + statement.getClass().getSimpleName() + " statement is not one.", "Write one SELECT statement.", null));
    }
    Optional<GateError> tree = checkTree(AstFacts.of(statement), lexed);
    return tree.map(Verdict::refused).orElseGet(() -> new Verdict(null, lexed, true, null));
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.util.concurrent.TimeoutException) return true;
    }
    return false;
  }

  private Optional<GateError> checkTree(AstFacts facts, PgLexer.Result lexed) {
    if (!facts.modifying.isEmpty()) {
      return Optional.of(GateError.rejected("A data-modifying statement (" + facts.modifying.get(0)
          + ") inside the query: the gate only runs reads.", "Every part of the query, WITH items included, must be a SELECT.",
          positionOf(lexed, facts.modifying.get(0).toLowerCase(java.util.Locale.ROOT))));
    }
    if (facts.into) {
      return Optional.of(GateError.rejected("SELECT INTO creates a table; the gate only runs reads.",
          "Remove the INTO clause and select the rows.", positionOf(lexed, "into")));
    }
    if (facts.locking) {
      return Optional.of(GateError.rejected("Locking clauses (FOR UPDATE, FOR SHARE, ...) are not allowed.",
          "Remove the FOR ... clause.", positionOf(lexed, "for")));
    }
    for (String f : facts.functions) {
      Optional<String> why = DenyList.reason(f);
      if (why.isPresent()) {
        return Optional.of(GateError.rejected("The function " + f + " may not be called: " + why.get() + ".",
            "Use only functions that compute values from the tables' rows.", positionOf(lexed, f)));
      }
    }
    for (AstFacts.TableRef t : facts.tables) {
      Optional<GateError> e = checkTable(t, facts, lexed);
      if (e.isPresent()) return e;
    }
    return Optional.empty();
  }

  private Optional<GateError> checkTable(AstFacts.TableRef t, AstFacts facts, PgLexer.Result lexed) {
    if (t.schema() == null && facts.cteNames.contains(t.name())) return Optional.empty();
    if (schema.resolve(t.schema(), t.name()).isPresent()) return Optional.empty();
    String shown = t.schema() == null ? t.name() : t.schema() + "." + t.name();
    Integer pos = positionOf(lexed, t.name());
    String message;
    if (isSystemSchema(t.schema()) || (t.schema() == null && t.name().startsWith("pg_"))) {
      message = shown + " is a system catalogue, not a table of this database's data.";
    } else if (schema.isHidden(t.schema(), t.name())) {
      message = shown + " is not a table you can query.";
    } else {
      message = "There is no table " + shown + ".";
    }
    return Optional.of(LexicalScreen.unknownTable(message, schema, pos));
  }

  static boolean isSystemSchema(String s) {
    return s != null && (s.equals("pg_catalog") || s.equals("information_schema") || s.startsWith("pg_toast")
        || s.startsWith("pg_temp"));
  }

  /** 1-based position of the first identifier token with this normalised name, or null. */
  private static Integer positionOf(PgLexer.Result lexed, String name) {
    for (PgLexer.Token tok : lexed.tokens()) {
      if (tok.isIdentifier() && tok.name().equalsIgnoreCase(name)) return tok.start() + 1;
    }
    return null;
  }
}
