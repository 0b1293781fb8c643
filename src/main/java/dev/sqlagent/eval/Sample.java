package dev.sqlagent.eval;

import io.vertx.core.json.JsonObject;

/**
 * What one ask of one question produced, saved as is so a run can be re-graded without the model: the
 * agent's answer JSON, or how the request failed on the event bus (then {@code answer} is null).
 *
 * @param failure null, or {@code {"kind": "timeout"|"no_agent"|"agent_error", "code": n, "message": s,
 *     "error_type": s|null}}
 */
public record Sample(String questionId, String mode, int sample, boolean injectFault, JsonObject answer,
    JsonObject failure, long wallMs) {

  public JsonObject toJson() {
    return new JsonObject().put("question_id", questionId).put("mode", mode).put("sample", sample)
        .put("inject_fault", injectFault).put("answer", answer).put("failure", failure).put("wall_ms", wallMs);
  }

  public static Sample fromJson(JsonObject o) {
    return new Sample(o.getString("question_id"), o.getString("mode"), o.getInteger("sample", 1),
        o.getBoolean("inject_fault", false), o.getJsonObject("answer"), o.getJsonObject("failure"),
        o.getLong("wall_ms", 0L));
  }
}
