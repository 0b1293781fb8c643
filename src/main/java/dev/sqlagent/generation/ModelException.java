package dev.sqlagent.generation;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

/**
 * A model call that failed for good: its type (the wire name the agent and the events carry), an HTTP-like
 * failure code for {@code msg.fail}, and a message that never contains an API key.
 */
public final class ModelException extends RuntimeException {

  public enum Type {
    /** The server cannot be reached, keeps failing (5xx), or refuses the key (401/403). */
    MODEL_UNAVAILABLE("model_unavailable", 503),
    /** No complete answer within the call's deadline. */
    MODEL_TIMEOUT("model_timeout", 504),
    /** Out of quota (daily quota on every key, or rate-limited past the retries and the deadline). */
    MODEL_QUOTA("model_quota", 429),
    /** The server answered, but not with a usable completion (400 bad model name, garbage, a cut-off stream). */
    MODEL_ERROR("model_error", 502),
    /** The generation request itself was malformed (a bug in the caller). */
    BAD_REQUEST("bad_request", 400),
    /** The run was stopped (cancelled, or past its deadline) while the model was answering: the call was aborted. */
    CANCELLED("cancelled", 499);

    private final String wireName;
    private final int failureCode;

    Type(String wireName, int failureCode) {
      this.wireName = wireName;
      this.failureCode = failureCode;
    }

    public String wireName() {
      return wireName;
    }

    public int failureCode() {
      return failureCode;
    }

    public static Type fromWireName(String name) {
      for (Type t : values()) if (t.wireName.equals(name)) return t;
      return MODEL_ERROR;
    }
  }

  private final Type type;

  public ModelException(Type type, String message) {
    super(message, null, false, false);
    this.type = type;
  }

  public Type type() {
    return type;
  }

  public String errorType() {
    return type.wireName();
  }

  /** The body of the failure reply: {"error_type", "message"}. */
  public JsonObject toJson() {
    return new JsonObject().put("error_type", type.wireName()).put("message", getMessage());
  }

  /**
   * Reads the failure of a request to {@code Addresses.GENERATE} back into a ModelException: the
   * verticle's own failure replies, and the bus's (no consumer, reply timeout) as model_unavailable.
   */
  public static ModelException fromReplyFailure(Throwable err) {
    if (err instanceof ModelException me) return me;
    if (err instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.RECIPIENT_FAILURE && re.getMessage() != null) {
        try {
          JsonObject body = new JsonObject(re.getMessage());
          return new ModelException(Type.fromWireName(body.getString("error_type")), body.getString("message", ""));
        } catch (DecodeException notJson) {
          return new ModelException(Type.MODEL_ERROR, re.getMessage());
        }
      }
      if (re.failureType() == ReplyFailure.TIMEOUT) {
        return new ModelException(Type.MODEL_TIMEOUT, "the generation service did not answer in time");
      }
      return new ModelException(Type.MODEL_UNAVAILABLE, "the generation service is not running");
    }
    return new ModelException(Type.MODEL_ERROR, String.valueOf(err.getMessage()));
  }
}
