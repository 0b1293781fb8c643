package dev.sqlagent.conversation;

import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.ext.web.RoutingContext;

/**
 * A failed request over the event bus as the HTTP answer a client can act on: the handler's own 4xx with its
 * message, 503 when the state store or the handler is away, 504 on a timeout. Never a stack trace.
 */
public final class BusErrors {

  private BusErrors() {}

  public static void send(RoutingContext ctx, Throwable err) {
    if (err instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.TIMEOUT) {
        JsonErrors.send(ctx, 504, "timeout", "no answer in time; try again");
        return;
      }
      if (re.failureType() == ReplyFailure.NO_HANDLERS) {
        JsonErrors.send(ctx, 503, "unavailable", "this part of the service is not running");
        return;
      }
      int code = re.failureCode();
      String type = switch (code) {
        case 400 -> "bad_request";
        case 403 -> "forbidden";
        case 404 -> "not_found";
        case 409 -> "conflict";
        case 422 -> "rejected";
        case 503 -> "unavailable";
        default -> "error";
      };
      if (code >= 400 && code < 500 || code == 503) {
        JsonErrors.send(ctx, code, type, re.getMessage());
        return;
      }
    }
    JsonErrors.send(ctx, 500, "error", "the request could not be completed");
  }
}
