package dev.sqlagent.agent;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/** {@code POST /api/ask} and {@code GET /api/runs/:id/events}: thin adapters onto the agent's addresses. */
public final class AgentRoutes {

  static final String AGENT = "the agent";

  private final BusClient agent;

  private AgentRoutes(Vertx vertx, AppConfig config) {
    this.agent = new BusClient(vertx, AGENT, config.deadlines().askMs());
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    AgentRoutes r = new AgentRoutes(vertx, config);
    router.post("/api/ask").handler(BodyHandler.create(false).setBodyLimit(16 * 1024)).handler(r::ask);
    router.get("/api/runs/:id/events").handler(r::events);
  }

  private void ask(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (body == null) {
      JsonErrors.send(ctx, 400, "bad_request", "the body must be a JSON object like {\"question\": \"...\", \"mode\": \"agent\"}");
      return;
    }
    JsonObject request = new JsonObject().put("question", body.getValue("question"))
        .put("mode", body.getValue("mode", "agent")).put("source", "http");
    agent.<JsonObject>request(Addresses.ASK, request)
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, AGENT));
  }

  private void events(RoutingContext ctx) {
    AskRules.Refusal badId = AskRules.runId(ctx.pathParam("id"));
    if (badId != null) {
      JsonErrors.send(ctx, 400, badId.toJson());
      return;
    }
    long after;
    try {
      after = Long.parseLong(ctx.queryParams().get("after_seq") == null ? "0" : ctx.queryParams().get("after_seq"));
    } catch (NumberFormatException e) {
      JsonErrors.send(ctx, 400, "bad_request", "after_seq must be a whole number");
      return;
    }
    // Kept events are read from memory: the bus's default wait is plenty.
    agent.<JsonObject>request(Addresses.RUN_EVENTS, new JsonObject().put("run_id", ctx.pathParam("id")).put("after_seq", after),
            DeliveryOptions.DEFAULT_TIMEOUT)
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, AGENT));
  }
}
