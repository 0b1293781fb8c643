package dev.sqlagent.access;

import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;

/**
 * A live connection (a WebSocket, a SockJS session, an MCP event stream) lasts no longer than the sign-on token that
 * opened it: at the token's expiry (plus the clock skew allowed) it is closed, a socket with {@link #CLOSE_CODE}, and
 * the client reconnects with a fresh token or not at all. Users-file and API tokens do not expire, so their
 * connections stay open.
 */
public final class TokenExpiry {

  /** Close code for a socket whose token expired (401, in WebSocket's private range, like 4403 for forbidden). */
  public static final short CLOSE_CODE = 4401;
  public static final String REASON = "token expired: sign in again and reconnect";

  private TokenExpiry() {}

  /**
   * Runs {@code close} when the token that opened {@code opened} stops being accepted (at once if it has passed); the
   * timer's id, or -1 when that token does not expire.
   */
  public static long closeAt(Vertx vertx, RoutingContext opened, Runnable close) {
    Instant until = AccessGuard.tokenUntil(opened);
    if (until == null) return -1;
    long delay = Math.max(1, until.toEpochMilli() - System.currentTimeMillis());
    return vertx.setTimer(delay, t -> close.run());
  }
}
