package dev.sqlagent.metrics;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/** {@code GET /metrics[?node=host:port]}: the Prometheus text exposition (version 0.0.4). */
public final class MetricsRoutes {

  private MetricsRoutes() {}

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    // ?node=host:port: another node's metrics, in cluster mode (a worker serves no HTTP of its own).
    router.get("/metrics").handler(ctx -> vertx.eventBus()
        .<String>request(ctx.queryParams().get("node") == null ? Addresses.METRICS_SCRAPE
            : Addresses.metricsOf(ctx.queryParams().get("node")), new JsonObject(), new DeliveryOptions().setSendTimeout(5_000))
        .onSuccess(m -> ctx.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(m.body()))
        .onFailure(e -> ctx.response().setStatusCode(503).putHeader("content-type", "application/json")
            .end(new JsonObject().put("ok", false).put("error_type", "unavailable")
                .put("message", ctx.queryParams().get("node") == null ? "metrics are not running"
                    : "no cluster node named " + ctx.queryParams().get("node") + " answers (see /api/health: cluster.members)").encode())));
  }
}
