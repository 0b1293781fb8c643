package dev.sqlagent.querylog;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/** The query log's table, written as {@code sql_agent_log} through the state store's log-role pool. */
final class QueryLogRepository {

  private final Pool log;
  private final dev.sqlagent.db.StatementSpans spans;

  QueryLogRepository(Pool log, dev.sqlagent.db.StatementSpans spans) {
    this.log = log;
    this.spans = spans;
  }

  /** Writes the rows in one transaction; a run already logged is skipped, so a retry never writes a row twice. */
  Future<Void> insert(List<LogRow> rows) {
    List<Tuple> tuples = rows.stream().map(LogRow::tuple).toList();
    return spans.traced(LogRow.INSERT,
        () -> log.withTransaction(conn -> conn.preparedQuery(LogRow.INSERT).executeBatch(tuples))).mapEmpty();
  }
}
