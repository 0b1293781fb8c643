package dev.sqlagent.agent;

import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/** {@code POST /api/ask} and {@code GET /api/runs/:id/events}: thin adapters onto the agent's addresses. */
public final class AgentRoutes {

  private static final java.util.regex.Pattern RUN_ID = java.util.regex.Pattern.compile("[A-Za-z0-9-]{8,64}");

  private final Vertx vertx;
  private final long askTimeoutMs;

  private AgentRoutes(Vertx vertx, JsonObject config) {
    this.vertx = vertx;
    this.askTimeoutMs = config.getLong("questionTimeoutMs", 180_000L) + 15_000L;
  }

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    AgentRoutes r = new AgentRoutes(vertx, config);
    router.post("/api/ask").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(r::ask);
    router.get("/api/runs/:id/events").handler(r::events);
    router.delete("/api/runs/:id").handler(r::cancel);
    router.get("/api/runs").handler(r::list);
  }

  private void ask(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      error(ctx, 400, "bad_request", "the body must be a JSON object like {\"question\": \"...\", \"mode\": \"agent\"}");
      return;
    }
    if (body == null) {
      error(ctx, 400, "bad_request", "the body must be a JSON object like {\"question\": \"...\", \"mode\": \"agent\"}");
      return;
    }
    User user = Users.of(ctx);
    // A client may name its run (as over SockJS): one that loses its connection, to a restart or to a killed edge
    // behind a load balancer, can still read how the run ended (GET /api/runs/{run_id}/events), on any edge.
    Object chosen = body.getValue("run_id");
    if (chosen != null && !(chosen instanceof String c && RUN_ID.matcher(c).matches())) {
      error(ctx, 400, "bad_request", "run_id must be 8 to 64 letters, digits or dashes (a UUID is best)");
      return;
    }
    String runId = chosen == null ? java.util.UUID.randomUUID().toString() : (String) chosen;
    JsonObject request = new JsonObject().put("question", body.getValue("question"))
        .put("mode", body.getValue("mode", "agent")).put("source", "http").put("run_id", runId)
        .put("user", user == null ? null : user.toJson());
    if (body.getValue("conversation_id") != null) request.put("conversation_id", body.getValue("conversation_id"));
    // A client that hangs up before its answer does not want it: its run is stopped, statement and all.
    ctx.response().closeHandler(v -> {
      if (!ctx.response().ended()) cancel(runId, user, "its client, which disconnected");
    });
    ctx.response().putHeader("X-Run-Id", runId);
    vertx.eventBus().<JsonObject>request(Addresses.ASK, request, new DeliveryOptions().setSendTimeout(askTimeoutMs))
        .onSuccess(m -> {
          if (!ctx.response().closed()) ctx.json(m.body());
        })
        .onFailure(err -> {
          if (!ctx.response().closed()) replyFailure(ctx, err);
        });
  }

  private Future<JsonObject> cancel(String runId, User user, String by) {
    return vertx.eventBus().<JsonObject>request(Addresses.CANCEL, new JsonObject().put("run_id", runId)
            .put("user", user == null ? null : user.toJson()).put("by", by))
        .map(m -> m.body());
  }

  /** {@code DELETE /api/runs/:id}: stops a running question (its owner's or, for an admin, anyone's). */
  private void cancel(RoutingContext ctx) {
    User user = Users.of(ctx);
    cancel(ctx.pathParam("id"), user, user == null ? "a client" : user.displayName())
        .onSuccess(ctx::json)
        .onFailure(err -> replyFailure(ctx, err));
  }

  /** {@code GET /api/runs}: the recent runs this client may see (its own; an admin's: all). */
  private void list(RoutingContext ctx) {
    User user = Users.of(ctx);
    vertx.eventBus().<JsonObject>request(Addresses.RUNS, new JsonObject().put("user", user == null ? null : user.toJson()))
        .onSuccess(m -> ctx.json(m.body()))
        .onFailure(err -> replyFailure(ctx, err));
  }

  private void events(RoutingContext ctx) {
    long after;
    try {
      after = Long.parseLong(ctx.queryParams().get("after_seq") == null ? "0" : ctx.queryParams().get("after_seq"));
    } catch (NumberFormatException e) {
      error(ctx, 400, "bad_request", "after_seq must be a whole number");
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.RUN_EVENTS,
            new JsonObject().put("run_id", ctx.pathParam("id")).put("after_seq", after)
                .put("user", Users.of(ctx) == null ? null : Users.of(ctx).toJson()))
        .onSuccess(m -> ctx.json(m.body()))
        .onFailure(err -> replyFailure(ctx, err));
  }

  static void replyFailure(RoutingContext ctx, Throwable err) {
    if (err instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.TIMEOUT) {
        error(ctx, 504, "timeout", "no answer in time");
      } else if (re.failureType() == ReplyFailure.NO_HANDLERS) {
        error(ctx, 503, "unavailable", "the agent is not running");
      } else if (re.failureCode() == AgentVerticle.BUSY) {
        ctx.response().putHeader("Retry-After", "5");
        error(ctx, 503, "busy", re.getMessage());
      } else if (re.failureCode() == AgentVerticle.FORBIDDEN) {
        error(ctx, 403, "forbidden", re.getMessage());
      } else if (re.failureCode() == AgentVerticle.CONFLICT) {
        error(ctx, 409, "not_running", re.getMessage());
      } else if (re.failureCode() == 400 || re.failureCode() == 404 || re.failureCode() == 429) {
        error(ctx, re.failureCode(), re.failureCode() == 404 ? "not_found" : re.failureCode() == 429 ? "busy" : "bad_request",
            re.getMessage());
      } else {
        error(ctx, 500, "error", "the request could not be completed");
      }
    } else {
      error(ctx, 500, "error", "the request could not be completed");
    }
  }

  static void error(RoutingContext ctx, int status, String type, String message) {
    JsonErrors.send(ctx, status, type, message);
  }
}
