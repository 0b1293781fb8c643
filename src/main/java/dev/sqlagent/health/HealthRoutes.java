package dev.sqlagent.health;

import dev.sqlagent.contract.Readiness;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.lifecycle.Lifecycle;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/health}: readiness, 200 when every gate is UP, 503 otherwise (the body says which). A probe
 * reads the status alone, so a report that did not come is 503 too, its body the bus failure as every edge
 * words it, with {@code status: DOWN}.
 */
public final class HealthRoutes {

  static final String CHECKS = "the readiness checks";

  private final BusClient health;

  private HealthRoutes(Vertx vertx, AppConfig config) {
    // Each check has its own deadline; the whole report cannot take much longer than one.
    this.health = new BusClient(vertx, CHECKS, config.deadlines().readinessMs());
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    router.get("/api/health").handler(new HealthRoutes(vertx, config)::readiness);
  }

  private void readiness(RoutingContext ctx) {
    if (Lifecycle.isStopping(ctx.vertx())) {
      // At once, without trying anything: a balancer stops sending here while the questions in flight finish.
      send(ctx, 503, new JsonObject().put("status", "DOWN").put("stopping", true).put("message", Lifecycle.refusal()));
      return;
    }
    health.<JsonObject>request(Addresses.HEALTH_READINESS, new JsonObject()).map(Readiness::fromJson)
        .onSuccess(report -> send(ctx, report.ok() ? 200 : 503, report.toJson()))
        .onFailure(err -> {
          BusError e = BusError.of(err, CHECKS);
          send(ctx, 503, e.toJson().put("status", "DOWN").put("error", e.getMessage()));
        });
  }

  private static void send(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
        .putHeader("cache-control", "no-store").end(body.encode());
  }
}
