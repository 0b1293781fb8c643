package dev.sqlagent.eval;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.util.Optional;

/**
 * The service's reads of the saved evaluation runs, through the state store's shared owner pool. Runs are written
 * by the {@code eval} command ({@link RunStore}, its blocking path); both read the newest summary with
 * {@link RunStore#LATEST_SUMMARY_SQL}.
 */
final class EvalRunRepository {

  /** The newest run with a summary: its name and the summary's text. */
  record Latest(String run, String content) {}

  private final Pool pool;

  EvalRunRepository(Pool pool) {
    this.pool = pool;
  }

  Future<Optional<Latest>> latestSummary() {
    return pool.query(RunStore.LATEST_SUMMARY_SQL).execute().map(rows -> {
      if (rows.size() == 0) return Optional.empty();
      Row row = rows.iterator().next();
      return Optional.of(new Latest(row.getString("run"), row.getString("content")));
    });
  }
}
