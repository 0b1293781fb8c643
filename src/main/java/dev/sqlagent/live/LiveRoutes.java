package dev.sqlagent.live;

import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Live runs for browsers and other clients: the WebSocket {@code /ws} (JSON text frames, see
 * {@link LiveSocket}) and the SockJS event-bus bridge {@code /eventbus} (see {@link EventBridge}), both
 * behind the {@link OriginGuard}.
 *
 * <p>Access: the routes are {@link #WS_PATH} and {@link #BRIDGE_PATH}; an authentication handler routed on
 * those paths before {@link #mount} runs first. Browsers cannot put headers on a WebSocket, so the page
 * sends the API token as the {@code access_token} query parameter there (and as a bearer header on fetch).
 */
public final class LiveRoutes {

  public static final String WS_PATH = "/ws";
  public static final String BRIDGE_PATH = "/eventbus/*";
  /** The query parameter the page uses to carry the API token on /ws and /eventbus. */
  public static final String TOKEN_PARAM = "access_token";
  static final int BRIDGE_BODY_BYTES = 64 * 1024;

  private final Vertx vertx;
  private final WatchHub hub;
  private final long askTimeoutMs;
  private final boolean tokenConfigured;

  private LiveRoutes(Vertx vertx, JsonObject config) {
    this.vertx = vertx;
    this.hub = new WatchHub(vertx);
    this.askTimeoutMs = config.getLong("questionTimeoutMs", 180_000L) + 15_000L;
    this.tokenConfigured = config.getString("apiToken") != null;
  }

  public static void mount(Router router, Vertx vertx, JsonObject config) {
    LiveRoutes live = new LiveRoutes(vertx, config);
    OriginGuard origin = new OriginGuard(config);
    router.route(WS_PATH).handler(origin);
    router.get(WS_PATH).handler(live::upgrade);
    router.route(BRIDGE_PATH).handler(origin);
    // SockJS's fallback transports POST their frames (xhr_send, xhr, xhr_streaming): the bridge reads them
    // from the routing context's body, so those need a body handler (a frame is small).
    router.post(BRIDGE_PATH).handler(BodyHandler.create(false).setBodyLimit(BRIDGE_BODY_BYTES));
    router.route(BRIDGE_PATH).subRouter(EventBridge.router(vertx, config, live.askTimeoutMs, live::mayWatch));
  }

  private void upgrade(RoutingContext ctx) {
    if (!"websocket".equalsIgnoreCase(ctx.request().getHeader("Upgrade"))) {
      ctx.response().setStatusCode(400).putHeader("content-type", "application/json")
          .end(new JsonObject().put("ok", false).put("error_type", "bad_request")
              .put("message", "/ws is a WebSocket endpoint; connect with a WebSocket client").encode());
      return;
    }
    // With a users file every user may watch: their own runs, or every run for an admin (LiveSocket#watches).
    User user = Users.of(ctx);
    boolean mayWatch = user != null
        || mayWatch(ctx.request().remoteAddress() == null ? null : ctx.request().remoteAddress().hostAddress());
    ctx.request().toWebSocket()
        .onSuccess(ws -> new LiveSocket(vertx, ws, hub, mayWatch, askTimeoutMs, user).start())
        .onFailure(ctx::fail);
  }

  /** WebSocket clients connected to /ws right now, in this process (for metrics). */
  public static int openWebSockets() {
    return LiveSocket.OPEN.get();
  }

  /**
   * "Watch every run" shows other people's questions: without an API token (whose check then stands in
   * front of these routes) only clients on this machine may.
   */
  boolean mayWatch(String remoteHost) {
    if (tokenConfigured) return true;
    if (remoteHost == null) return false;
    try {
      // A literal address: parsed, never looked up.
      return InetAddress.getByName(remoteHost).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
