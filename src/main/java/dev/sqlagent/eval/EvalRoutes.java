package dev.sqlagent.eval;

import dev.sqlagent.contract.StateClient;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/**
 * {@code GET /api/eval/latest}: the newest saved evaluation summary, from the state store through
 * {@link Addresses#EVAL_LATEST} ({@link EvalRunsVerticle}); 404 when no run has been saved.
 */
public final class EvalRoutes {

  private EvalRoutes() {}

  static final String RUNS = StateClient.EVALUATIONS;
  static final long TIMEOUT_MS = 10_000;

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    StateClient runs = new StateClient(vertx, TIMEOUT_MS);
    router.get("/api/eval/latest").handler(ctx -> runs.latestEvaluation()
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, RUNS)));
  }
}
