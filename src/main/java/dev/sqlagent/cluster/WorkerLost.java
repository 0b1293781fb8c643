package dev.sqlagent.cluster;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.Attempt;
import io.vertx.core.json.JsonArray;
import java.util.List;

/**
 * The honest end of a question whose worker left the cluster mid-run: a give-up with {@code worker_lost}, in
 * the shape of every other answer (so the edges, the query log and the metrics read it as one).
 */
final class WorkerLost {

  static final String ERROR_TYPE = "worker_lost";

  private WorkerLost() {}

  static Answer answer(AskRequest request, String worker, long latencyMs, String model) {
    String message = "the worker node " + worker + " running this question left the cluster before it answered";
    Attempt lost = new Attempt(0, null, ERROR_TYPE, message, "ask again: another worker takes it", null, null);
    return new Answer(request.question(),
        "I could not answer this question: " + message + ". Ask again; another worker will take it.",
        null, 0, List.of(), false, true, false, new JsonArray(), new JsonArray(), 0, false, List.of(lost), null, 0.0,
        latencyMs, request.runId(), request.mode(), model, request.source(),
        request.user() == null ? null : request.user().name(), null, null, null,
        request.conversationId() instanceof String c ? c : null, "model", null, null, null, null, ERROR_TYPE, null);
  }
}
