package dev.sqlagent.errors;

import dev.sqlagent.bus.BusError;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** The one shape every HTTP error takes: {@code {ok:false, error_type, message}} with its status. */
public final class JsonErrors {
  private JsonErrors() {}

  public static void send(RoutingContext ctx, int status, String type, String message) {
    send(ctx.response(), status, type, message);
  }

  /** An error body with more than the three keys (e.g. the limit a request went past). */
  public static void send(RoutingContext ctx, int status, JsonObject body) {
    send(ctx.response(), status, body);
  }

  /** For a request the router never sees (its path cannot be routed). */
  public static void send(HttpServerResponse response, int status, String type, String message) {
    send(response, status, new JsonObject().put("ok", false).put("error_type", type).put("message", message));
  }

  private static void send(HttpServerResponse response, int status, JsonObject body) {
    if (response.ended()) return;
    response.setStatusCode(status).putHeader("content-type", "application/json").end(body.encode());
  }

  /** A failed bus request, rendered as every HTTP edge renders it: its status, Retry-After when busy. */
  public static void send(RoutingContext ctx, Throwable failure, String what) {
    BusError e = BusError.of(failure, what);
    if (e.retryAfterSeconds() >= 0 && !ctx.response().ended()) {
      ctx.response().putHeader("Retry-After", String.valueOf(e.retryAfterSeconds()));
    }
    send(ctx, e.failure().httpStatus(), e.toJson());
  }
}
