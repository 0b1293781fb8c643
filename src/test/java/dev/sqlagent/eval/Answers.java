package dev.sqlagent.eval;

import dev.sqlagent.results.QueryResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;

/** Synthetic answers in the agent's answer contract, for grading tests. */
final class Answers {
  private Answers() {}

  /** An answer carrying the given SQL and its real result (as the agent would return it). */
  static JsonObject answered(TestGate db, String sql, int attempts) throws Exception {
    QueryResult r = db.run(sql);
    return base(attempts).put("sql", sql).put("columns", columns(r)).put("rows", rows(r, Integer.MAX_VALUE))
        .put("row_count", r.rows().size()).put("truncated", false);
  }

  /** As the gate returns a result past the row cap: the first {@code cap} rows, truncated. */
  static JsonObject truncated(TestGate db, String sql, int cap) throws Exception {
    QueryResult r = db.run(sql);
    return base(1).put("sql", sql + " LIMIT " + cap).put("columns", columns(r)).put("rows", rows(r, cap))
        .put("row_count", cap).put("truncated", true);
  }

  static JsonObject refused() {
    return base(1).put("refused", true).put("sql", (String) null).put("answer", "I can only read data.");
  }

  static JsonObject gaveUp(JsonArray history) {
    return base(history.size()).put("gave_up", true).put("history", history);
  }

  static JsonObject base(int attempts) {
    return new JsonObject().put("question", "q").put("answer", "an answer").put("attempts", attempts)
        .put("refused", false).put("gave_up", false).put("history", new JsonArray())
        .put("tokens", new JsonObject().put("prompt", 100).put("completion", 20)).put("cost_usd", 0.001)
        .put("latency_ms", 250).put("run_id", "r1").put("mode", "agent").put("model", "fake-model");
  }

  static JsonObject failedAttempt(int attempt, String sql, String errorType) {
    return new JsonObject().put("attempt", attempt).put("sql", sql).put("error_type", errorType)
        .put("message", errorType).put("strategy", "x");
  }

  static JsonArray columns(QueryResult r) {
    JsonArray a = new JsonArray();
    r.columns().forEach(c -> a.add(new JsonObject().put("name", c.name()).put("type", c.type())));
    return a;
  }

  /** Cells as the gate sends them: numerics as exact strings, timestamps as ISO text. */
  static JsonArray rows(QueryResult r, int limit) {
    JsonArray out = new JsonArray();
    for (List<Object> row : r.rows().subList(0, Math.min(limit, r.rows().size()))) {
      JsonArray a = new JsonArray();
      for (Object v : row) {
        if (v instanceof java.math.BigDecimal d) a.add(d.toPlainString());
        else if (v instanceof LocalDateTime || v instanceof LocalDate) a.add(v.toString());
        else a.add(v);
      }
      out.add(a);
    }
    return out;
  }
}
