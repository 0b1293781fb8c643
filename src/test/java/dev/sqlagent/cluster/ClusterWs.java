package dev.sqlagent.cluster;

import dev.sqlagent.testing.WsClients;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A /ws client of the cluster tests: frames queue as they arrive; each run's events and answer are kept. */
final class ClusterWs {
  final WebSocket ws;
  final LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
  final Map<String, List<JsonObject>> eventsByRun = new ConcurrentHashMap<>();
  final Map<String, JsonObject> answers = new ConcurrentHashMap<>();
  final CompletableFuture<Boolean> closed = new CompletableFuture<>();

  private ClusterWs(WebSocket ws) {
    this.ws = ws;
  }

  /** Connects to an edge's /ws; a node that has only just started may refuse once, so up to 3 tries. */
  static ClusterWs connect(Vertx vertx, int port) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return connectOnce(vertx, port);
      } catch (Exception e) {
        if (attempt == 3) throw e;
        Thread.sleep(500);
      }
    }
  }

  private static ClusterWs connectOnce(Vertx vertx, int port) throws Exception {
    CompletableFuture<ClusterWs> made = new CompletableFuture<>();
    WsClients.of(vertx).connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws"))
        .onSuccess(ws -> {
          ClusterWs c = new ClusterWs(ws);
          ws.textMessageHandler(t -> {
            JsonObject f = new JsonObject(t);
            if ("event".equals(f.getString("type"))) {
              List<JsonObject> events = c.eventsByRun.computeIfAbsent(f.getString("run_id"), k -> new ArrayList<>());
              synchronized (events) {
                events.add(f);
              }
            }
            if ("answer".equals(f.getString("type"))) c.answers.put(f.getString("run_id"), f);
            c.frames.add(f);
          });
          ws.closeHandler(v -> c.closed.complete(true));
          ws.exceptionHandler(e -> c.closed.complete(true));
          made.complete(c);
        })
        .onFailure(made::completeExceptionally);
    return made.get(10, TimeUnit.SECONDS);
  }

  void send(JsonObject msg) {
    ws.writeTextMessage(msg.encode());
  }

  /** Frames up to and including the first that matches. */
  List<JsonObject> until(Predicate<JsonObject> last, long seconds) throws InterruptedException {
    List<JsonObject> out = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      JsonObject f = frames.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (f == null) throw new AssertionError("no matching frame within " + seconds + " s; got " + out);
      out.add(f);
      if (last.test(f)) return out;
    }
  }

  /** The run's events received so far, in the order they came. */
  List<JsonObject> events(String runId) {
    List<JsonObject> e = eventsByRun.get(runId);
    if (e == null) return List.of();
    synchronized (e) {
      return List.copyOf(e);
    }
  }

  /** The seq of each of the run's events received so far. */
  List<Long> seqs(String runId) {
    return events(runId).stream().map(f -> f.getLong("seq")).toList();
  }

  /** Whether the run's answer arrives within {@code seconds}. */
  boolean answered(String runId, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!answers.containsKey(runId) && System.nanoTime() < deadline) Thread.sleep(20);
    return answers.containsKey(runId);
  }

  void close() {
    if (!ws.isClosed()) ws.close();
  }
}
