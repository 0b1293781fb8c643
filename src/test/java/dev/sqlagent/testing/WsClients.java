package dev.sqlagent.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClient;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WebSocket clients for tests, each kept reachable until its Vert.x instance closes it. Vert.x closes a client that
 * has become unreachable (a cleaner, after a garbage collection), and with it a socket that is still opening or in use:
 * a test that drops its client after {@code connect} fails now and then with "Connection closed while handshake in
 * process", at whatever moment the collector ran.
 */
public final class WsClients {

  private static final Set<WebSocketClient> KEPT = ConcurrentHashMap.newKeySet();

  private WsClients() {}

  /** A new client of {@code vertx}, never collected while the tests run. */
  public static WebSocketClient of(Vertx vertx) {
    WebSocketClient client = vertx.createWebSocketClient();
    KEPT.add(client);
    return client;
  }
}
