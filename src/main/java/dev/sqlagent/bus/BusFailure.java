package dev.sqlagent.bus;

/**
 * How a request on the event bus fails: one failure code per meaning, and what each means to a client, the
 * HTTP status and {@code error_type} that every edge (HTTP, /ws, the MCP tools) reports alike. A verticle
 * refuses with {@code msg.fail(BusFailure.X.code(), message)}, the message written for a client; a caller
 * turns whatever failed into a {@link BusError} with {@link BusError#of}.
 */
public enum BusFailure {
  /** The request is not of the address's shape; the message says what is wrong. */
  BAD_REQUEST(400, 400, "bad_request"),
  /** The caller may not reach what it names (another user's run or conversation). */
  FORBIDDEN(403, 403, "forbidden"),
  /** What the request names does not exist (an unknown table, a run no longer kept, no saved evaluation). */
  NOT_FOUND(404, 404, "not_found"),
  /** What the request names is not in a state that allows it (a run that already ended, an answer not rated up). */
  CONFLICT(409, 409, "conflict"),
  /**
   * What the request carries is refused on its merits, so asking again cannot help: the gate refused its SQL (it
   * is not saved or run), or the database refused a query-log row's values.
   */
  REJECTED(422, 422, "rejected"),
  /** The service is full: come back in a few seconds (an edge adds Retry-After). */
  BUSY(429, 503, "busy"),
  /**
   * The asker's daily budget is spent (questions, model tokens or model cost): refused until it resets, which the
   * refusal says (an edge adds Retry-After until then).
   */
  OVER_BUDGET(430, 429, "over_budget"),
  /** The work was stopped before it finished: its run was cancelled or passed its deadline. */
  CANCELLED(499, 499, "cancelled"),
  /** The service failed in a way that is not the caller's doing. */
  FAILED(500, 500, "error"),
  /** What the service relies on answered, but not usably (the model's server sent no usable completion). */
  UPSTREAM(502, 502, "upstream_error"),
  /** What the service needs (a database, the model, the verticle itself) is not there now. */
  UNAVAILABLE(503, 503, "unavailable"),
  /** No answer within the caller's wait. */
  TIMEOUT(504, 504, "timeout"),
  /**
   * This instance is stopping (a rolling restart, a scale-down): it takes no new question, another instance (or
   * this one once restarted) will; an edge adds Retry-After.
   */
  STOPPING(533, 503, "stopping");

  /** Seconds a client is told to wait before asking again after {@link #BUSY}. */
  public static final int RETRY_AFTER_SECONDS = 5;

  private final int code;
  private final int httpStatus;
  private final String errorType;

  BusFailure(int code, int httpStatus, String errorType) {
    this.code = code;
    this.httpStatus = httpStatus;
    this.errorType = errorType;
  }

  /** The failure code on the bus ({@code Message.fail}). */
  public int code() {
    return code;
  }

  public int httpStatus() {
    return httpStatus;
  }

  /** The {@code error_type} a client sees. */
  public String errorType() {
    return errorType;
  }

  /** Whether a client should be told to retry after {@link #RETRY_AFTER_SECONDS}. */
  public boolean retryLater() {
    return this == BUSY || this == STOPPING;
  }

  /** The failure a code stands for; a code no service sends is {@link #FAILED}. */
  public static BusFailure ofCode(int code) {
    for (BusFailure f : values()) {
      if (f.code == code) return f;
    }
    return FAILED;
  }
}
