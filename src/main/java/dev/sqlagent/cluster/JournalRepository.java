package dev.sqlagent.cluster;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The state store's {@code run_events} table (db/state/cluster.sql): runs' events, as written, in order, through
 * the state store's shared owner pool.
 */
final class JournalRepository {

  private static final String APPEND = "INSERT INTO run_events (run_id, seq, event) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
  /** The run's first event (whose owner the run is), then its events after a seq; the first only once. */
  private static final String FIRST_AND_AFTER = "SELECT seq, event FROM run_events WHERE run_id = $1"
      + " AND (seq > $2 OR seq = (SELECT min(seq) FROM run_events WHERE run_id = $1)) ORDER BY seq";
  private static final String PRUNE = "DELETE FROM run_events WHERE written_at < now() - interval '1 day'";

  private final Pool pool;

  JournalRepository(Pool pool) {
    this.pool = pool;
  }

  /** Appends events (each a GraphEvent's JSON); one written twice is kept once. */
  Future<Void> append(List<JsonObject> events) {
    List<Tuple> rows = events.stream()
        .map(e -> Tuple.of(e.getString("run_id"), e.getLong("seq"), e.encode())).toList();
    return pool.preparedQuery(APPEND).executeBatch(rows).mapEmpty();
  }

  /** A run's first event and its events after a seq (in order), in one read; null when none is kept. */
  record Read(JsonObject first, JsonArray after) {}

  /** The run's first event (every event names the run's owner) and its events after {@code afterSeq}, in order. */
  Future<Read> firstAndAfter(String runId, long afterSeq) {
    return pool.preparedQuery(FIRST_AND_AFTER).execute(Tuple.of(runId, afterSeq)).map(rows -> {
      JsonObject first = null;
      JsonArray after = new JsonArray();
      for (Row r : rows) {
        JsonObject event = new JsonObject(r.getString(1));
        if (first == null) first = event;
        if (r.getLong(0) > afterSeq) after.add(event);
      }
      return first == null ? null : new Read(first, after);
    });
  }

  Future<Integer> prune() {
    return pool.query(PRUNE).execute().map(rows -> rows.rowCount());
  }
}
