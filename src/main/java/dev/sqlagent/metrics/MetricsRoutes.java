package dev.sqlagent.metrics;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/** {@code GET /metrics[?node=host:port]}: the Prometheus text exposition (version 0.0.4). */
public final class MetricsRoutes {

  private MetricsRoutes() {}

  static final String METRICS = "metrics";
  static final long TIMEOUT_MS = 5_000;

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    // ?node=host:port: another node's metrics, in cluster mode (a worker serves no HTTP of its own).
    router.get("/metrics").handler(ctx -> {
      String node = ctx.queryParams().get("node");
      String what = node == null ? METRICS : "cluster node " + node;
      new BusClient(vertx, what, TIMEOUT_MS)
          .<String>request(node == null ? Addresses.METRICS_SCRAPE : Addresses.metricsOf(node), new JsonObject())
          .onSuccess(text -> ctx.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(text))
          .onFailure(err -> JsonErrors.send(ctx, err, what));
    });
  }
}
