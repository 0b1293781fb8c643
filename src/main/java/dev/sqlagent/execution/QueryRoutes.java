package dev.sqlagent.execution;

import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code POST /api/query {"sql": ..., "run": bool, "row_cap": n}}: the SQL console, through the same gate
 * as everything else (the event-bus address; there is no second route to the database).
 *
 * <p>Status codes: 200 with the result when the query ran; <b>422</b> with the gate's structured error
 * (same JSON as on the bus) when the gate refused it or PostgreSQL reported an error, so a client can tell
 * "the SQL was wrong" from "the request was wrong" by status alone; 400 for a body that is not a JSON
 * object with a string "sql"; 413 for a body over 64 KiB; a bus failure as every edge reports it
 * ({@code JsonErrors}): 503 when the gate is not running, 504 when it did not answer in time.
 */
public final class QueryRoutes {
  private QueryRoutes() {}

  static final int BODY_LIMIT = 64 * 1024;
  static final String GATE = GateClient.GATE;

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    GateClient gate = new GateClient(vertx, config.deadlines().queryMs());
    router.post("/api/query")
        .handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(ctx -> query(ctx, gate));
  }

  private static void query(RoutingContext ctx, GateClient gate) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (body == null || !(body.getValue("sql") instanceof String)) {
      JsonErrors.send(ctx, 400, "bad_request", "the body must be a JSON object like {\"sql\": \"SELECT ...\"}");
      return;
    }
    GateRequest asked;
    try {
      asked = GateRequest.fromJson(body);
    } catch (IllegalArgumentException e) {
      JsonErrors.send(ctx, 400, "bad_request", e.getMessage());
      return;
    }
    // The database role is the authenticated user's, never the body's; a console statement belongs to no run.
    User user = Users.of(ctx);
    gate.execute(GateRequest.of(asked.sql(), asked.run()).withRowCap(asked.rowCap()).by(user))
        .onSuccess(reply -> JsonErrors.send(ctx, reply.ok() ? 200 : 422, reply.toJson()))
        .onFailure(err -> JsonErrors.send(ctx, err, GATE));
  }
}
