package dev.sqlagent.metrics;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/** {@code GET /metrics}: the Prometheus text exposition (version 0.0.4). */
public final class MetricsRoutes {

  private MetricsRoutes() {}

  static final String METRICS = "metrics";

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    BusClient metrics = new BusClient(vertx, METRICS, 5_000);
    router.get("/metrics").handler(ctx -> metrics.<String>request(Addresses.METRICS_SCRAPE, new JsonObject())
        .onSuccess(text -> ctx.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(text))
        .onFailure(err -> JsonErrors.send(ctx, err, METRICS)));
  }
}
