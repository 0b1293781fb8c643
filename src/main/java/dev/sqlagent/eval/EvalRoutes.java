package dev.sqlagent.eval;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/**
 * {@code GET /api/eval/latest}: the newest saved evaluation summary, from the state store through
 * {@link Addresses#EVAL_LATEST} ({@link EvalRunsVerticle}); 404 when no run has been saved.
 */
public final class EvalRoutes {

  private EvalRoutes() {}

  static final String RUNS = "the saved evaluation runs";
  static final long TIMEOUT_MS = 10_000;

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    BusClient runs = new BusClient(vertx, RUNS, TIMEOUT_MS);
    router.get("/api/eval/latest").handler(ctx -> runs.<JsonObject>request(Addresses.EVAL_LATEST, new JsonObject())
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, RUNS)));
  }
}
