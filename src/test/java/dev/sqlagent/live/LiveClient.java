package dev.sqlagent.live;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A blocking test client of {@code /ws}: frames are queued as they arrive (handlers set in the connect callback). */
final class LiveClient implements AutoCloseable {

  final WebSocket ws;
  final LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
  final CompletableFuture<Short> closed = new CompletableFuture<>();

  private LiveClient(WebSocket ws) {
    this.ws = ws;
  }

  static LiveClient connect(Vertx vertx, int port) throws Exception {
    return connect(vertx, new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws"));
  }

  static LiveClient connect(Vertx vertx, WebSocketConnectOptions options) throws Exception {
    WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(1 << 20)
        .setMaxMessageSize(4 << 20));
    CompletableFuture<LiveClient> made = new CompletableFuture<>();
    client.connect(options).onSuccess(ws -> {
      LiveClient c = new LiveClient(ws);
      ws.textMessageHandler(t -> c.frames.add(new JsonObject(t)));
      // The SockJS raw transport writes the bridge's frames as binary messages.
      ws.binaryMessageHandler(b -> c.frames.add(new JsonObject(b)));
      ws.closeHandler(v -> c.closed.complete(ws.closeStatusCode()));
      made.complete(c);
    }).onFailure(made::completeExceptionally);
    return made.get(10, TimeUnit.SECONDS);
  }

  void send(JsonObject msg) {
    ws.writeTextMessage(msg.encode());
  }

  void sendText(String text) {
    ws.writeTextMessage(text);
  }

  JsonObject next(long seconds) throws InterruptedException {
    JsonObject f = frames.poll(seconds, TimeUnit.SECONDS);
    if (f == null) throw new AssertionError("no frame within " + seconds + " s");
    return f;
  }

  JsonObject next() throws InterruptedException {
    return next(20);
  }

  /** Frames up to and including the first that matches. */
  List<JsonObject> until(Predicate<JsonObject> last, long seconds) throws InterruptedException {
    List<JsonObject> out = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      long left = deadline - System.nanoTime();
      JsonObject f = frames.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
      if (f == null) throw new AssertionError("no matching frame within " + seconds + " s; got " + out);
      out.add(f);
      if (last.test(f)) return out;
    }
  }

  static Predicate<JsonObject> type(String type) {
    return f -> type.equals(f.getString("type"));
  }

  @Override
  public void close() {
    if (!ws.isClosed()) ws.close();
  }
}
