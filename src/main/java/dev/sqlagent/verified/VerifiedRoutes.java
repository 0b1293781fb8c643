package dev.sqlagent.verified;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.conversation.ConversationRoutes;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The verified queries over HTTP: {@code GET /api/verified}, {@code POST /api/verified {question, sql}},
 * {@code DELETE /api/verified/:id}, {@code POST /api/verified/recheck} and {@code POST /api/runs/:id/verify}
 * (promote a run rated 👍). A failure is answered as on every edge ({@link JsonErrors}).
 */
public final class VerifiedRoutes {

  static final String VERIFIED = "the verified-query library";
  /** Adding waits for the gate and the embedding; a re-check for every query's EXPLAIN. */
  static final long TIMEOUT_MS = 60_000;

  private VerifiedRoutes() {}

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    BusClient verified = new BusClient(vertx, VERIFIED, TIMEOUT_MS);
    router.get("/api/verified").handler(ctx -> forward(verified, ctx, Addresses.VERIFIED_LIST, new JsonObject()));
    router.post("/api/verified/recheck").handler(ctx -> forward(verified, ctx, Addresses.VERIFIED_RECHECK, new JsonObject()));
    router.post("/api/verified").handler(BodyHandler.create(false).setBodyLimit(64 * 1024)).handler(ctx -> {
      JsonObject body = ConversationRoutes.jsonBody(ctx, "{\"question\": \"...\", \"sql\": \"SELECT ...\"}");
      if (body != null) {
        forward(verified, ctx, Addresses.VERIFIED_ADD, new JsonObject().put("question", body.getValue("question"))
            .put("sql", body.getValue("sql")).put("user", ConversationRoutes.userJson(ctx)));
      }
    });
    router.delete("/api/verified/:id").handler(ctx -> forward(verified, ctx, Addresses.VERIFIED_REMOVE,
        new JsonObject().put("verified_id", ctx.pathParam("id"))));
    router.post("/api/runs/:id/verify").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(ctx -> {
      if (ConversationRoutes.refused(ctx, AskRules.runId(ctx.pathParam("id")))) return;
      JsonObject body = ctx.body().length() == 0 ? new JsonObject()
          : ConversationRoutes.jsonBody(ctx, "{} or {\"question\": \"the question in full\"}");
      if (body != null) {
        forward(verified, ctx, Addresses.VERIFIED_PROMOTE, new JsonObject().put("run_id", ctx.pathParam("id"))
            .put("question", body.getValue("question")).put("user", ConversationRoutes.userJson(ctx)));
      }
    });
  }

  private static void forward(BusClient verified, RoutingContext ctx, String address, JsonObject request) {
    verified.<JsonObject>request(address, request)
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, VERIFIED));
  }
}
