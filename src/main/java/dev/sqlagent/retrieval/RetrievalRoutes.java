package dev.sqlagent.retrieval;

import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** The HTTP side of retrieval: {@code GET /api/schema}, the SCHEMA reply as it is. */
public final class RetrievalRoutes {
  private RetrievalRoutes() {}

  /** A refresh re-embeds what changed: at 1,000 new tables that is minutes of model time, not seconds. */
  static final long REFRESH_TIMEOUT_MS = 10 * 60_000L;

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    // A user with a database role sees the tables that role may read.
    router.get("/api/schema").handler(ctx -> vertx.eventBus().<JsonObject>request(Addresses.SCHEMA, new JsonObject()
            .put("db_role", Users.of(ctx) == null ? null : Users.of(ctx).dbRole()))
        .onSuccess(reply -> ctx.json(reply.body()))
        .onFailure(err -> error(ctx, err)));
    // Discover the target again (a new table, a changed column): retrieval re-embeds what changed, the gate and
    // the drift snapshot follow the rebuilt index.
    router.post("/api/schema/refresh").handler(ctx -> vertx.eventBus().<JsonObject>request(Addresses.SCHEMA_REFRESH,
            new JsonObject(), new DeliveryOptions().setSendTimeout(REFRESH_TIMEOUT_MS))
        // Then every verified query through the refreshed gate: what no longer validates is retired now.
        .compose(reply -> vertx.eventBus().<JsonObject>request(Addresses.VERIFIED_RECHECK, new JsonObject(),
                new DeliveryOptions().setSendTimeout(REFRESH_TIMEOUT_MS))
            .map(checked -> reply.body().put("verified", checked.body()))
            .otherwise(reply.body()))
        .onSuccess(ctx::json)
        .onFailure(err -> error(ctx, err)));
  }

  private static void error(RoutingContext ctx, Throwable err) {
    int status = 503;
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
        && re.failureCode() >= 400 && re.failureCode() < 600) {
      status = re.failureCode();
    }
    JsonErrors.send(ctx, status, "schema_unavailable", err.getMessage());
  }
}
