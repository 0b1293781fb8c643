package dev.sqlagent.conversation;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.ConversationRequest;
import dev.sqlagent.contract.StateMessages.FeedbackRequest;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code GET /api/conversations/:id} and {@code POST /api/runs/:id/feedback}: thin adapters onto the bus, each
 * request carrying the user it authenticated as (the conversation store decides what that user may reach). A
 * refused id or a failed request is answered as on every edge ({@link JsonErrors}).
 */
public final class ConversationRoutes {

  static final long TIMEOUT_MS = 10_000;

  private ConversationRoutes() {}

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    StateClient store = new StateClient(vertx, TIMEOUT_MS);
    router.get("/api/conversations/:id").handler(ctx -> {
      if (refused(ctx, AskRules.conversationId(ctx.pathParam("id")))) return;
      store.conversation(new ConversationRequest(ctx.pathParam("id"), Users.of(ctx)))
          .onSuccess(c -> ctx.json(c.toJson()))
          .onFailure(err -> JsonErrors.send(ctx, err, Conversations.STORE));
    });
    router.post("/api/runs/:id/feedback").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(ctx -> {
      if (refused(ctx, AskRules.runId(ctx.pathParam("id")))) return;
      JsonObject body = jsonBody(ctx, "{\"rating\": \"up\" | \"down\", \"comment\": \"...\"}");
      if (body == null) return;
      store.feedback(new FeedbackRequest(ctx.pathParam("id"), body.getValue("rating"), body.getValue("comment"), Users.of(ctx)))
          .onSuccess(f -> ctx.json(f.toJson()))
          .onFailure(err -> JsonErrors.send(ctx, err, Conversations.STORE));
    });
  }

  /** Whether the request was refused by one of the {@link AskRules} (answered 400 here, as on every edge). */
  public static boolean refused(RoutingContext ctx, AskRules.Refusal refusal) {
    if (refusal != null) JsonErrors.send(ctx, 400, refusal.toJson());
    return refusal != null;
  }

  /** The request's JSON object, or null after answering 400 with what was expected. */
  public static JsonObject jsonBody(RoutingContext ctx, String expected) {
    try {
      JsonObject body = ctx.body().asJsonObject();
      if (body != null) return body;
    } catch (DecodeException | ClassCastException e) {
      // answered below
    }
    JsonErrors.send(ctx, 400, "bad_request", "the body must be a JSON object like " + expected);
    return null;
  }
}
