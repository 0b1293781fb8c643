package dev.sqlagent.health;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.config.AppConfig;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /api/health}: readiness, 200 when every gate is UP, 503 otherwise (the body says which). */
public final class HealthRoutes {

  private final Vertx vertx;
  private final long deadlineMs;

  private HealthRoutes(Vertx vertx, AppConfig config) {
    this.vertx = vertx;
    // Each check has its own deadline; the whole report cannot take much longer than one.
    this.deadlineMs = config.deadlines().readinessMs();
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    router.get("/api/health").handler(new HealthRoutes(vertx, config)::readiness);
  }

  private void readiness(RoutingContext ctx) {
    vertx.eventBus().<JsonObject>request(Addresses.HEALTH_READINESS, new JsonObject(), new DeliveryOptions().setSendTimeout(deadlineMs))
        .onSuccess(m -> send(ctx, m.body().getBoolean("ok", false) ? 200 : 503, m.body()))
        .onFailure(e -> send(ctx, 503, new JsonObject().put("ok", false).put("status", "DOWN")
            .put("error", "the readiness checks did not report: " + e.getMessage())));
  }

  private static void send(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
        .putHeader("cache-control", "no-store").end(body.encode());
  }
}
