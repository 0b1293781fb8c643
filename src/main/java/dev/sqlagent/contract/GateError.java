package dev.sqlagent.contract;

import io.vertx.core.json.JsonObject;

/**
 * A refusal or failure as the caller sees it: what kind, what happened, what would help, and where in the
 * submitted SQL (1-based character position, or null). Never carries a stack trace.
 */
public record GateError(ErrorType type, String message, String hint, String sqlState, Integer position, String sql) {

  public static GateError of(ErrorType type, String message, String hint, Integer position) {
    return new GateError(type, message, hint, null, position, null);
  }

  public static GateError rejected(String message, String hint, Integer position) {
    return of(ErrorType.REJECTED, message, hint, position);
  }

  public GateError withSql(String submitted) {
    return new GateError(type, message, hint, sqlState, position, submitted);
  }

  public GateError withHint(String newHint) {
    return new GateError(type, message, newHint, sqlState, position, sql);
  }

  /** The structured error of the gate's contract: {ok:false, error_type, message, hint, sqlstate, position, repairable, sql}. */
  public JsonObject toJson() {
    return new JsonObject()
        .put("ok", false)
        .put("error_type", type.wireName())
        .put("message", message)
        .put("hint", hint)
        .put("sqlstate", sqlState)
        .put("position", position)
        .put("repairable", type.repairable())
        .put("sql", sql);
  }
}
