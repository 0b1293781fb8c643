package dev.sqlagent.generation;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/** The caller's side of {@code Addresses.GENERATE}, for the agent and anyone else who needs the model. */
public final class Generation {
  private Generation() {}

  /** Margin past the model call's own deadline, so the verticle's answer (a timeout included) always wins. */
  static final long BUS_MARGIN_MS = 5_000;

  /**
   * Asks the model; fails with a {@link ModelException}. The bus timeout is set past the call deadline
   * ({@code llmCallTimeoutMs} in the config), since the event bus's default of 30 s is shorter than the
   * default call deadline of 60 s.
   */
  public static Future<Completion> ask(Vertx vertx, ChatRequest request, long callTimeoutMs) {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(callTimeoutMs + BUS_MARGIN_MS);
    return vertx.eventBus().<JsonObject>request(Addresses.GENERATE, request.toJson(), options)
        .transform(ar -> ar.succeeded()
            ? Future.succeededFuture(Completion.fromJson(ar.result().body()))
            : Future.failedFuture(ModelException.fromReplyFailure(ar.cause())));
  }
}
