package dev.sqlagent.web;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes HTTP connections that hold a slot without doing anything: a connection that has not sent a whole
 * request head within {@code headerMs} (nothing at all, or headers dribbled in), a request whose body has
 * not arrived within {@code idleMs} of its head (a short body), and a keep-alive connection with no new
 * request for {@code idleMs}. A request the service is still answering (a question can take minutes, an
 * event stream lasts) is never cut; WebSockets are left to their own rules (pings, the 1 MiB unread limit).
 * Vert.x's own idle timeout cannot tell a slow client from a slow answer, so it is not used.
 *
 * <p>One instance per HTTP verticle instance; a connection's handlers all run on that instance's event loop.
 */
final class ConnectionTimeouts {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionTimeouts.class);

  private final Vertx vertx;
  private final long headerMs;
  private final long idleMs;
  private final long tickMs;
  private final Map<HttpConnection, Watch> watched = new HashMap<>();

  ConnectionTimeouts(Vertx vertx, long headerMs, long idleMs) {
    this.vertx = vertx;
    this.headerMs = headerMs;
    this.idleMs = idleMs;
    this.tickMs = Math.max(100, Math.min(headerMs, idleMs) / 4);
  }

  /** A new connection: the clock for its first request head starts now. */
  void connected(HttpConnection conn) {
    Watch w = new Watch(conn, System.currentTimeMillis());
    watched.put(conn, w);
    w.timer = vertx.setPeriodic(tickMs, t -> w.tick());
    conn.closeHandler(v -> w.stop());
  }

  /** A request head arrived on its connection. */
  void request(HttpServerRequest req) {
    Watch w = watched.get(req.connection());
    if (w == null) return;
    String upgrade = req.getHeader(HttpHeaders.UPGRADE);
    if (upgrade != null && upgrade.equalsIgnoreCase("websocket")) {
      w.stop();
      return;
    }
    w.current = req;
    w.headAt = System.currentTimeMillis();
    w.lastBusy = w.headAt;
  }

  private final class Watch {
    final HttpConnection conn;
    final long openedAt;
    long timer = -1;
    HttpServerRequest current;
    long headAt;
    long lastBusy;

    Watch(HttpConnection conn, long openedAt) {
      this.conn = conn;
      this.openedAt = openedAt;
    }

    void tick() {
      long now = System.currentTimeMillis();
      if (current == null) {
        if (now - openedAt > headerMs) close("no complete request head within " + headerMs + " ms");
      } else if (!current.isEnded()) {
        if (now - headAt > idleMs) close("request body not received within " + idleMs + " ms");
      } else if (!current.response().ended() && !current.response().closed()) {
        lastBusy = now;  // the service is still answering
      } else if (now - lastBusy > idleMs) {
        close("idle for " + idleMs + " ms");
      }
    }

    void close(String why) {
      LOG.info("closing HTTP connection from {}: {}", conn.remoteAddress(), why);
      stop();
      conn.close();
    }

    void stop() {
      if (timer >= 0) vertx.cancelTimer(timer);
      timer = -1;
      watched.remove(conn);
    }
  }
}
