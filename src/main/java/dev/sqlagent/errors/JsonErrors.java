package dev.sqlagent.errors;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** The one shape every HTTP error takes: {@code {ok:false, error_type, message}} with its status. */
public final class JsonErrors {
  private JsonErrors() {}

  public static void send(RoutingContext ctx, int status, String type, String message) {
    if (ctx.response().ended()) return;
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
        .end(new JsonObject().put("ok", false).put("error_type", type).put("message", message).encode());
  }
}
