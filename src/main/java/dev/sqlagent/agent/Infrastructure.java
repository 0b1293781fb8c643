package dev.sqlagent.agent;

import io.vertx.core.json.JsonObject;

/**
 * A failure outside the agent's control (the model down, out of quota, too slow; retrieval failing): ends the run in
 * a give-up. {@code eventData}, when present, is the failed event of the node it happened in.
 */
final class Infrastructure extends RuntimeException {
  final String errorType;
  final JsonObject eventData;

  Infrastructure(String errorType, String message) {
    this(errorType, message, null);
  }

  Infrastructure(String errorType, String message, JsonObject eventData) {
    super(message, null, false, false);
    this.errorType = errorType;
    this.eventData = eventData;
  }

  /** The model failed: the node that asked it fails with the error type and the message. */
  static Infrastructure model(String errorType, String message) {
    return new Infrastructure(errorType, message, new JsonObject().put("error_type", errorType).put("message", message));
  }
}
