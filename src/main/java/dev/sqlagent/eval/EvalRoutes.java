package dev.sqlagent.eval;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/eval/latest}: the newest saved evaluation summary, from the state store through
 * {@link Addresses#EVAL_LATEST} ({@link EvalRunsVerticle}); 404 when no run has been saved.
 */
public final class EvalRoutes {

  private EvalRoutes() {}

  static final long TIMEOUT_MS = 10_000;

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    router.get("/api/eval/latest").handler(ctx -> vertx.eventBus()
        .<JsonObject>request(Addresses.EVAL_LATEST, new JsonObject(), new DeliveryOptions().setSendTimeout(TIMEOUT_MS))
        .onSuccess(reply -> ctx.json(reply.body()))
        .onFailure(err -> error(ctx, err)));
  }

  private static void error(RoutingContext ctx, Throwable err) {
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
      if (re.failureCode() == 404) {
        JsonErrors.send(ctx, 404, "not_found", re.getMessage());
        return;
      }
      JsonErrors.send(ctx, re.failureCode() >= 400 && re.failureCode() < 600 ? re.failureCode() : 500,
          "eval_unreadable", "the latest evaluation summary could not be read: " + re.getMessage());
      return;
    }
    JsonErrors.send(ctx, 503, "eval_unavailable", "the saved evaluation runs are not available: " + err.getMessage());
  }
}
