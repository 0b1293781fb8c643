package dev.sqlagent.live;

import dev.sqlagent.access.AccessGuard;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.config.AppConfig;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.sockjs.BridgeEvent;
import io.vertx.ext.web.handler.sockjs.SockJSBridgeOptions;
import io.vertx.ext.web.handler.sockjs.SockJSHandler;
import io.vertx.ext.web.handler.sockjs.SockJSHandlerOptions;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SockJS event-bus bridge at {@code /eventbus}. Deny-all, then exactly: out, the event addresses
 * ({@code sqlagent.events} and {@code sqlagent.events.<run_id>}); in, {@code sqlagent.agent.ask} by
 * request only, its {@code source} forced to "eventbus". Replies to a client's own requests always pass.
 */
final class EventBridge {

  private static final Logger LOG = LoggerFactory.getLogger(EventBridge.class);

  /** The per-run event addresses, exactly as the agent accepts run ids. */
  static final String RUN_EVENTS_REGEX = Pattern.quote(Addresses.EVENTS + ".") + AskRules.RUN_ID_REGEX;

  /** The ask fields a bridge client may set (not, e.g., the evaluation's fault injection). */
  static final List<String> ASK_FIELDS = List.of("question", "mode", "run_id");

  private EventBridge() {}

  static Router router(Vertx vertx, AppConfig config, long askTimeoutMs) {
    SockJSBridgeOptions options = new SockJSBridgeOptions()
        .addOutboundPermitted(new PermittedOptions().setAddress(Addresses.EVENTS))
        .addOutboundPermitted(new PermittedOptions().setAddressRegex(RUN_EVENTS_REGEX))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.ASK))
        .setReplyTimeout(askTimeoutMs)
        .setMaxHandlersPerSocket(64);
    SockJSHandlerOptions sockjs = new SockJSHandlerOptions().setRegisterWriteHandler(false).setInsertJSESSIONID(false);
    config.allowedOrigin().ifPresent(sockjs::setOrigin);
    return SockJSHandler.create(vertx, sockjs).bridge(options, ev -> handle(vertx, ev));
  }

  private static void handle(Vertx vertx, BridgeEvent ev) {
    BridgeEventType type = ev.type();
    JsonObject raw = ev.getRawMessage();
    switch (type) {
      case SOCKET_CREATED:
      case SOCKET_CLOSED:
        // the metrics' live-client gauge
        vertx.eventBus().publish(Addresses.LIVE_CLIENTS, new JsonObject().put("transport", "eventbus")
            .put("delta", type == BridgeEventType.SOCKET_CREATED ? 1 : -1));
        ev.complete(true);
        return;
      case PUBLISH:
        // A publish to the agent could not be answered; only request/reply asks are meaningful.
        ev.complete(false);
        return;
      case SEND:
        if (!(raw.getValue("body") instanceof JsonObject body)) {
          ev.complete(false);
          return;
        }
        // Only what a person may ask passes; the source is the bridge, whatever the client claims.
        JsonObject ask = new JsonObject().put("source", "eventbus");
        for (String field : ASK_FIELDS) {
          if (body.containsKey(field)) ask.put(field, body.getValue(field));
        }
        ev.setRawMessage(raw.copy().put("body", ask));
        ev.complete(true);
        return;
      case REGISTER:
        if (Addresses.EVENTS.equals(raw.getString("address")) && !mayWatchAll(ev)) {
          ev.complete(false);
          return;
        }
        ev.complete(true);
        return;
      case RECEIVE:
        if (ev.socket().writeQueueFull()) {
          // Same rule as /ws: a bridge client that cannot keep up is dropped, not buffered without bound.
          LOG.info("closing a bridge client that reads too slowly");
          ev.complete(false);
          ev.socket().close(LiveSocket.SLOW_CLIENT, "too slow");
          return;
        }
        ev.complete(true);
        return;
      default:
        ev.complete(true);
    }
  }

  /** Decided by the access guard on the request that opened the session. */
  private static boolean mayWatchAll(BridgeEvent ev) {
    RoutingContext opened = ev.socket().routingContext();
    return opened != null ? AccessGuard.mayWatchAll(opened) : AccessGuard.mayWatchAll(ev.socket().remoteAddress(), false);
  }
}
