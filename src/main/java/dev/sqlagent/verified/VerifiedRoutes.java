package dev.sqlagent.verified;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.conversation.BusErrors;
import dev.sqlagent.conversation.ConversationRoutes;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The verified queries over HTTP: {@code GET /api/verified}, {@code POST /api/verified {question, sql}},
 * {@code DELETE /api/verified/:id}, {@code POST /api/verified/recheck} and {@code POST /api/runs/:id/verify}
 * (promote a run rated 👍).
 */
public final class VerifiedRoutes {

  /** Adding waits for the gate and the embedding; a re-check for every query's EXPLAIN. */
  static final DeliveryOptions TIMEOUT = new DeliveryOptions().setSendTimeout(60_000);

  private VerifiedRoutes() {}

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    router.get("/api/verified").handler(ctx -> forward(vertx, ctx, Addresses.VERIFIED_LIST, new JsonObject()));
    router.post("/api/verified/recheck").handler(ctx -> forward(vertx, ctx, Addresses.VERIFIED_RECHECK, new JsonObject()));
    router.post("/api/verified").handler(BodyHandler.create(false).setBodyLimit(64 * 1024)).handler(ctx -> {
      JsonObject body = ConversationRoutes.jsonBody(ctx, "{\"question\": \"...\", \"sql\": \"SELECT ...\"}");
      if (body != null) {
        forward(vertx, ctx, Addresses.VERIFIED_ADD, new JsonObject().put("question", body.getValue("question"))
            .put("sql", body.getValue("sql")).put("user", ConversationRoutes.userJson(ctx)));
      }
    });
    router.delete("/api/verified/:id").handler(ctx -> forward(vertx, ctx, Addresses.VERIFIED_REMOVE,
        new JsonObject().put("verified_id", ctx.pathParam("id"))));
    router.post("/api/runs/:id/verify").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(ctx -> {
      JsonObject body = ctx.body().length() == 0 ? new JsonObject()
          : ConversationRoutes.jsonBody(ctx, "{} or {\"question\": \"the question in full\"}");
      if (body != null) {
        forward(vertx, ctx, Addresses.VERIFIED_PROMOTE, new JsonObject().put("run_id", ctx.pathParam("id"))
            .put("question", body.getValue("question")).put("user", ConversationRoutes.userJson(ctx)));
      }
    });
  }

  private static void forward(Vertx vertx, RoutingContext ctx, String address, JsonObject request) {
    vertx.eventBus().<JsonObject>request(address, request, TIMEOUT)
        .onSuccess(m -> ctx.json(m.body()))
        .onFailure(err -> BusErrors.send(ctx, err));
  }
}
