package dev.sqlagent.bus;

import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A failed bus request as a client may see it: its {@link BusFailure} and a plain message (never a Java
 * class name or a stack trace). What the typed clients fail with, and what every edge renders.
 */
public final class BusError extends RuntimeException {

  private static final Logger LOG = LoggerFactory.getLogger(BusError.class);

  private final BusFailure failure;
  private final boolean answered;
  private final JsonObject details;
  private final long retryAfterSeconds;

  public BusError(BusFailure failure, String message) {
    this(failure, message, true, null, -1);
  }

  /**
   * A refusal with more to say than its message (the limit a request went past) and, when {@code retryAfterSeconds}
   * is 0 or more, how long a client should wait before asking again.
   */
  public BusError(BusFailure failure, String message, JsonObject details, long retryAfterSeconds) {
    this(failure, message, true, details, retryAfterSeconds);
  }

  private BusError(BusFailure failure, String message, boolean answered) {
    this(failure, message, answered, null, -1);
  }

  private BusError(BusFailure failure, String message, boolean answered, JsonObject details, long retryAfterSeconds) {
    super(message, null, false, false);
    this.failure = failure;
    this.answered = answered;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Seconds a client should wait before asking again, or -1 when waiting will not help. */
  public long retryAfterSeconds() {
    if (retryAfterSeconds >= 0) return retryAfterSeconds;
    return failure.retryLater() ? BusFailure.RETRY_AFTER_SECONDS : -1;
  }

  /**
   * Whether the service itself failed the request (a refusal, its own failure); false when nothing was listening
   * or no answer came in time.
   */
  public boolean answered() {
    return answered;
  }

  public BusFailure failure() {
    return failure;
  }

  /**
   * What a failed request means to a client.
   *
   * @param what the service asked, as a client would name it ("the agent", "the query gate")
   */
  public static BusError of(Throwable err, String what) {
    if (err instanceof BusError e) return e;
    if (err instanceof ReplyException re) {
      switch (re.failureType()) {
        case TIMEOUT:
          return new BusError(BusFailure.TIMEOUT, what + " did not answer in time", false);
        case NO_HANDLERS:
          return new BusError(BusFailure.UNAVAILABLE, what + " is not running", false);
        default:
          BusFailure f = BusFailure.ofCode(re.failureCode());
          // The services write their refusals for a client; an unknown code may carry anything.
          if (f.code() == re.failureCode() && re.getMessage() != null && !re.getMessage().isBlank()) {
            return new BusError(f, re.getMessage());
          }
      }
    }
    LOG.warn("{} failed: {}", what, String.valueOf(err));
    return new BusError(BusFailure.FAILED, what + " failed unexpectedly; try again");
  }

  /** Fails {@code msg} with this failure: a service passing on what a request of its own met, meaning kept. */
  public void failOn(Message<?> msg) {
    msg.fail(failure.code(), getMessage());
  }

  /** {@code {ok: false, error_type, message}}: the body of an HTTP error, a tool error, a /ws error frame. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("ok", false).put("error_type", failure.errorType()).put("message", getMessage());
    return details == null ? json : json.mergeIn(details);
  }
}
