package dev.sqlagent.live;

import io.vertx.core.Vertx;
import java.time.Instant;

/**
 * A live socket lasts no longer than the sign-on token that opened it: at the token's expiry (plus the clock skew
 * allowed) it is closed with {@link #CLOSE_CODE}, and the client reconnects with a fresh token or not at all.
 * Users-file and API tokens do not expire, so their sockets stay open.
 */
final class TokenExpiry {

  /** Close code for a socket whose token expired (401, in WebSocket's private range, like 4403 for forbidden). */
  static final short CLOSE_CODE = 4401;
  static final String REASON = "token expired: sign in again and reconnect";

  private TokenExpiry() {}

  /** Runs {@code close} when {@code until} comes (at once if it has passed); the timer's id, or -1 without a token expiry. */
  static long closeAt(Vertx vertx, Instant until, Runnable close) {
    if (until == null) return -1;
    long delay = Math.max(1, until.toEpochMilli() - System.currentTimeMillis());
    return vertx.setTimer(delay, t -> close.run());
  }
}
