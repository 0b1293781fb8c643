package dev.sqlagent.live;

import dev.sqlagent.access.TokenExpiry;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.access.AccessGuard;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
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
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
  static final List<String> ASK_FIELDS = List.of("question", "mode", "run_id", "conversation_id");

  private EventBridge() {}

  static Router router(Vertx vertx, AppConfig config, long askTimeoutMs) {
    SockJSBridgeOptions options = new SockJSBridgeOptions()
        .addOutboundPermitted(new PermittedOptions().setAddress(Addresses.EVENTS))
        .addOutboundPermitted(new PermittedOptions().setAddressRegex(RUN_EVENTS_REGEX))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.ASK))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.CANCEL))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.RERUN))
        .setReplyTimeout(askTimeoutMs)
        .setMaxHandlersPerSocket(64);
    SockJSHandlerOptions sockjs = new SockJSHandlerOptions().setRegisterWriteHandler(false).setInsertJSESSIONID(false);
    config.allowedOrigin().ifPresent(sockjs::setOrigin);
    Users users = config.users();
    boolean identityRequired = config.identityRequired();
    Map<SockJSSocket, Set<String>> asked = new ConcurrentHashMap<>();
    Map<SockJSSocket, Long> expiries = new ConcurrentHashMap<>();
    AgentClient agent = new AgentClient(vertx, askTimeoutMs);
    SessionOwners owners = SessionOwners.of(vertx);
    return SockJSHandler.create(vertx, sockjs).bridge(options,
        ev -> {
          expire(vertx, ev, expiries);
          User user = identityRequired ? userOf(ev.socket(), users) : null;
          if (ev.type() == BridgeEventType.SOCKET_CREATED) owners.opened(ev.socket(), user);
          if (ev.type() == BridgeEventType.SOCKET_CLOSED) owners.closed(ev.socket(), user);
          handle(vertx, agent, ev, user, asked);
        });
  }

  /** At most this many runs per socket are remembered (to stop them when it closes). */
  static final int REMEMBERED_RUNS = 64;

  /**
   * A session opened with a sign-on token is closed when the token stops being accepted (on the raw WebSocket
   * transport with {@link TokenExpiry#CLOSE_CODE} and its reason; SockJS's own transports close with their standard
   * frame); its timer goes with the session.
   */
  private static void expire(Vertx vertx, BridgeEvent ev, Map<SockJSSocket, Long> expiries) {
    SockJSSocket socket = ev.socket();
    if (ev.type() == BridgeEventType.SOCKET_CREATED) {
      long timer = TokenExpiry.closeAt(vertx, socket.routingContext(),
          () -> socket.close(TokenExpiry.CLOSE_CODE, TokenExpiry.REASON));
      if (timer >= 0) expiries.put(socket, timer);
    } else if (ev.type() == BridgeEventType.SOCKET_CLOSED) {
      Long timer = expiries.remove(socket);
      if (timer != null) vertx.cancelTimer(timer);
    }
  }

  /** The socket's client address, as the access guard saw it on the request that opened its session. */
  private static String clientOf(SockJSSocket socket) {
    String client = TrustedProxies.clientAddress(socket.routingContext());
    return client != null || socket.remoteAddress() == null ? client : socket.remoteAddress().host();
  }

  /**
   * Who a bridge socket is: the user the access guard authenticated on the request that opened its session (a users
   * file's token or a verified sign-on token), else its users-file token read again.
   */
  private static User userOf(SockJSSocket socket, Users users) {
    RoutingContext opened = socket.routingContext();
    User user = opened == null ? null : Users.of(opened);
    return user != null ? user : users.userOf(socket.headers().get("Authorization"), socket.uri());
  }

  private static void handle(Vertx vertx, AgentClient agent, BridgeEvent ev, User user,
      Map<SockJSSocket, Set<String>> asked) {
    BridgeEventType type = ev.type();
    JsonObject raw = ev.getRawMessage();
    switch (type) {
      case SOCKET_CLOSED:
        // The runs this socket asked are not wanted any more (a run already answered ignores the cancel).
        Set<String> runs = asked.remove(ev.socket());
        if (runs != null) {
          for (String runId : runs) {
            agent.cancel(RunRequest.cancel(runId, user, "its client, which disconnected"));
          }
        }
        vertx.eventBus().publish(Addresses.LIVE_CLIENTS, new OpsMessages.LiveClients(OpsMessages.LiveClients.EVENTBUS, -1).toJson());
        ev.complete(true);
        return;
      case SOCKET_CREATED:
        // the metrics' live-client gauge
        vertx.eventBus().publish(Addresses.LIVE_CLIENTS, new OpsMessages.LiveClients(OpsMessages.LiveClients.EVENTBUS,
            type == BridgeEventType.SOCKET_CREATED ? 1 : -1).toJson());
        ev.complete(true);
        return;
      case PUBLISH:
        // A publish to the agent could not be answered; only request/reply asks are meaningful.
        ev.complete(false);
        return;
      case SEND:
        if (!FrameCheck.headersUsable(raw.getValue("headers"))) {
          // The bridge would throw reading them and answer nothing: the client is told what is wrong.
          FrameCheck.refuse(ev.socket(), FrameCheck.INVALID_HEADERS, FrameCheck.HEADERS_RULE);
          ev.complete(false);
          return;
        }
        if (!(raw.getValue("body") instanceof JsonObject body)) {
          ev.complete(false);
          return;
        }
        if (Addresses.CANCEL.equals(raw.getString("address"))) {
          // Whose cancel it is comes from the socket's token, never from the message.
          JsonObject cancel = RunRequest.cancel(null, user, user == null ? "a client" : user.displayName()).toJson();
          ev.setRawMessage(raw.copy().put("body", cancel.put("run_id", body.getValue("run_id"))));
          ev.complete(true);
          return;
        }
        if (Addresses.RERUN.equals(raw.getString("address"))) {
          // An edited answer's SQL, or a reading chosen: as the socket's user, through the bridge, under the run id
          // the client chose (so it can listen to the new run's events before it starts).
          String newId = body.getValue("new_run_id") instanceof String n ? n : java.util.UUID.randomUUID().toString();
          JsonObject rerun = new RerunRequest(body.getValue("run_id") instanceof String r ? r : null, body.getValue("sql"),
              body.getValue("reading"), newId, "eventbus", user, clientOf(ev.socket())).toJson();
          Set<String> mine = asked.computeIfAbsent(ev.socket(), k -> ConcurrentHashMap.newKeySet());
          if (mine.size() < REMEMBERED_RUNS) mine.add(newId);
          ev.setRawMessage(raw.copy().put("body", rerun));
          ev.complete(true);
          return;
        }
        // Only what a person may ask passes; the source is the bridge and the user the socket's, whatever the client claims.
        String askedId = body.getValue("run_id") instanceof String r ? r : java.util.UUID.randomUUID().toString();
        JsonObject ask = new AskRequest(null, null, "eventbus", askedId, user, body.getValue("conversation_id"),
            RunOptions.ASKED, clientOf(ev.socket())).toJson();
        // The question and mode as the client sent them: the agent checks them and says what is wrong.
        for (String field : ASK_FIELDS) {
          if (body.containsKey(field) && !"run_id".equals(field)) ask.put(field, body.getValue(field));
        }
        Set<String> mine = asked.computeIfAbsent(ev.socket(), k -> ConcurrentHashMap.newKeySet());
        if (mine.size() < REMEMBERED_RUNS) mine.add(askedId);
        ev.setRawMessage(raw.copy().put("body", ask));
        ev.complete(true);
        return;
      case REGISTER:
        String address = raw.getString("address", "");
        if (Addresses.EVENTS.equals(address)) {
          // Every run's events: with users, for admins only (the bridge cannot filter them per user).
          ev.complete(user != null ? user.admin() : mayWatchAll(ev));
          return;
        }
        if (user == null || user.admin()) {
          ev.complete(true);
          return;
        }
        // One run's events: its owner's (a run not yet started is the one this client is about to ask).
        String runId = address.substring(Addresses.EVENTS.length() + 1);
        agent.events(RunRequest.events(runId, Long.MAX_VALUE, user))
            .onComplete(ar -> ev.complete(ar.succeeded() || ((BusError) ar.cause()).failure() == BusFailure.NOT_FOUND));
        return;
      case RECEIVE:
        if (ev.socket().writeQueueFull()) {
          // Same rule as /ws: a bridge client that cannot keep up is dropped, not buffered without bound.
          LOG.info("closing a bridge client that reads too slowly");
          ev.complete(false);
          ev.socket().close(LiveSocket.SLOW_CLIENT, "too slow");
          return;
        }
        // A user may register for a run not yet started (the one this client is about to ask), so whose run it is
        // can only be known from its events: each goes to its owner and admins only, as on /ws.
        String to = raw.getString("address", "");
        boolean event = to.equals(Addresses.EVENTS) || to.startsWith(Addresses.EVENTS + ".");
        ev.complete(!event || raw.getValue("body") instanceof JsonObject e && User.mayReach(user, e.getString("user")));
        return;
      case SOCKET_ERROR:
        // A client that went away without a goodbye (a closed tab, a dropped network): the end of a session, not a fault.
        LOG.debug("a bridge client's connection ended: {}", raw == null ? "" : raw.getString("message"));
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
