package dev.sqlagent.contract;

import io.vertx.core.json.JsonObject;

/**
 * The gate's report, sent to a request's {@code progress} address, that a statement passed the static check, the row
 * cap and the plan check and is about to run: {@code validate_sql} has finished and {@code execute_sql} starts.
 */
public record GateProgress(String boundedSql, String staticCheck, double cost) {

  public JsonObject toJson() {
    return new JsonObject().put("stage", "checked").put("sql", boundedSql).put("static_check", staticCheck)
        .put("cost", cost);
  }

  public static GateProgress fromJson(JsonObject json) {
    return new GateProgress(json.getString("sql"), json.getString("static_check"), json.getDouble("cost", 0.0));
  }
}
