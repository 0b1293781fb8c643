package dev.sqlagent.live;

import dev.sqlagent.access.TokenExpiry;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.AgentClient;
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
import dev.sqlagent.intake.Door;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.intake.Owner;
import dev.sqlagent.intake.Taken;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SockJS event-bus bridge at {@code /eventbus}. Deny-all, then exactly: out, the event addresses
 * ({@code sqlagent.events} and {@code sqlagent.events.<run_id>}); in, {@code sqlagent.agent.ask} by
 * request only, through the {@link Intake} (its {@code source} "eventbus", its user the socket's), and the cancels and
 * reruns of runs. Replies to a client's own requests always pass.
 */
final class EventBridge {

  private static final Logger LOG = LoggerFactory.getLogger(EventBridge.class);

  /** The per-run event addresses, exactly as the agent accepts run ids. */
  static final String RUN_EVENTS_REGEX = Pattern.quote(Addresses.EVENTS + ".") + AskRules.RUN_ID_REGEX;

  private EventBridge() {}

  static Router router(Vertx vertx, AppConfig config, long askTimeoutMs) {
    SockJSBridgeOptions options = new SockJSBridgeOptions()
        .addOutboundPermitted(new PermittedOptions().setAddress(Addresses.EVENTS))
        .addOutboundPermitted(new PermittedOptions().setAddressRegex(RUN_EVENTS_REGEX))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.ASK))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.CANCEL))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.RERUN))
        .addInboundPermitted(new PermittedOptions().setAddress(Addresses.BRIDGE_REFUSED))
        .setReplyTimeout(askTimeoutMs)
        .setMaxHandlersPerSocket(64);
    SockJSHandlerOptions sockjs = new SockJSHandlerOptions().setRegisterWriteHandler(false).setInsertJSESSIONID(false);
    config.allowedOrigin().ifPresent(sockjs::setOrigin);
    Users users = config.users();
    boolean identityRequired = config.identityRequired();
    Map<SockJSSocket, Owner> asked = new ConcurrentHashMap<>();
    Map<SockJSSocket, Long> expiries = new ConcurrentHashMap<>();
    AgentClient agent = new AgentClient(vertx, askTimeoutMs);
    Intake intake = new Intake(agent);
    SessionOwners sessions = SessionOwners.of(vertx);
    vertx.eventBus().localConsumer(Addresses.BRIDGE_REFUSED, m -> m.fail(m.headers().get(REFUSAL_CODE) != null
            ? Integer.parseInt(m.headers().get(REFUSAL_CODE)) : BusFailure.BAD_REQUEST.code(),
        m.headers().get(REFUSAL) != null ? m.headers().get(REFUSAL) : "nothing is asked at " + Addresses.BRIDGE_REFUSED));
    return SockJSHandler.create(vertx, sockjs).bridge(options,
        ev -> {
          expire(vertx, ev, expiries);
          User user = identityRequired ? userOf(ev.socket(), users) : null;
          if (ev.type() == BridgeEventType.SOCKET_CREATED) sessions.opened(ev.socket(), user);
          if (ev.type() == BridgeEventType.SOCKET_CLOSED) sessions.closed(ev.socket(), user);
          // The socket as the intake knows it: made when it first asks, let go when it closes.
          Owner owner = ev.type() == BridgeEventType.SOCKET_CLOSED ? asked.remove(ev.socket())
              : ev.type() == BridgeEventType.SEND ? asked.computeIfAbsent(ev.socket(), s -> intake.owner(user)) : null;
          handle(vertx, agent, ev, user, owner, intake);
        });
  }

  /** The header that carries a refusal's message to {@link Addresses#BRIDGE_REFUSED}. */
  static final String REFUSAL = "refusal";
  /** The header that carries a refusal's bus failure code when it is not a bad request (a budget spent). */
  static final String REFUSAL_CODE = "refusal_code";

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

  /** @param owner the socket as the intake knows it, on a send and a close; null otherwise */
  private static void handle(Vertx vertx, AgentClient agent, BridgeEvent ev, User user, Owner owner, Intake intake) {
    BridgeEventType type = ev.type();
    JsonObject raw = ev.getRawMessage();
    switch (type) {
      case SOCKET_CLOSED:
        // The runs this socket asked are not wanted any more (a run already answered ignores the stop).
        if (owner != null) owner.gone();
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
          owner.hold(newId);
          ev.setRawMessage(raw.copy().put("body", rerun));
          ev.complete(true);
          return;
        }
        if (!Addresses.ASK.equals(raw.getString("address"))) {
          ev.complete(true);  // refused by the bridge's permissions
          return;
        }
        // Only what a person may ask passes; the source is the bridge and the user the socket's, whatever the client
        // claims. A run id only a string names (else the intake names one).
        JsonObject fields = body.copy();
        if (!(fields.getValue("run_id") instanceof String)) fields.remove("run_id");
        Taken taken = intake.take(fields, new Door("eventbus", user, clientOf(ev.socket())), owner);
        if (taken.refused()) {
          // Answered as the agent answers a bad request: a failed reply, 400 and the refusal's message.
          ev.setRawMessage(raw.copy().put("address", Addresses.BRIDGE_REFUSED).put("body", new JsonObject())
              .put("headers", new JsonObject().put(REFUSAL, taken.refusal().message())));
          ev.complete(true);
          return;
        }
        // Within the asker's budgets, or refused as every door refuses: the same body, as the failed reply's message.
        intake.admit(taken).onComplete(admitted -> {
          if (admitted.succeeded()) {
            ev.setRawMessage(raw.copy().put("body", taken.request().toJson()));
          } else {
            owner.release(taken.runId());
            BusError over = BusError.of(admitted.cause(), "the budgets");
            ev.setRawMessage(raw.copy().put("address", Addresses.BRIDGE_REFUSED).put("body", new JsonObject())
                .put("headers", new JsonObject().put(REFUSAL, over.toJson().encode())
                    .put(REFUSAL_CODE, String.valueOf(over.failure().code()))));
          }
          ev.complete(true);
        });
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
