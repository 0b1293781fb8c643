package dev.sqlagent.retrieval;

import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.SchemaRequest;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/**
 * The HTTP side of retrieval: {@code GET /api/schema}, the SCHEMA reply as it is, the refresh, and
 * {@code GET /api/learned} (what the workload teaches).
 */
public final class RetrievalRoutes {
  private RetrievalRoutes() {}

  static final String CATALOGUE = RetrievalClient.RETRIEVAL;
  /** A refresh re-embeds what changed: at 1,000 new tables that is minutes of model time, not seconds. */
  public static final long REFRESH_TIMEOUT_MS = 10 * 60_000L;

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    RetrievalClient retrieval = new RetrievalClient(vertx, config.deadlines().queryMs());
    StateClient verified = new StateClient(vertx, REFRESH_TIMEOUT_MS);
    // A user with a database role sees the tables that role may read.
    router.get("/api/schema").handler(ctx -> retrieval.tables(new SchemaRequest(Users.of(ctx) == null ? null : Users.of(ctx).dbRole()))
        .onSuccess(tables -> ctx.json(tables.toJson()))
        .onFailure(err -> JsonErrors.send(ctx, err, CATALOGUE)));
    // Discover the target again (a new table, a changed column): retrieval re-embeds what changed, the gate and
    // the drift snapshot follow the rebuilt index.
    router.post("/api/schema/refresh").handler(ctx -> retrieval.refresh(REFRESH_TIMEOUT_MS)
        // Then every verified query through the refreshed gate: what no longer validates is retired now.
        .compose(reply -> verified.recheck()
            .map(checked -> reply.withVerified(checked))
            .otherwise(reply))
        .onSuccess(refreshed -> ctx.json(refreshed.toJson()))
        .onFailure(err -> JsonErrors.send(ctx, err, CATALOGUE)));
    // What the workload teaches: learned joins and suggested notes. With identities, for admins only (the
    // workload's statements are everyone's).
    router.get("/api/learned").handler(ctx -> {
      if (config.users().configured() && (Users.of(ctx) == null || !Users.of(ctx).admin())) {
        JsonErrors.send(ctx, 403, "forbidden", "only an admin may read what was learned from everyone's queries");
        return;
      }
      retrieval.learned().onSuccess(report -> ctx.json(report.toJson()))
          .onFailure(err -> JsonErrors.send(ctx, err, CATALOGUE));
    });
  }
}
