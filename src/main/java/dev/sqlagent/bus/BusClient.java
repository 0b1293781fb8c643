package dev.sqlagent.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;

/**
 * Requests onto one service's addresses, failing only with a {@link BusError}: what the edges and the
 * typed clients call, so that a failure means the same wherever it surfaces.
 */
public final class BusClient {

  private final Vertx vertx;
  private final String what;
  private final long timeoutMs;
  private final boolean localOnly;

  /**
   * @param what the service, as a client would name it ("the agent"), for messages
   * @param timeoutMs how long to wait for a reply
   */
  public BusClient(Vertx vertx, String what, long timeoutMs) {
    this(vertx, what, timeoutMs, false);
  }

  /** @param localOnly the service of this node only (clustered, a run's steps stay on its worker) */
  public BusClient(Vertx vertx, String what, long timeoutMs, boolean localOnly) {
    this.vertx = vertx;
    this.what = what;
    this.timeoutMs = timeoutMs;
    this.localOnly = localOnly;
  }

  public <T> Future<T> request(String address, Object body) {
    return request(address, body, timeoutMs);
  }

  public <T> Future<T> request(String address, Object body, long waitMs) {
    return request(address, body, new DeliveryOptions().setSendTimeout(Math.max(1, waitMs)).setLocalOnly(localOnly));
  }

  /** With the caller's delivery options (its own wait, node-local delivery). */
  public <T> Future<T> request(String address, Object body, DeliveryOptions options) {
    return vertx.eventBus().<T>request(address, body, options)
        .transform(ar -> ar.succeeded() ? Future.succeededFuture(ar.result().body())
            : Future.failedFuture(BusError.of(ar.cause(), what)));
  }
}
