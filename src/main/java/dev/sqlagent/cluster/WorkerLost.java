package dev.sqlagent.cluster;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The honest end of a question whose worker left the cluster mid-run: a give-up with {@code worker_lost}, in
 * the shape of every other answer (so the edges, the query log and the metrics read it as one).
 */
final class WorkerLost {

  static final String ERROR_TYPE = "worker_lost";

  private WorkerLost() {}

  static JsonObject answer(JsonObject request, String worker, long latencyMs, String model) {
    String message = "the worker node " + worker + " running this question left the cluster before it answered";
    JsonObject lost = new JsonObject().put("attempt", 0).put("sql", (String) null).put("error_type", ERROR_TYPE)
        .put("message", message).put("hint", "ask again: another worker takes it").put("position", (Integer) null)
        .put("strategy", (String) null);
    return new JsonObject()
        .put("question", request.getString("question"))
        .put("answer", "I could not answer this question: " + message + ". Ask again; another worker will take it.")
        .put("sql", (String) null).put("attempts", 0).put("tables_used", new JsonArray())
        .put("refused", false).put("gave_up", true).put("error_type", ERROR_TYPE)
        .put("columns", new JsonArray()).put("rows", new JsonArray()).put("row_count", 0).put("truncated", false)
        .put("history", new JsonArray().add(lost))
        .put("tokens", new JsonObject().put("prompt", 0).put("completion", 0)).put("cost_usd", 0.0)
        .put("latency_ms", latencyMs).put("run_id", request.getString("run_id"))
        .put("mode", request.getString("mode", "agent")).put("model", model)
        .put("source", request.getString("source", "eventbus"))
        .put("conversation_id", request.getValue("conversation_id") instanceof String c ? c : null)
        .put("answer_source", "model");
  }
}
