package dev.sqlagent.live;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How many watchers, at what event rate: N WebSocket clients on loopback each send {@code watch}, then
 * synthetic GraphEvents (the size of real ones) are published on {@code sqlagent.events} at a fixed rate
 * for a fixed time. Every watcher must get every event, in order; the table shows delivered frames per
 * second, latency from publish to receipt, and any watcher dropped as too slow. Measures, asserts nothing
 * about time. Server and clients share this machine's 2 cores.
 *
 * <p>{@code mvn -B test -Dtest=WebSocketWatchBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class WebSocketWatchBenchmark {

  static final int[] WATCHERS = {1, 100, 1_000};
  static final int[][] RATES = {{100, 1_000, 5_000}, {50, 200, 500}, {10, 20, 50}};
  static final int HTTP_INSTANCES = Integer.getInteger("bench.httpInstances", 1);
  static final int SECONDS = 4;

  @Test
  void watchersAndEventRate() throws Exception {
    Vertx server = Vertx.vertx();
    Vertx clients = Vertx.vertx();
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "%-9s %-10s %-9s %-12s %-14s %-9s %-9s %-9s %s",
        "watchers", "events/s", "events", "received", "frames/s", "p50 ms", "p99 ms", "max ms", "dropped/incomplete"));
    try {
      int port;
      try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
        port = free.getLocalPort();
      }
      dev.sqlagent.config.AppConfig config = dev.sqlagent.config.AppConfig.load(java.util.Map.of("SQLAGENT_HTTP_PORT", String.valueOf(port)));
      server.deployVerticle(() -> new HttpVerticle(config), new DeploymentOptions().setInstances(HTTP_INSTANCES))
          .await(30, TimeUnit.SECONDS);
      for (int w = 0; w < WATCHERS.length; w++) {
        int n = WATCHERS[w];
        for (int rate : RATES[w]) {
          lines.add(round(server, clients, port, n, rate));
          System.out.println(lines.get(lines.size() - 1));
        }
      }
    } finally {
      clients.close().await(30, TimeUnit.SECONDS);
      server.close().await(30, TimeUnit.SECONDS);
    }
    String report = "WebSocket watch fan-out (loopback, " + Runtime.getRuntime().availableProcessors() + " cores, "
        + SECONDS + " s per round; an event is ~" + event("x", 1).encode().length() + " bytes)\n" + String.join("\n", lines) + "\n";
    System.out.println(report);
    Path out = Path.of("target", "benchmarks", "websocket-watch.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
  }

  /** One round: n watchers connect and watch, rate events/s for SECONDS, then count. */
  private static String round(Vertx server, Vertx clients, int port, int n, int rate) throws Exception {
    String runId = "bench-" + n + "-" + rate;
    int total = rate * SECONDS;
    AtomicLongArray latencyBuckets = new AtomicLongArray(10_001);   // ms, last bucket = 10 s or more
    AtomicInteger complete = new AtomicInteger();
    AtomicInteger outOfOrder = new AtomicInteger();
    AtomicInteger dropped = new AtomicInteger();
    AtomicInteger watching = new AtomicInteger();
    long[] received = new long[1];
    AtomicLongArray perClient = new AtomicLongArray(n);
    WebSocketClient client = clients.createWebSocketClient(new WebSocketClientOptions().setMaxConnections(n + 10));
    List<Future<WebSocket>> sockets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int id = i;
      long[] expected = {1};
      sockets.add(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws"))
          .onSuccess(ws -> {
            ws.textMessageHandler(text -> {
              // Cheap field reads: the clients share the 2 cores with the server being measured.
              if (text.startsWith("{\"type\":\"watching\"")) {
                watching.incrementAndGet();
                return;
              }
              if (!text.contains(runId)) return;
              long seq = number(text, "\"seq\":");
              if (seq != expected[0]) outOfOrder.incrementAndGet();
              expected[0] = seq + 1;
              perClient.incrementAndGet(id);
              long ms = Math.max(0, System.currentTimeMillis() - number(text, "\"ts\":"));
              latencyBuckets.incrementAndGet((int) Math.min(10_000, ms));
              if (seq == total) complete.incrementAndGet();
            });
            ws.closeHandler(v -> {
              if (ws.closeStatusCode() != null && ws.closeStatusCode() == LiveSocket.SLOW_CLIENT) dropped.incrementAndGet();
            });
            ws.writeTextMessage("{\"type\":\"watch\"}");
          }));
      if (i % 100 == 99) Future.all(sockets.subList(i - 99, i + 1)).await(30, TimeUnit.SECONDS);
    }
    Future.all(sockets).await(60, TimeUnit.SECONDS);
    long waitUntil = System.currentTimeMillis() + 30_000;
    while (watching.get() < n && System.currentTimeMillis() < waitUntil) Thread.sleep(20);

    // Publish on the server's Vert.x in 10 ms ticks.
    int perTick = Math.max(1, rate / 100);
    long[] seq = {0};
    long started = System.currentTimeMillis();
    long timer = server.setPeriodic(10, t -> {
      for (int k = 0; k < perTick && seq[0] < total; k++) {
        server.eventBus().publish(Addresses.EVENTS, event(runId, ++seq[0]));
      }
    });
    long deadline = started + SECONDS * 1_000L + 30_000;
    while (complete.get() + dropped.get() < n && System.currentTimeMillis() < deadline) Thread.sleep(20);
    long elapsed = System.currentTimeMillis() - started;
    server.cancelTimer(timer);
    for (int i = 0; i < n; i++) received[0] += perClient.get(i);
    for (Future<WebSocket> s : sockets) {
      if (s.succeeded()) s.result().close();
    }
    client.close().await(30, TimeUnit.SECONDS);
    Thread.sleep(500);

    return String.format(Locale.ROOT, "%-9d %-10d %-9d %-12d %-14.0f %-9d %-9d %-9d %d/%d%s",
        n, rate, total, received[0], received[0] * 1000.0 / Math.max(1, elapsed),
        percentile(latencyBuckets, 0.50), percentile(latencyBuckets, 0.99), percentile(latencyBuckets, 1.0),
        dropped.get(), n - complete.get() - dropped.get(), outOfOrder.get() > 0 ? " (out of order: " + outOfOrder.get() + ")" : "");
  }

  /** The size and shape of a real execute_sql event. */
  static JsonObject event(String runId, long seq) {
    return new JsonObject().put("run_id", runId).put("seq", seq).put("ts", System.currentTimeMillis())
        .put("node", "execute_sql").put("status", "finished").put("attempt", 1).put("kind", "tool")
        .put("data", new JsonObject().put("sql", "SELECT s.name AS store, sum(b.total) AS revenue FROM bills b JOIN stores s ON s.id = b.store_id GROUP BY 1 ORDER BY 2 DESC LIMIT 200")
            .put("row_count", 12).put("truncated", false).put("elapsed_ms", 4));
  }

  private static long number(String json, String key) {
    int i = json.indexOf(key) + key.length();
    long v = 0;
    while (i < json.length() && Character.isDigit(json.charAt(i))) v = v * 10 + (json.charAt(i++) - '0');
    return v;
  }

  private static long percentile(AtomicLongArray buckets, double p) {
    long count = 0;
    for (int i = 0; i < buckets.length(); i++) count += buckets.get(i);
    if (count == 0) return -1;
    long target = (long) Math.ceil(p * count);
    long seen = 0;
    for (int i = 0; i < buckets.length(); i++) {
      seen += buckets.get(i);
      if (seen >= target) return i;
    }
    return buckets.length() - 1;
  }
}
