package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import io.vertx.pgclient.PgException;
import java.util.List;

/**
 * The gate's failures in its own words: what happened, what would help, and where in the submitted SQL. PostgreSQL's
 * errors get the gate's hints (the columns of the tables the query names, the tables there are); a stopped run, a
 * lost export, an oversized result or plan, and a standby's conflicts say what they are.
 */
final class GateErrors {

  private final int statementTimeoutMs;
  private final long maxResultBytes;

  GateErrors(int statementTimeoutMs, long maxResultBytes) {
    this.statementTimeoutMs = statementTimeoutMs;
    this.maxResultBytes = maxResultBytes;
  }

  /** The database did not answer as expected (not the query's fault). */
  static GateError unreachable(String sql) {
    return GateError.of(ErrorType.UNKNOWN, "The query could not be run: the database did not answer as expected.",
        "Try again later.", null).withSql(sql);
  }

  /** The error after the rerun was cancelled too: what happened, in words, and what the standby's owner can change. */
  static GateError recoveryConflictGiveUp(GateError e) {
    return new GateError(ErrorType.RECOVERY_CONFLICT, "The standby cancelled the query twice because replaying the "
        + "primary's changes needed the rows it was reading (PostgreSQL: " + e.message() + ").",
        "Ask again in a moment; if it keeps happening, set hot_standby_feedback = on or a longer "
            + "max_standby_streaming_delay on the standby, or point sql-agent at the primary.",
        e.sqlState(), null, e.sql());
  }

  /**
   * A stopped run's statement ({@link ErrorType#CANCELLED}: nothing to repair); the agent ends the run on its own
   * stop, and any other caller reads "cancelled".
   */
  static GateError cancelled(String sql) {
    return new GateError(ErrorType.CANCELLED, "The query was cancelled: its question was stopped.", null, "57014",
        null, sql);
  }

  /** An export whose client went away or took nothing for too long, after {@code rows} rows. */
  static GateError exportStopped(int rows, String why, String sql) {
    return new GateError(ErrorType.CANCELLED, "The export stopped after " + rows + " rows: " + why + ".", null, null,
        null, sql);
  }

  /**
   * An export's read that failed after rows went out, in words that say what happened: after how many rows, and how
   * long its transaction had sat idle while the client took the rows before (a limit on idle transactions, of the
   * database or of a pooler in between, ends such a transaction), or that the connection was lost.
   */
  GateError cut(ReadOnlyExecutor.Cut cut, String sql) {
    String after = "after " + cut.rows + " rows";
    String idle = String.format(java.util.Locale.ROOT, "%.1f s", cut.idleMs / 1000.0);
    String cause = cut.getCause() instanceof PgException pg ? pg.getErrorMessage() : cut.getMessage();
    String slower = "Read the file faster, or export fewer rows.";
    if (cut.getCause() instanceof PgException pg && "25P03".equals(pg.getSqlState())) {
      return new GateError(ErrorType.TIMEOUT, "The database ended the export's transaction " + after + ": it had sat idle "
          + idle + " while the client took the rows before, longer than its idle_in_transaction_session_timeout allows ("
          + cause + ").", slower, "25P03", null, sql);
    }
    if (cut.idleMs >= IDLE_CUT_MS) {
      return new GateError(ErrorType.TIMEOUT, "The connection to the database closed " + after + ", while the export's "
          + "transaction sat idle " + idle + " waiting for the client to take the rows before (" + cause + ").",
          "A limit on idle transactions ends such a connection: the service lifts the role's "
              + "idle_in_transaction_session_timeout for exports, not a pooler's (PgBouncer's idle_transaction_timeout). "
              + slower, null, null, sql);
    }
    return new GateError(ErrorType.UNKNOWN, "The connection to the database was lost " + after + " (" + cause + ").",
        "Try again later.", null, null, sql);
  }

  /** An export's connection lost after its transaction sat idle this long: the idle wait is worth naming. */
  static final long IDLE_CUT_MS = 1_000;

  GateError tooLarge(ReadOnlyExecutor.TooLarge e) {
    if (e.budget == 0) {
      return GateError.of(ErrorType.RESULT_TOO_LARGE, "The query builds values too large to check: PostgreSQL could not "
          + "show its plan within " + Math.min(statementTimeoutMs, Gate.EXPLAIN_TIMEOUT_MS) + " ms.",
          "Select fewer or shorter columns; do not build long values from constants (repeat, lpad, ...).", null);
    }
    return GateError.of(ErrorType.RESULT_TOO_LARGE, "The result grew past " + e.budget + " bytes after " + e.rows
        + " row" + (e.rows == 1 ? "" : "s") + "; the gate returns at most " + maxResultBytes
        + " bytes of results.", "Select fewer or shorter columns, or fewer rows (aggregate, filter or LIMIT).", null);
  }

  /** A PostgreSQL error as the gate's structured error, with a position in the submitted text and hints. */
  GateError fromPostgres(PgException pg, int prefix, String sql, RowBound.Bounded bounded,
                          StaticCheck.Verdict verdict, VisibleSchema schema) {
    String state = pg.getSqlState();
    ErrorType type = ErrorType.fromSqlState(state);
    String message = pg.getErrorMessage();
    if ("42601".equals(state) && message != null && message.contains("multiple commands")) {
      type = ErrorType.REJECTED;
      message = "More than one statement: only a single SELECT may run (" + message + ").";
    }
    Integer position = null;
    if (pg.getPosition() != null && !pg.getPosition().isBlank()) {
      try {
        position = bounded.toSubmitted(Integer.parseInt(pg.getPosition().trim()) - prefix, sql.length());
      } catch (NumberFormatException ignored) {
        position = null;
      }
    }
    if (position == null && "42601".equals(state) && type == ErrorType.SYNTAX_ERROR && pg.getPosition() != null) {
      // PostgreSQL tripped over the LIMIT the gate appended: the submitted query ended too early.
      message = "syntax error at end of input: the query is incomplete";
      position = sql.stripTrailing().length();
    }
    String hint = pg.getHint();
    switch (type) {
      case UNKNOWN_COLUMN -> {
        List<VisibleSchema.Table> mentioned = schema.tablesMentioned(verdict.lexed().tokens());
        hint = join(join(hint, schema.columnsHint(mentioned)), schema.columnHomeHint(message, mentioned));
      }
      case UNKNOWN_TABLE -> hint = join(join(hint, schema.missingFromHint(message)), schema.tablesHint());
      case TIMEOUT -> {
        if ("57014".equals(state)) {
          message = "The query ran longer than " + statementTimeoutMs + " ms and was cancelled (" + message + ").";
        }
        hint = join(hint, PlanCheck.COST_HINT);
      }
      case DIVISION_BY_ZERO -> hint = join(hint, "Wrap divisors in NULLIF(divisor, 0).");
      case RECOVERY_CONFLICT -> hint = join(hint, "The standby cancelled the query to replay the primary's changes; "
          + "the same query usually runs the next time.");
      default -> { }
    }
    if (pg.getDetail() != null && !pg.getDetail().isBlank()) message = message + " " + pg.getDetail();
    return new GateError(type, message, hint, state, position, sql);
  }

  private static String join(String a, String b) {
    if (a == null || a.isBlank()) return b;
    if (b == null || b.isBlank()) return a;
    return a + " " + b;
  }

  static GateError gradingTooLarge(String what, int maxRows, long maxBytes) {
    return GateError.of(ErrorType.RESULT_TOO_LARGE, "The grading result " + what + "; grading holds at most " + maxRows
        + " rows and " + maxBytes + " bytes of one result.", "Grade on an aggregate or a narrower query.", null);
  }
}
