package dev.sqlagent.contract;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/** One failed attempt, as the history shows it and the repair prompt carries it. */
public record Attempt(int attempt, String sql, String errorType, String message, String hint, Integer position,
    String strategy) {

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static Attempt fromJson(JsonObject j) {
    return RecordJson.fromJson(Attempt.class, j);
  }
}
