package dev.sqlagent.localmodel;

import io.vertx.core.json.JsonObject;

/** Errors in the OpenAI API's shape, so a client reads the message it would read from any other server. */
final class OpenAiErrors {
  private OpenAiErrors() {}

  static JsonObject body(String message, String type, String code) {
    JsonObject e = new JsonObject().put("message", message).put("type", type);
    if (code != null) e.put("code", code);
    return new JsonObject().put("error", e);
  }
}
