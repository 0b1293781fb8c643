package dev.sqlagent.live;

import dev.sqlagent.testing.RunningService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SockJS event-bus bridge, spoken over its raw WebSocket transport ({@code /eventbus/websocket}, one
 * bridge frame per text message): only the event addresses out, only asks in, the source forced.
 */
class WebSocketBridgeTest {

  static RunningService service;
  static Vertx vertx;
  static int port;

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    port = service.port();
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
  }

  static LiveClient bridge() throws Exception {
    return LiveClient.connect(vertx, new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
        .setURI("/eventbus/websocket"));
  }

  static JsonObject frame(String type, String address) {
    return new JsonObject().put("type", type).put("address", address);
  }

  /**
   * Waits until the bridge has handled every frame sent so far: it handles a socket's frames in order, so the
   * reply to a request sent now (the agent refuses an empty ask) comes after them. No frame may come before it.
   */
  static void acknowledged(LiveClient c) throws Exception {
    String ack = java.util.UUID.randomUUID().toString();  // the bridge takes only UUID-sized reply addresses
    c.send(frame("send", Addresses.ASK).put("replyAddress", ack).put("body", new JsonObject()));
    JsonObject reply = c.next(10);
    assertThat(reply.getString("address")).as(reply.encode()).isEqualTo(ack);
    assertThat(reply.getString("type")).isEqualTo("err");
  }

  @Test
  void eventsFlowOutOnTheEventAddresses() throws Exception {
    try (LiveClient c = bridge()) {
      String runId = "bridge-run-0001";
      c.send(frame("register", Addresses.EVENTS));
      c.send(frame("register", Addresses.events(runId)));
      acknowledged(c);
      JsonObject event = new JsonObject().put("run_id", runId).put("seq", 1).put("node", "select_schema");
      vertx.eventBus().publish(Addresses.EVENTS, event);
      vertx.eventBus().publish(Addresses.events(runId), event);
      JsonObject a = c.next();
      JsonObject b = c.next();
      assertThat(a.getString("type")).isEqualTo("rec");
      assertThat(a.getJsonObject("body")).isEqualTo(event);
      assertThat(b.getJsonObject("body")).isEqualTo(event);
      assertThat(java.util.Set.of(a.getString("address"), b.getString("address")))
          .containsExactlyInAnyOrder(Addresses.EVENTS, Addresses.events(runId));
    }
  }

  @Test
  void nothingElseGoesOutOrComesIn() throws Exception {
    try (LiveClient c = bridge()) {
      for (String address : new String[] {Addresses.ANSWERS, Addresses.EXECUTE, Addresses.GENERATE,
          Addresses.generationDeltas("bridge-run-0001"), Addresses.EVENTS + ".x", Addresses.EVENTS + "." + "a".repeat(65)}) {
        c.send(frame("register", address));
        JsonObject err = c.next();
        assertThat(err.getString("type")).as(address).isEqualTo("err");
        assertThat(err.getString("body")).as(address).isEqualTo("access_denied");
      }
      for (String address : new String[] {Addresses.EXECUTE, Addresses.RUN_EVENTS, Addresses.RETRIEVE, Addresses.EVENTS}) {
        c.send(frame("send", address).put("body", new JsonObject().put("sql", "DELETE FROM bills")).put("replyAddress", "r1"));
        JsonObject err = c.next();
        assertThat(err.getString("body")).as(address).isEqualTo("access_denied");
      }
      // A publish to the agent could never be answered, so it is refused too; so is a body that is not an object.
      // (refused by the bridge's event handler: "rejected").
      c.send(frame("publish", Addresses.ASK).put("body", new JsonObject().put("question", "How many bills?")));
      assertThat(c.next().getString("body")).isEqualTo("rejected");
      c.send(frame("send", Addresses.ASK).put("body", "How many bills?").put("replyAddress", "r2"));
      assertThat(c.next().getString("body")).isEqualTo("rejected");
    }
  }

  @Test
  void anAskThroughTheBridgeIsAnsweredAndMarkedAsFromTheBridge() throws Exception {
    Map<String, CompletableFuture<JsonObject>> answered = new ConcurrentHashMap<>();
    MessageConsumer<JsonObject> answers = vertx.eventBus().consumer(Addresses.ANSWERS,
        m -> answered.computeIfAbsent(m.body().getString("run_id"), k -> new CompletableFuture<>()).complete(m.body()));
    answers.completion().await(5, TimeUnit.SECONDS);
    try (LiveClient c = bridge()) {
      String runId = "bridge-ask-" + System.nanoTime();
      c.send(frame("register", Addresses.events(runId)));
      acknowledged(c);
      c.send(frame("send", Addresses.ASK).put("replyAddress", "reply-1").put("body", new JsonObject()
          .put("question", "How many customers are there?").put("mode", "agent").put("source", "http").put("run_id", runId)
          .put("inject_fault", true).put("fault_key", "misspelled_column")
          .put("standalone", true).put("self_paced", true).put("lookup_verified", false)));
      JsonObject reply;
      int events = 0;
      while (true) {
        JsonObject f = c.next(60);
        if ("reply-1".equals(f.getString("address"))) {
          reply = f.getJsonObject("body");
          break;
        }
        assertThat(f.getString("address")).isEqualTo(Addresses.events(runId));
        assertThat(f.getJsonObject("body").getLong("seq")).isEqualTo(++events);
      }
      assertThat(events).isPositive();
      assertThat(reply.getString("run_id")).isEqualTo(runId);
      assertThat(reply.getString("source")).as("overwritten by the bridge").isEqualTo("eventbus");
      assertThat(reply.containsKey("injected_fault")).as("evaluation-only fields are dropped").isFalse();
      assertThat(reply.getString("conversation_id")).as("a person's question is a turn of a conversation").isNotNull();
      assertThat(answered.computeIfAbsent(runId, k -> new CompletableFuture<>()).get(10, TimeUnit.SECONDS)
          .getString("source")).isEqualTo("eventbus");
    } finally {
      answers.unregister();
    }
  }

  @Test
  void anotherSitesPageIsRefusedAndTheOwnOriginIsNot() throws Exception {
    WebClient web = WebClient.create(vertx);
    var evil = web.get(port, "127.0.0.1", "/eventbus/info").putHeader("Origin", "http://evil.example")
        .send().await(10, TimeUnit.SECONDS);
    assertThat(evil.statusCode()).isEqualTo(403);
    assertThat(evil.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden_origin");
    var own = web.get(port, "127.0.0.1", "/eventbus/info").putHeader("Origin", "http://127.0.0.1:" + port)
        .send().await(10, TimeUnit.SECONDS);
    assertThat(own.statusCode()).isEqualTo(200);
    assertThat(own.bodyAsJsonObject().getBoolean("websocket")).isTrue();
  }

  @Test
  void thePageAndTheVendoredClientsAreServed() throws Exception {
    WebClient web = WebClient.create(vertx);
    var page = web.get(port, "127.0.0.1", "/").send().await(10, TimeUnit.SECONDS);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.bodyAsString()).contains("<title>sql-agent");
    assertThat(page.getHeader("Content-Security-Policy")).contains("default-src 'self'");
    for (String path : new String[] {"/app.css", "/watch.html", "/vendor/sockjs.min.js", "/vendor/vertx-eventbus.js"}) {
      assertThat(web.get(port, "127.0.0.1", path).send().await(10, TimeUnit.SECONDS).statusCode()).as(path).isEqualTo(200);
    }
    assertThat(page.bodyAsString()).contains("<script type=\"module\" src=\"js/main.js\">");
    assertThat(page.getHeader("Content-Security-Policy")).contains("script-src 'self'");
    // Every module the two pages load, and every module those import, is served as JavaScript (a browser refuses
    // a module script with any other type).
    java.util.Deque<String> toLoad = new java.util.ArrayDeque<>(java.util.List.of("/js/main.js", "/js/watch.js"));
    java.util.Set<String> seen = new java.util.HashSet<>();
    java.util.regex.Pattern imports = java.util.regex.Pattern.compile("from '\\./([a-z-]+\\.js)'");
    while (!toLoad.isEmpty()) {
      String path = toLoad.pop();
      if (!seen.add(path)) continue;
      var js = web.get(port, "127.0.0.1", path).send().await(10, TimeUnit.SECONDS);
      assertThat(js.statusCode()).as(path).isEqualTo(200);
      assertThat(js.getHeader("Content-Type")).as(path).matches("(text|application)/javascript.*");
      var m = imports.matcher(js.bodyAsString());
      while (m.find()) toLoad.push("/js/" + m.group(1));
    }
    try (var files = java.nio.file.Files.list(java.nio.file.Path.of("webroot", "js"))) {
      assertThat(seen).as("every module in webroot/js is loaded by a page")
          .containsExactlyInAnyOrderElementsOf(files.map(f -> "/js/" + f.getFileName()).toList());
    }
    var missing = web.get(port, "127.0.0.1", "/nope.html").send().await(10, TimeUnit.SECONDS);
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.bodyAsJsonObject().getString("error_type")).isEqualTo("not_found");
  }

  /** A frame the bridge cannot use (headers that are not an object) is answered with an error frame naming why. */
  @Test
  void aMalformedFrameIsAnsweredWithAnError() throws Exception {
    try (LiveClient c = bridge()) {
      c.send(frame("send", Addresses.ASK).put("headers", "notobj").put("body", new JsonObject().put("question", "hi")));
      JsonObject err = c.next(10);
      assertThat(err.getString("type")).as(err.encode()).isEqualTo("err");
      assertThat(err.getString("body")).isEqualTo("invalid_headers");
      assertThat(err.getString("message")).contains("headers must be a JSON object");
      assertThat(c.next(10).getString("body")).isEqualTo("rejected");
      c.send(frame("send", Addresses.ASK).put("headers", new JsonObject().putNull("x")).put("body", new JsonObject()));
      assertThat(c.next(10).getString("body")).isEqualTo("invalid_headers");
      assertThat(c.next(10).getString("body")).isEqualTo("rejected");
      // The socket still works.
      acknowledged(c);
    }
  }

  /**
   * A client that drops its connection without a closing handshake (a closed laptop, a proxy's cut): the normal end of
   * a session, over the raw and the SockJS WebSocket transports. Nothing is logged at ERROR, no stack trace.
   */
  @Test
  void aDroppedConnectionIsLoggedQuietly() throws Exception {
    try (dev.sqlagent.testing.LogCapture logs = dev.sqlagent.testing.LogCapture.root()) {
      for (String uri : java.util.List.of("/eventbus/websocket", "/eventbus/1/" + java.util.UUID.randomUUID() + "/websocket")) {
        CompletableFuture<Void> gone = new CompletableFuture<>();
        MessageConsumer<JsonObject> clients = vertx.eventBus().consumer(Addresses.LIVE_CLIENTS, m -> {
          if (m.body().getInteger("delta", 0) < 0) gone.complete(null);
        });
        clients.completion().await(10, TimeUnit.SECONDS);
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
          socket.getOutputStream().write(("GET " + uri + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
              + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          byte[] head = new byte[512];
          int n = socket.getInputStream().read(head);
          assertThat(new String(head, 0, Math.max(n, 0), java.nio.charset.StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 101");
          socket.setSoLinger(true, 0);  // a reset, as a dropped network ends it
        }
        try {
          gone.get(10, TimeUnit.SECONDS);
        } finally {
          clients.unregister();
        }
      }
      // The bridge logs as the connection ends, before the session's close is announced; a moment more for stragglers.
      Thread.sleep(300);
      assertThat(logs.events()).as(logs.messages().toString())
          .noneMatch(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.ERROR) || e.getThrowableProxy() != null);
    }
  }
}
