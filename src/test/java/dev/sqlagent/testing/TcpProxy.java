package dev.sqlagent.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP forwarder in front of the real database, so a test can make the database unreachable for
 * one client (cut: every connection closed, new ones refused) without stopping the server the rest of the
 * suite shares, or far away (every reply held a while: round trips become long enough to count by the clock).
 */
public final class TcpProxy {

  private final Vertx vertx;
  private final NetServer server;
  private final NetClient client;
  private final Set<NetSocket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean open = true;
  private volatile boolean stalled;
  private volatile long replyDelayMs;

  private TcpProxy(Vertx vertx, NetServer server, NetClient client) {
    this.vertx = vertx;
    this.server = server;
    this.client = client;
  }

  public static Future<TcpProxy> start(Vertx vertx, String targetHost, int targetPort) {
    NetClient client = vertx.createNetClient();
    NetServer server = vertx.createNetServer();
    TcpProxy proxy = new TcpProxy(vertx, server, client);
    server.connectHandler(in -> proxy.accept(in, targetHost, targetPort));
    return server.listen(0, "127.0.0.1").map(s -> proxy);
  }

  private void accept(NetSocket in, String host, int port) {
    if (!open) {
      in.close();
      return;
    }
    if (stalled) {
      // Accepted, then silence: a server that hangs rather than refuses.
      sockets.add(in);
      in.handler(b -> { });
      return;
    }
    in.pause();
    client.connect(port, host).onSuccess(out -> {
      sockets.add(in);
      sockets.add(out);
      in.closeHandler(v -> {
        sockets.remove(in);
        out.close();
      });
      out.closeHandler(v -> {
        sockets.remove(out);
        in.close();
      });
      in.handler(out::write);
      out.handler(reply -> {
        // Timers of one delay fire in the order they were set: the replies keep their order.
        long delay = replyDelayMs;
        if (delay <= 0) in.write(reply);
        else vertx.setTimer(delay, t -> in.write(reply));
      });
      in.resume();
    }).onFailure(e -> in.close());
  }

  public int port() {
    return server.actualPort();
  }

  /** Holds every reply from the database {@code ms} before passing it on (0: none). */
  public void delayReplies(long ms) {
    replyDelayMs = ms;
  }

  /** The database is gone, as far as clients of this proxy can tell. */
  public void cut() {
    open = false;
    sockets.forEach(NetSocket::close);
  }

  /** The database hangs: connections are accepted and never answered. */
  public void stall() {
    stalled = true;
    sockets.forEach(NetSocket::close);
  }

  public void restore() {
    open = true;
    stalled = false;
  }

  public Future<Void> close() {
    cut();
    return server.close().compose(v -> client.close());
  }
}
