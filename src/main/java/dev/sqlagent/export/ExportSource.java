package dev.sqlagent.export;

import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.RunTurnRequest;
import dev.sqlagent.users.User;
import io.vertx.core.Future;

/**
 * What an export runs: the SQL, whether the interactive row cap is to be lifted from it, and the file's name.
 *
 * @param liftCap an answer whose result the row cap cut and whose SQL as submitted was not kept: its SQL carries that
 *     cap, which the export takes off
 */
public record ExportSource(String sql, boolean liftCap, String fileName) {

  /** Where a run's turn keeps its SQL as submitted when the row cap changed it (the conversation's result summary). */
  static final String SQL_AS_WRITTEN = "sql_as_written";

  /** A query of the SQL console (or an MCP client): run as it is. */
  public static ExportSource ofQuery(String sql) {
    return new ExportSource(sql, false, "sql-agent-query");
  }

  /**
   * A run's answer, for its owner or an admin (the conversation store's rule: the future fails with its 403 or 404
   * bus failure otherwise); {@link NoAnsweredSql} for a run that did not end with an answered SQL.
   */
  public static Future<ExportSource> ofRun(StateClient state, String runId, User user) {
    return state.turn(new RunTurnRequest(runId, user)).compose(turn -> {
      if (!"answered".equals(turn.outcome()) || turn.sql() == null) {
        return Future.failedFuture(new NoAnsweredSql("run " + runId + " has no answered SQL to export (it "
            + String.valueOf(turn.outcome()).replace('_', ' ') + ")"));
      }
      String fileName = "sql-agent-" + runId.substring(0, Math.min(8, runId.length()));
      // The SQL as submitted, when the row cap changed it: its own LIMIT, FETCH and OFFSET stay, the export's cap bounds it.
      Object written = turn.summary() == null ? null : turn.summary().getValue(SQL_AS_WRITTEN);
      if (written instanceof String sql) return Future.succeededFuture(new ExportSource(sql, false, fileName));
      // Kept before the SQL as submitted was: the cap is taken off the bounded text.
      boolean cut = turn.summary() != null && turn.summary().getBoolean("truncated", false);
      return Future.succeededFuture(new ExportSource(turn.sql(), cut, fileName));
    });
  }

  /** The run ended without an answered SQL (gave up, refused, cancelled): nothing to export. */
  public static final class NoAnsweredSql extends RuntimeException {
    NoAnsweredSql(String message) {
      super(message, null, false, false);
    }
  }
}
