package dev.sqlagent.contract;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/**
 * The caller's side of the model ({@code Addresses.GENERATE}); fails with a {@link ModelException}. The
 * default wait is past the model call's own deadline, so the service's answer (a timeout included) wins.
 */
public final class GenerationClient {

  /** Margin past the model call's own deadline. */
  public static final long BUS_MARGIN_MS = 5_000;

  private final Vertx vertx;
  private final long timeoutMs;
  private final boolean localOnly;

  /**
   * @param callTimeoutMs the model call's deadline ({@code llmCallTimeoutMs}); the bus waits {@link #BUS_MARGIN_MS} more
   * @param localOnly the generation service of this node only
   */
  public GenerationClient(Vertx vertx, long callTimeoutMs, boolean localOnly) {
    this.vertx = vertx;
    this.timeoutMs = callTimeoutMs + BUS_MARGIN_MS;
    this.localOnly = localOnly;
  }

  public Future<Completion> complete(ChatRequest request) {
    return complete(request, timeoutMs);
  }

  /** Waiting at most {@code waitMs} (what is left of a question's deadline). */
  public Future<Completion> complete(ChatRequest request, long waitMs) {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(Math.max(1, waitMs)).setLocalOnly(localOnly);
    return vertx.eventBus().<JsonObject>request(Addresses.GENERATE, request.toJson(), options)
        .transform(ar -> ar.succeeded()
            ? Future.succeededFuture(Completion.fromJson(ar.result().body()))
            : Future.failedFuture(ModelException.of(ar.cause())));
  }
}
