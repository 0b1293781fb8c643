package dev.sqlagent.live;

import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.testing.RunningService;
import static dev.sqlagent.live.LiveClient.type;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The /ws protocol from a Java client against the running service. */
class WebSocketProtocolTest {

  static RunningService service;
  static Vertx vertx;
  static FakeModelServer model;
  static int port;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS n FROM customers").streamedIn(3));
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    port = service.port();
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
  }

  static JsonObject ask(String question) {
    return new JsonObject().put("type", "ask").put("question", question).put("mode", "agent");
  }

  /** Events of one run, in the order received, with their seqs checked to be exactly 1..n. */
  static List<JsonObject> assertComplete(List<JsonObject> frames, String runId) {
    List<JsonObject> events = frames.stream().filter(type("event")).filter(f -> runId.equals(f.getString("run_id"))).toList();
    assertThat(events).isNotEmpty();
    for (int i = 0; i < events.size(); i++) {
      assertThat(events.get(i).getLong("seq")).as("seq of event %d", i).isEqualTo(i + 1L);
      assertThat(events.get(i).fieldNames()).contains("run_id", "seq", "ts", "node", "status", "attempt", "kind", "data");
    }
    return events;
  }

  @Test
  void askStreamsTheRunsEventsInOrderThenItsAnswer() throws Exception {
    try (LiveClient c = LiveClient.connect(vertx, port)) {
      c.send(ask("How many customers are there?"));
      JsonObject accepted = c.next();
      assertThat(accepted.getString("type")).isEqualTo("accepted");
      String runId = accepted.getString("run_id");
      assertThat(runId).matches("[0-9a-f-]{36}");
      List<JsonObject> frames = c.until(type("answer"), 60);
      List<JsonObject> events = assertComplete(frames, runId);
      assertThat(events.get(0).getString("node")).isEqualTo("select_schema");
      assertThat(events.get(0).getString("status")).isEqualTo("started");
      JsonObject answer = frames.get(frames.size() - 1);
      assertThat(answer.getString("run_id")).isEqualTo(runId);
      assertThat(answer.getString("question")).isEqualTo("How many customers are there?");
      assertThat(answer.getString("source")).isEqualTo("ws");
      assertThat(answer.fieldNames()).contains("answer", "sql", "attempts", "history", "gave_up", "refused");
      JsonObject last = events.get(events.size() - 1);
      assertThat(last.getString("node")).isEqualTo("answer");
      assertThat(answer.getBoolean("gave_up")).isFalse();
      assertThat(answer.getString("sql")).contains("FROM customers");
      assertThat(answer.getJsonArray("rows").getJsonArray(0).getValue(0)).isNotNull();
      assertThat(events.stream().map(e -> e.getString("node") + ":" + e.getString("status")).toList())
          .contains("generate_sql:progress", "validate_sql:finished", "execute_sql:finished");

      // Then what the SQL does, in words: explain_sql, after the answer frame (it is off the answer's path).
      JsonObject explained = c.next();
      assertThat(explained.getString("node")).isEqualTo("explain_sql");
      assertThat(explained.getLong("seq")).isEqualTo(events.size() + 1L);
      events = new java.util.ArrayList<>(events);
      events.add(explained);

      // The HTTP view of the same run holds the same events.
      var resp = WebClient.create(vertx).get(port, "127.0.0.1", "/api/runs/" + runId + "/events")
          .as(BodyCodec.jsonObject()).send().await(10, TimeUnit.SECONDS);
      JsonArray stored = resp.body().getJsonArray("events");
      assertThat(stored.size()).isEqualTo(events.size());
      for (int i = 0; i < events.size(); i++) {
        JsonObject sent = events.get(i).copy();
        sent.remove("type");
        assertThat(sent).isEqualTo(stored.getJsonObject(i));
      }
    }
  }

  @Test
  void openSocketsAreCountedInTheMetrics() throws Exception {
    // The gauge follows the sockets the server holds (sockets of earlier tests may still be closing).
    try (LiveClient a = LiveClient.connect(vertx, port); LiveClient b = LiveClient.connect(vertx, port)) {
      awaitGaugeMatchesOpenSockets();
      assertThat(liveClients()).isGreaterThanOrEqualTo(2);
    }
    awaitGaugeMatchesOpenSockets();
  }

  private static double liveClients() throws Exception {
    String text = vertx.eventBus().<String>request(dev.sqlagent.bus.Addresses.METRICS_SCRAPE, new io.vertx.core.json.JsonObject())
        .await(10, java.util.concurrent.TimeUnit.SECONDS).body();
    return text.lines().filter(l -> l.startsWith("sqlagent_live_clients") && l.contains("transport=\"ws\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  private static void awaitGaugeMatchesOpenSockets() throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    while (liveClients() != LiveRoutes.openWebSockets()) {
      if (System.currentTimeMillis() > deadline) {
        assertThat(liveClients()).as("sqlagent_live_clients{transport=ws}").isEqualTo((double) LiveRoutes.openWebSockets());
      }
      Thread.sleep(50);
    }
  }

  @Test
  void watchStreamsEveryRun() throws Exception {
    try (LiveClient watcher = LiveClient.connect(vertx, port); LiveClient asker = LiveClient.connect(vertx, port)) {
      watcher.send(new JsonObject().put("type", "watch"));
      assertThat(watcher.next()).isEqualTo(new JsonObject().put("type", "watching").put("watching", true));
      asker.send(ask("Which store sold the most in 2025?"));
      String runId = asker.next().getString("run_id");
      List<JsonObject> asked = asker.until(type("answer"), 60);
      List<JsonObject> seen = watcher.until(f -> "answer".equals(f.getString("type")) && runId.equals(f.getString("run_id")), 60);
      assertThat(assertComplete(seen, runId)).hasSameSizeAs(assertComplete(asked, runId));

      watcher.send(new JsonObject().put("type", "unwatch"));
      // The run's explain_sql event may come after its answer, before the reply to unwatch.
      assertThat(watcher.until(type("watching"), 20)).last().satisfies(f -> assertThat(f.getBoolean("watching")).isFalse());
      asker.send(ask("How many stores are there?"));
      asker.until(type("answer"), 60);
      assertThat(watcher.frames.poll(300, TimeUnit.MILLISECONDS)).as("no events after unwatch").isNull();
    }
  }

  @Test
  void replaySendsTheEventsAClientMissed() throws Exception {
    String runId;
    int total;
    try (LiveClient c = LiveClient.connect(vertx, port)) {
      c.send(ask("How many products are there?"));
      runId = c.next().getString("run_id");
      // Every event of the run: explain_sql is its last, after the answer.
      total = assertComplete(c.until(f -> "explain_sql".equals(f.getString("node")), 60), runId).size();
    }
    try (LiveClient late = LiveClient.connect(vertx, port)) {
      late.send(new JsonObject().put("type", "replay").put("run_id", runId).put("after_seq", 1));
      List<JsonObject> frames = late.until(type("replay_end"), 20);
      List<JsonObject> events = frames.stream().filter(type("event")).toList();
      assertThat(events).hasSize(total - 1);
      for (int i = 0; i < events.size(); i++) assertThat(events.get(i).getLong("seq")).isEqualTo(i + 2L);
      assertThat(frames.get(frames.size() - 1).getInteger("count")).isEqualTo(total - 1);

      late.send(new JsonObject().put("type", "replay").put("run_id", "00000000-0000-0000-0000-000000000000"));
      JsonObject err = late.next();
      assertThat(err.getString("type")).isEqualTo("error");
      assertThat(err.getString("message")).contains("no run");
    }
  }

  @Test
  void badMessagesGetAnErrorAndTheSocketStaysOpen() throws Exception {
    try (LiveClient c = LiveClient.connect(vertx, port)) {
      c.sendText("hello");
      assertThat(c.next().getString("message")).contains("JSON objects");
      c.sendText("[1,2,3]");
      assertThat(c.next().getString("message")).contains("JSON objects");
      c.send(new JsonObject().put("type", "dance"));
      assertThat(c.next().getString("message")).contains("unknown message type 'dance'");
      c.send(new JsonObject().put("type", "ask"));
      assertThat(c.next().getString("message")).contains("question must be a non-empty string");
      c.send(ask("x").put("mode", "fast"));
      assertThat(c.next().getString("message")).contains("mode must be");
      c.send(ask("x".repeat(2_001)));
      assertThat(c.next().getString("message")).contains("limit is 2000");
      c.send(new JsonObject().put("type", "replay").put("run_id", "../etc"));
      assertThat(c.next().getString("message")).contains("run_id");
      c.send(new JsonObject().put("type", "replay").put("run_id", "abcdefgh-1").put("after_seq", -1));
      assertThat(c.next().getString("message")).contains("after_seq");
      c.sendText("{\"type\":\"ask\",\"question\":\"" + "y".repeat(17_000) + "\"}");
      assertThat(c.next().getString("message")).contains("too long");
      c.ws.writeBinaryMessage(io.vertx.core.buffer.Buffer.buffer("bin"));
      assertThat(c.next().getString("message")).contains("binary");
      assertThat(c.ws.isClosed()).isFalse();

      c.send(ask("How many customers are there?"));
      assertThat(c.next().getString("type")).isEqualTo("accepted");
      assertThat(c.until(type("answer"), 60)).isNotEmpty();
    }
  }

  @Test
  void aClientLeavingMidRunDisturbsNothingAndLeaksNoConsumer() throws Exception {
    Map<String, CompletableFuture<JsonObject>> answered = new java.util.concurrent.ConcurrentHashMap<>();
    MessageConsumer<JsonObject> answers = vertx.eventBus().consumer(Addresses.ANSWERS,
        m -> answered.computeIfAbsent(m.body().getString("run_id"), k -> new CompletableFuture<>()).complete(m.body()));
    answers.completion().await(5, TimeUnit.SECONDS);
    String runId;
    // The model takes its time, so the client is gone while the run waits for it.
    model.enqueue(Reply.sql("SELECT count(*) AS n FROM bills WHERE status = 'PAID'").delayed(1_500));
    try (LiveClient c = LiveClient.connect(vertx, port)) {
      c.send(ask("How many bills were paid?"));
      runId = c.next().getString("run_id");
      c.until(f -> "generate_sql".equals(f.getString("node")), 30);
    } // closed while the model is still thinking
    JsonObject answer = answered.computeIfAbsent(runId, k -> new CompletableFuture<>()).get(60, TimeUnit.SECONDS);
    answers.unregister();
    assertThat(answer.getString("run_id")).isEqualTo(runId);

    assertThat(answer.getInteger("attempts")).isEqualTo(1);
    assertThat(answer.getJsonArray("history").encode()).doesNotContain("model_");

    // Nobody listens on the run's address any more: a request to it finds no handler. (The close reaches
    // the server asynchronously, so this looks a few times.)
    ReplyFailure failure = null;
    for (int i = 0; i < 50 && failure != ReplyFailure.NO_HANDLERS; i++) {
      Throwable err = vertx.eventBus().request(Addresses.events(runId), new JsonObject(), new DeliveryOptions().setSendTimeout(100))
          .map(m -> (Throwable) null).otherwise(t -> t).await(5, TimeUnit.SECONDS);
      failure = err instanceof ReplyException re ? re.failureType() : null;
    }
    assertThat(failure).isEqualTo(ReplyFailure.NO_HANDLERS);
    for (int i = 0; i < 50 && LiveRoutes.openWebSockets() > 0; i++) Thread.sleep(50);
    assertThat(LiveRoutes.openWebSockets()).as("sockets counted as open").isZero();

    // And the service still answers other clients.
    try (LiveClient c = LiveClient.connect(vertx, port)) {
      c.send(ask("How many stores are there?"));
      assertThat(c.until(type("answer"), 60)).isNotEmpty();
    }
  }

  @Test
  void aSlowWatcherIsDroppedWith1013() throws Exception {
    Vertx clients = Vertx.vertx();   // the clients' reading does not share event loops with the server's writing
    try (LiveClient slow = LiveClient.connect(clients, port); LiveClient fast = LiveClient.connect(clients, port)) {
      slow.send(new JsonObject().put("type", "watch"));
      assertThat(slow.next().getString("type")).isEqualTo("watching");
      fast.send(new JsonObject().put("type", "watch"));
      assertThat(fast.next().getString("type")).isEqualTo("watching");
      slow.ws.pause(); // stops reading: the server's write queue to it fills up
      String padding = "x".repeat(4_000);
      String runId = "synthetic-slow-0001";
      // 4 MB: the unread limit is 1 MiB, counted from pongs, not from the kernel's socket buffers (issue 17).
      for (int i = 1; i <= 1_000 && !slow.closed.isDone(); i++) {
        vertx.eventBus().publish(Addresses.EVENTS, new GraphEvent(runId, i, System.currentTimeMillis(), "synthetic",
            GraphEvent.PROGRESS, 1, "generation", new JsonObject().put("delta", padding), null, null).toJson());
        if (i % 5 == 0) Thread.sleep(5);
      }
      slow.ws.resume();
      assertThat(slow.closed.get(30, TimeUnit.SECONDS)).isEqualTo((short) 1013);
      // The reader that kept up got everything, in order.
      long expected = 1;
      while (true) {
        JsonObject f = fast.frames.poll(5, TimeUnit.SECONDS);
        if (f == null) break;
        if (!runId.equals(f.getString("run_id"))) continue;
        assertThat(f.getLong("seq")).isEqualTo(expected++);
      }
      assertThat(expected).isGreaterThan(100);
      assertThat(fast.ws.isClosed()).isFalse();
    } finally {
      clients.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anotherSitesPageCannotOpenTheSocket() throws Exception {
    WebSocketConnectOptions evil = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws")
        .addHeader("Origin", "http://evil.example");
    Throwable refused = null;
    try {
      LiveClient.connect(vertx, evil).close();
    } catch (Exception e) {
      refused = e;
    }
    assertThat(refused).as("cross-site upgrade refused").isNotNull();
    assertThat(refused.toString()).contains("403");

    WebSocketConnectOptions own = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws")
        .addHeader("Origin", "http://localhost:" + port);
    try (LiveClient c = LiveClient.connect(vertx, own)) {
      c.send(new JsonObject().put("type", "watch"));
      assertThat(c.next().getString("type")).isEqualTo("watching");
    }
  }

  /** A frame past the server's WebSocket frame limit closes the socket with 1009 (message too big), not a plain 1000. */
  @Test
  void anOversizedFrameClosesWith1009() throws Exception {
    LiveClient c = LiveClient.connect(vertx, port);
    try {
      c.sendText("{\"type\":\"ask\",\"question\":\"" + "y".repeat(300_000) + "\"}");
      assertThat(c.closed.get(10, TimeUnit.SECONDS)).isEqualTo((short) 1009);
    } finally {
      c.close();
    }
  }
}
