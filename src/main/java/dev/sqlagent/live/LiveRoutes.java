package dev.sqlagent.live;

import dev.sqlagent.access.AccessGuard;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * Live runs for browsers and other clients: the WebSocket {@code /ws} (JSON text frames, see
 * {@link LiveSocket}) and the SockJS event-bus bridge {@code /eventbus} (see {@link EventBridge}).
 *
 * <p>Access: the routes are {@link #WS_PATH} and {@link #BRIDGE_PATH}; the access guard, mounted before
 * {@link #mount}, checks the origin and the token there and decides who may watch every run
 * ({@link AccessGuard#mayWatchAll}). Browsers cannot put headers on a WebSocket, so the page sends the API
 * token as the {@code access_token} query parameter there (and as a bearer header on fetch).
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

  private LiveRoutes(Vertx vertx, AppConfig config) {
    this.vertx = vertx;
    this.hub = new WatchHub(vertx);
    this.askTimeoutMs = config.deadlines().askMs();
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    LiveRoutes live = new LiveRoutes(vertx, config);
    router.get(WS_PATH).handler(live::upgrade);
    // SockJS's fallback transports POST their frames (xhr_send, xhr, xhr_streaming): the bridge reads them
    // from the routing context's body, so those need a body handler (a frame is small).
    router.post(BRIDGE_PATH).handler(BodyHandler.create(false).setBodyLimit(BRIDGE_BODY_BYTES));
    // A session's later requests (xhr_send, the next poll) must come from the user who opened it.
    router.route(BRIDGE_PATH).handler(SessionOwners.of(vertx)::check);
    router.route(BRIDGE_PATH).subRouter(EventBridge.router(vertx, config, live.askTimeoutMs));
  }

  private void upgrade(RoutingContext ctx) {
    if (!"websocket".equalsIgnoreCase(ctx.request().getHeader("Upgrade"))) {
      JsonErrors.send(ctx, 400, "bad_request", "/ws is a WebSocket endpoint; connect with a WebSocket client");
      return;
    }
    // With a users file every user may watch: their own runs, or every run for an admin (LiveSocket#watches).
    User user = Users.of(ctx);
    boolean mayWatch = user != null || AccessGuard.mayWatchAll(ctx);
    ctx.request().toWebSocket()
        .onSuccess(ws -> new LiveSocket(vertx, ws, hub, mayWatch, askTimeoutMs, user, TrustedProxies.clientAddress(ctx))
            .start(ctx))
        .onFailure(ctx::fail);
  }

  /** WebSocket clients connected to /ws right now, in this process (for metrics). */
  public static int openWebSockets() {
    return LiveSocket.OPEN.get();
  }
}
