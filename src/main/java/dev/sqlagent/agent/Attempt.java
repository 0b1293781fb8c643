package dev.sqlagent.agent;

import io.vertx.core.json.JsonObject;

/** One failed attempt, as the history shows it and the repair prompt carries it. */
public record Attempt(int attempt, String sql, String errorType, String message, String hint, Integer position,
    String strategy) {

  public JsonObject toJson() {
    return new JsonObject().put("attempt", attempt).put("sql", sql).put("error_type", errorType)
        .put("message", message).put("hint", hint).put("position", position).put("strategy", strategy);
  }

  public static Attempt fromJson(JsonObject j) {
    return new Attempt(j.getInteger("attempt"), j.getString("sql"), j.getString("error_type"), j.getString("message"),
        j.getString("hint"), j.getInteger("position"), j.getString("strategy"));
  }
}
