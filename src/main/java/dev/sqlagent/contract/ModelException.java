package dev.sqlagent.contract;

import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;

/**
 * A model call that failed for good: its type (the wire name the agent and the events carry) and a message
 * that never contains an API key. On the bus it is an ordinary {@link BusFailure}: the type's failure code and
 * the message ({@link #failure()}), read back by {@link #of(Throwable)}.
 */
public final class ModelException extends RuntimeException {

  public enum Type {
    /** The server cannot be reached, keeps failing (5xx), or refuses the key (401/403). */
    MODEL_UNAVAILABLE("model_unavailable", BusFailure.UNAVAILABLE),
    /** No complete answer within the call's deadline. */
    MODEL_TIMEOUT("model_timeout", BusFailure.TIMEOUT),
    /** Out of quota (daily quota on every key, or rate-limited past the retries and the deadline). */
    MODEL_QUOTA("model_quota", BusFailure.BUSY),
    /** The server answered, but not with a usable completion (400 bad model name, garbage, a cut-off stream). */
    MODEL_ERROR("model_error", BusFailure.UPSTREAM),
    /** The generation request itself was malformed (a bug in the caller). */
    BAD_REQUEST("bad_request", BusFailure.BAD_REQUEST),
    /** The run was stopped (cancelled, or past its deadline) while the model was answering: the call was aborted. */
    CANCELLED("cancelled", BusFailure.CANCELLED);

    private final String wireName;
    private final BusFailure failure;

    Type(String wireName, BusFailure failure) {
      this.wireName = wireName;
      this.failure = failure;
    }

    public String wireName() {
      return wireName;
    }

    /** How the generation service fails a request with this type. */
    public BusFailure failure() {
      return failure;
    }

    /** The type a bus failure stands for; a failure the model never causes is {@link #MODEL_ERROR}. */
    public static Type of(BusFailure failure) {
      for (Type t : values()) if (t.failure == failure) return t;
      return MODEL_ERROR;
    }
  }

  /** Who a failed request names in its message. */
  public static final String SERVICE = "the generation service";

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

  /** This failure as every service fails a request: its code and the message. */
  public BusError failure() {
    return new BusError(type.failure(), getMessage());
  }

  /**
   * A failed request to {@code Addresses.GENERATE} as a ModelException: the service's own failures by their
   * code, the bus's (no consumer: unavailable, no reply in time: timeout) as {@link BusError} reads them.
   */
  public static ModelException of(Throwable err) {
    if (err instanceof ModelException me) return me;
    BusError e = BusError.of(err, SERVICE);
    return new ModelException(Type.of(e.failure()), e.getMessage());
  }
}
