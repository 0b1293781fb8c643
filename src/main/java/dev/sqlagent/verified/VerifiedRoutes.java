package dev.sqlagent.verified;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.Rechecked;
import dev.sqlagent.contract.StateMessages.Removed;
import dev.sqlagent.contract.StateMessages.VerifiedAdd;
import dev.sqlagent.contract.StateMessages.VerifiedList;
import dev.sqlagent.contract.StateMessages.VerifiedPromote;
import dev.sqlagent.contract.StateMessages.VerifiedRemove;
import dev.sqlagent.conversation.ConversationRoutes;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.Users;
import io.vertx.core.Future;
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

  static final String VERIFIED = StateClient.VERIFIED;
  /** Adding waits for the gate and the embedding; a re-check for every query's EXPLAIN. */
  static final long TIMEOUT_MS = 60_000;

  private VerifiedRoutes() {}

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    StateClient verified = new StateClient(vertx, TIMEOUT_MS);
    router.get("/api/verified").handler(ctx -> forward(ctx, verified.verifiedList().map(VerifiedList::toJson)));
    router.post("/api/verified/recheck").handler(ctx -> forward(ctx, verified.recheck().map(Rechecked::toJson)));
    router.post("/api/verified").handler(BodyHandler.create(false).setBodyLimit(64 * 1024)).handler(ctx -> {
      JsonObject body = ConversationRoutes.jsonBody(ctx, "{\"question\": \"...\", \"sql\": \"SELECT ...\"}");
      if (body != null) {
        forward(ctx, verified.addVerified(new VerifiedAdd(body.getValue("question"), body.getValue("sql"), null, Users.of(ctx))));
      }
    });
    router.delete("/api/verified/:id").handler(ctx -> forward(ctx,
        verified.removeVerified(new VerifiedRemove(ctx.pathParam("id"))).map(Removed::toJson)));
    router.post("/api/runs/:id/verify").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(ctx -> {
      if (ConversationRoutes.refused(ctx, AskRules.runId(ctx.pathParam("id")))) return;
      JsonObject body = ctx.body().length() == 0 ? new JsonObject()
          : ConversationRoutes.jsonBody(ctx, "{} or {\"question\": \"the question in full\"}");
      if (body != null) {
        forward(ctx, verified.promote(new VerifiedPromote(ctx.pathParam("id"), body.getValue("question"), Users.of(ctx))));
      }
    });
  }

  private static void forward(RoutingContext ctx, Future<JsonObject> reply) {
    reply
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, VERIFIED));
  }
}
