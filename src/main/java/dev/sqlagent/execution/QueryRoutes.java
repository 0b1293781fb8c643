package dev.sqlagent.execution;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
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
 * object with a string "sql"; 413 for a body over 64 KiB; 503 when the gate is not answering.
 */
public final class QueryRoutes {
  private QueryRoutes() {}

  static final int BODY_LIMIT = 64 * 1024;

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    long timeout = config.getInteger("statementTimeoutMs", 5000) + 30_000L;
    router.post("/api/query")
        .handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(ctx -> query(ctx, vertx, timeout));
  }

  private static void query(RoutingContext ctx, Vertx vertx, long timeout) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (body == null || !(body.getValue("sql") instanceof String)) {
      send(ctx, 400, error("bad_request", "the body must be a JSON object like {\"sql\": \"SELECT ...\"}"));
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.EXECUTE, body, new DeliveryOptions().setSendTimeout(timeout))
        .onSuccess(reply -> send(ctx, GateReply.fromJson(reply.body()).ok() ? 200 : 422, reply.body()))
        .onFailure(err -> {
          if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
              && re.failureCode() == ExecutionVerticle.BAD_REQUEST) {
            send(ctx, 400, error("bad_request", re.getMessage()));
          } else {
            send(ctx, 503, error("unavailable", "the query gate is not answering; try again later"));
          }
        });
  }

  private static JsonObject error(String type, String message) {
    return new JsonObject().put("ok", false).put("error_type", type).put("message", message);
  }

  private static void send(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(body.encode());
  }
}
