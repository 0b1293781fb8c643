package dev.sqlagent.agent;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.RunMessages;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.conversation.ConversationRoutes;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code POST /api/ask}, {@code GET /api/runs/:id/events}, {@code DELETE /api/runs/:id} and {@code GET /api/runs}:
 * thin adapters onto the agent's addresses; a failure is rendered as on every edge ({@link JsonErrors}).
 */
public final class AgentRoutes {

  static final String AGENT = AgentClient.AGENT;

  private final AgentClient agent;

  private AgentRoutes(Vertx vertx, AppConfig config) {
    this.agent = new AgentClient(vertx, config.deadlines().askMs());
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    AgentRoutes r = new AgentRoutes(vertx, config);
    router.post("/api/ask").handler(BodyHandler.create(false).setBodyLimit(AskRules.MAX_ASK_BODY_BYTES)).handler(r::ask);
    router.get("/api/runs/:id/events").handler(r::events);
    router.delete("/api/runs/:id").handler(r::cancel);
    router.get("/api/runs").handler(r::list);
    // SQL a person chose, as a new run of the same conversation: an answer's SQL edited, or a reading picked.
    router.post("/api/runs/:id/rerun").handler(BodyHandler.create(false).setBodyLimit(AskRules.MAX_SQL_CHARS + 1024))
        .handler(ctx -> r.rerun(ctx, false));
    router.post("/api/runs/:id/choose").handler(BodyHandler.create(false).setBodyLimit(16 * 1024))
        .handler(ctx -> r.rerun(ctx, true));
    // The graph as declared (AgentGraph): its nodes as every run's events name them, its edges, starts and cap.
    router.get("/api/graph").handler(ctx -> ctx.json(AgentGraph.shape().toJson()));
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
    User user = Users.of(ctx);
    // A client may name its run (as over SockJS): one that loses its connection, to a restart or to a killed edge
    // behind a load balancer, can still read how the run ended (GET /api/runs/{run_id}/events), on any edge.
    Object chosen = body.getValue("run_id");
    AskRules.Refusal badId = chosen == null ? null : AskRules.runId(chosen);
    if (badId != null) {
      JsonErrors.send(ctx, 400, badId.toJson());
      return;
    }
    String runId = chosen == null ? java.util.UUID.randomUUID().toString() : (String) chosen;
    // Refused here as the agent refuses it, so that the request is typed from here on.
    AskRules.Refusal refused = AskRules.ask(body);
    if (refused != null) {
      JsonErrors.send(ctx, 400, "bad_request", refused.message());
      return;
    }
    AskRequest request = new AskRequest(body.getString("question"), body.getString("mode"), "http", runId, user,
        body.getValue("conversation_id"), RunOptions.ASKED, TrustedProxies.clientAddress(ctx));
    // A client that hangs up before its answer does not want it: its run is stopped, statement and all.
    ctx.response().closeHandler(v -> {
      if (!ctx.response().ended()) cancel(runId, user, "its client, which disconnected");
    });
    ctx.response().putHeader("X-Run-Id", runId);
    agent.ask(request)
        .onSuccess(answer -> {
          if (!ctx.response().closed()) ctx.json(answer.toJson());
        })
        .onFailure(err -> {
          if (!ctx.response().closed()) JsonErrors.send(ctx, err, AGENT);
        });
  }

  /**
   * {@code POST /api/runs/:id/rerun {"sql"}} and {@code POST /api/runs/:id/choose {"reading"}}: a new run (its own run
   * id, events, query-log row and conversation turn) of the edited SQL or of the chosen reading's, for the run's owner
   * or an admin. 400 for no SQL or no such reading, 404 for an unknown run, 422 when the gate refused the SQL (not a
   * single SELECT, a write): its refusal, with the new run's id. A query that ran and failed is an answer (200) whose
   * history has PostgreSQL's error and hint, like any give-up.
   */
  private void rerun(RoutingContext ctx, boolean choose) {
    if (badRunId(ctx)) return;
    JsonObject body = ConversationRoutes.jsonBody(ctx, choose ? "{\"reading\": 1}" : "{\"sql\": \"SELECT ...\"}");
    if (body == null) return;
    AskRules.Refusal refused = choose ? AskRules.reading(body.getValue("reading")) : AskRules.editedSql(body.getValue("sql"));
    if (refused != null) {
      JsonErrors.send(ctx, refused.errorType().equals("sql_too_long") ? 413 : 400, refused.toJson());
      return;
    }
    User user = Users.of(ctx);
    String runId = java.util.UUID.randomUUID().toString();
    String from = ctx.pathParam("id");
    RerunRequest request = choose ? RerunRequest.chosen(from, body.getValue("reading"), runId, "http", user)
        : RerunRequest.edited(from, body.getValue("sql"), runId, "http", user);
    request = request.withClient(TrustedProxies.clientAddress(ctx));
    ctx.response().closeHandler(v -> {
      if (!ctx.response().ended()) cancel(runId, user, "its client, which disconnected");
    });
    ctx.response().putHeader("X-Run-Id", runId);
    agent.rerun(request)
        .onSuccess(answer -> {
          if (ctx.response().closed()) return;
          JsonObject refusal = gateRefusal(answer);
          if (refusal != null) JsonErrors.send(ctx, 422, refusal);
          else ctx.json(answer.toJson());
        })
        .onFailure(err -> {
          if (!ctx.response().closed()) JsonErrors.send(ctx, err, AGENT);
        });
  }

  /**
   * The gate's refusal of SQL a person chose, as an error body ({@code error_type}, the gate's {@code message}, the
   * new run's id and its answer), or null when the gate let it through (it ran, or PostgreSQL refused it).
   */
  static JsonObject gateRefusal(Answer answer) {
    Attempt last = answer.history().isEmpty() ? null : answer.history().get(answer.history().size() - 1);
    boolean refusedByGate = answer.refused()
        || (answer.gaveUp() && last != null && ErrorType.REJECTED.wireName().equals(last.errorType()));
    if (!refusedByGate) return null;
    String message = last != null && last.message() != null ? last.message() : answer.answer();
    return new JsonObject().put("ok", false).put("error_type", last != null && last.errorType() != null ? last.errorType()
        : ErrorType.REJECTED.wireName()).put("message", message).put("hint", last == null ? null : last.hint())
        .put("run_id", answer.runId()).put("answer", answer.toJson());
  }

  private Future<JsonObject> cancel(String runId, User user, String by) {
    return agent.cancel(RunRequest.cancel(runId, user, by)).map(RunMessages.Cancelled::toJson);
  }

  /** {@code DELETE /api/runs/:id}: stops a running question (its owner's or, for an admin, anyone's). */
  private void cancel(RoutingContext ctx) {
    if (badRunId(ctx)) return;
    User user = Users.of(ctx);
    cancel(ctx.pathParam("id"), user, user == null ? "a client" : user.displayName())
        .onSuccess(ctx::json)
        .onFailure(err -> JsonErrors.send(ctx, err, AGENT));
  }

  /** {@code GET /api/runs}: the recent runs this client may see (its own; an admin's: all). */
  private void list(RoutingContext ctx) {
    User user = Users.of(ctx);
    agent.runs(user)
        .onSuccess(runs -> ctx.json(runs.toJson()))
        .onFailure(err -> JsonErrors.send(ctx, err, AGENT));
  }

  private void events(RoutingContext ctx) {
    if (badRunId(ctx)) return;
    long after;
    try {
      after = Long.parseLong(ctx.queryParams().get("after_seq") == null ? "0" : ctx.queryParams().get("after_seq"));
    } catch (NumberFormatException e) {
      JsonErrors.send(ctx, 400, "bad_request", "after_seq must be a whole number");
      return;
    }
    // Kept events are read from memory (or, clustered, the state store): the bus's default wait is plenty.
    agent.events(RunRequest.events(ctx.pathParam("id"), after, Users.of(ctx)))
        .onSuccess(events -> ctx.json(events.toJson()))
        .onFailure(err -> JsonErrors.send(ctx, err, AGENT));
  }

  /** Whether the path's run id was refused (answered 400 here, as every edge refuses it). */
  private static boolean badRunId(RoutingContext ctx) {
    AskRules.Refusal badId = AskRules.runId(ctx.pathParam("id"));
    if (badId != null) JsonErrors.send(ctx, 400, badId.toJson());
    return badId != null;
  }
}
