package dev.sqlagent.live;

import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who opened each SockJS session of the bridge. SockJS's fallback transports name a session in the path
 * ({@code /eventbus/<server>/<session>/<transport>}), and every request that names it acts as the user who opened
 * it: so with users, every request of a session must come from that user, or it is refused (403, logged) before
 * SockJS sees it. One table per Vert.x instance, as SockJS's own session table.
 */
final class SessionOwners implements Shareable {

  private static final Logger LOG = LoggerFactory.getLogger(SessionOwners.class);

  /** SockJS's own shape of a session path: no '/' nor '.' in the server or session id. */
  private static final Pattern SESSION_PATH = Pattern.compile("^/eventbus/[^/.]+/([^/.]+)/([a-z_]+)$");
  /** A WebSocket transport's session is its connection alone: nobody else can send into it. */
  private static final String WEBSOCKET = "websocket";

  private final Map<String, String> owners = new ConcurrentHashMap<>();

  static SessionOwners of(Vertx vertx) {
    return (SessionOwners) vertx.sharedData().<String, SessionOwners>getLocalMap("sqlagent.live")
        .computeIfAbsent("sockjs-owners", k -> new SessionOwners());
  }

  /** The route handler: a request naming another user's session is refused. */
  void check(RoutingContext ctx) {
    User user = Users.of(ctx);
    Matcher m = SESSION_PATH.matcher(ctx.normalizedPath());
    if (user == null || !m.matches()) {
      ctx.next();
      return;
    }
    String session = m.group(1);
    String owner = owners.get(session);
    if (owner != null && !owner.equals(user.name())) {
      LOG.warn("refused: user {} reached for the SockJS session of user {} ({} {} from {})", user.name(), owner,
          ctx.request().method(), m.group(2), ctx.request().remoteAddress());
      JsonErrors.send(ctx, 403, "forbidden", "this SockJS session was opened by another user; open your own");
      return;
    }
    ctx.next();
  }

  /** A session opened: it belongs to the user of the request that opened it. */
  void opened(SockJSSocket socket, User user) {
    String session = sessionOf(socket);
    if (session != null && user != null) owners.putIfAbsent(session, user.name());
  }

  void closed(SockJSSocket socket, User user) {
    String session = sessionOf(socket);
    if (session != null && user != null) owners.remove(session, user.name());
  }

  /** The id of a session that other requests can name; null for a WebSocket's. */
  private static String sessionOf(SockJSSocket socket) {
    RoutingContext opened = socket.routingContext();
    if (opened == null) return null;
    Matcher m = SESSION_PATH.matcher(opened.normalizedPath());
    return m.matches() && !WEBSOCKET.equals(m.group(2)) ? m.group(1) : null;
  }

  /** Sessions with an owner right now (for tests). */
  int size() {
    return owners.size();
  }
}
