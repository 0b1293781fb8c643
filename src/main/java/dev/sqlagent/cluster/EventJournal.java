package dev.sqlagent.cluster;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/** The state store's {@code run_events} table (db/cluster.sql): runs' events, as written, in order. */
final class EventJournal {

  private static final String APPEND = "INSERT INTO run_events (run_id, seq, event) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
  private static final String AFTER = "SELECT event FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq";
  private static final String FIRST = "SELECT event FROM run_events WHERE run_id = $1 ORDER BY seq LIMIT 1";
  private static final String PRUNE = "DELETE FROM run_events WHERE written_at < now() - interval '1 day'";

  private final Pool pool;

  EventJournal(Pool pool) {
    this.pool = pool;
  }

  /** Appends events (each a GraphEvent's JSON); one written twice is kept once. */
  Future<Void> append(List<JsonObject> events) {
    List<Tuple> rows = events.stream()
        .map(e -> Tuple.of(e.getString("run_id"), e.getLong("seq"), e.encode())).toList();
    return pool.preparedQuery(APPEND).executeBatch(rows).mapEmpty();
  }

  /** The run's events after {@code afterSeq}, in order. */
  Future<JsonArray> after(String runId, long afterSeq) {
    return pool.preparedQuery(AFTER).execute(Tuple.of(runId, afterSeq)).map(rows -> {
      JsonArray out = new JsonArray();
      for (Row r : rows) out.add(new JsonObject(r.getString(0)));
      return out;
    });
  }

  /** The run's first kept event (every event names the run's owner), or null when none is kept. */
  Future<JsonObject> first(String runId) {
    return pool.preparedQuery(FIRST).execute(Tuple.of(runId))
        .map(rows -> rows.size() == 0 ? null : new JsonObject(rows.iterator().next().getString(0)));
  }

  Future<Integer> prune() {
    return pool.query(PRUNE).execute().map(rows -> rows.rowCount());
  }
}
