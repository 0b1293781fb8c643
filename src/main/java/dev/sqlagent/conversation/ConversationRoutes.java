package dev.sqlagent.conversation;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code GET /api/conversations/:id} and {@code POST /api/runs/:id/feedback}: thin adapters onto the bus, each
 * request carrying the user it authenticated as (the conversation store decides what that user may reach).
 */
public final class ConversationRoutes {

  static final DeliveryOptions TIMEOUT = new DeliveryOptions().setSendTimeout(10_000);

  private ConversationRoutes() {}

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    router.get("/api/conversations/:id").handler(ctx -> vertx.eventBus()
        .<JsonObject>request(Addresses.CONVERSATION_GET, new JsonObject().put("conversation_id", ctx.pathParam("id"))
            .put("user", userJson(ctx)), TIMEOUT)
        .onSuccess(m -> ctx.json(m.body()))
        .onFailure(err -> BusErrors.send(ctx, err)));
    router.post("/api/runs/:id/feedback").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(ctx -> {
      JsonObject body = jsonBody(ctx, "{\"rating\": \"up\" | \"down\", \"comment\": \"...\"}");
      if (body == null) return;
      vertx.eventBus().<JsonObject>request(Addresses.RUN_FEEDBACK, new JsonObject().put("run_id", ctx.pathParam("id"))
              .put("rating", body.getValue("rating")).put("comment", body.getValue("comment")).put("user", userJson(ctx)), TIMEOUT)
          .onSuccess(m -> ctx.json(m.body()))
          .onFailure(err -> BusErrors.send(ctx, err));
    });
  }

  /** The user the request authenticated as, for the bus; null without a users file. */
  public static JsonObject userJson(RoutingContext ctx) {
    User user = Users.of(ctx);
    return user == null ? null : user.toJson();
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
