package dev.sqlagent.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.web.HttpVerticle;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One contract on every edge: the HTTP API, the /ws socket and the MCP tools over HTTP, in front of an agent
 * address that fails on purpose. Each bus failure, each refused question and the origin policy come out the
 * same way (status where there is one, error_type and message) whichever edge a client uses.
 */
class EdgeContractTest {

  static final String ALLOWED = "https://agent.example";
  static Vertx vertx;
  static HttpVerticle http;
  static WebClient web;
  static McpSyncClient mcp;
  /** How the fake agent fails the next question. */
  static final AtomicReference<BusFailure> FAILING = new AtomicReference<>();
  static MessageConsumer<JsonObject> agent;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    http = new HttpVerticle(AppConfig.load(Map.of("SQLAGENT_HTTP_PORT", "0", "SQLAGENT_ALLOWED_ORIGIN", ALLOWED)));
    vertx.deployVerticle(http).await(60, TimeUnit.SECONDS);
    web = WebClient.create(vertx);
    var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + http.actualPort()).endpoint("/mcp")
        .requestBuilder(HttpRequest.newBuilder()).build();
    mcp = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
    mcp.initialize();
  }

  @AfterAll
  static void stop() throws Exception {
    mcp.closeGracefully();
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /** What one edge reported: its HTTP status (0 on /ws and MCP), error_type and message. */
  record Reported(int status, String errorType, String message) {}

  static Reported overHttp(JsonObject body) throws Exception {
    HttpResponse<Buffer> r = web.post(http.actualPort(), "127.0.0.1", "/api/ask").sendJsonObject(body).await(30, TimeUnit.SECONDS);
    JsonObject b = r.bodyAsJsonObject();
    return new Reported(r.statusCode(), b.getString("error_type"), b.getString("message"));
  }

  static Reported overWebSocket(JsonObject message) throws Exception {
    try (LiveClient c = LiveClient.connect(vertx, http.actualPort())) {
      c.send(message);
      java.util.List<JsonObject> frames = c.until(LiveClient.type("error"), 30);
      JsonObject f = frames.get(frames.size() - 1);
      return new Reported(0, f.getString("error_type"), f.getString("message"));
    }
  }

  /**
   * What the SockJS bridge answered an ask with: a failed reply, its failure code (the HTTP status the same refusal
   * has) and message; the bridge's envelope has no error_type.
   */
  static Reported overSockJs(JsonObject body) throws Exception {
    try (LiveClient c = LiveClient.connect(vertx, new WebSocketConnectOptions().setHost("127.0.0.1")
        .setPort(http.actualPort()).setURI("/eventbus/websocket").addHeader("Origin", ALLOWED))) {
      String reply = java.util.UUID.randomUUID().toString();
      c.send(new JsonObject().put("type", "send").put("address", Addresses.ASK).put("replyAddress", reply).put("body", body));
      JsonObject f = c.next(30);
      assertThat(f.getString("address")).as(f.encode()).isEqualTo(reply);
      assertThat(f.getString("type")).as(f.encode()).isEqualTo("err");
      return new Reported(f.getInteger("failureCode"), null, f.getString("message"));
    }
  }

  /**
   * A question refused by the intake, the same on every door: HTTP, /ws, the SockJS bridge and MCP (nothing answers
   * the agent's address here, so no door could have left it to the agent).
   */
  static void refusedOnEveryDoor(JsonObject asked, String errorType, String message) throws Exception {
    assertThat(overHttp(asked)).as("HTTP").isEqualTo(new Reported(400, errorType, message));
    assertThat(overWebSocket(asked.copy().put("type", "ask"))).as("/ws").isEqualTo(new Reported(0, errorType, message));
    assertThat(overSockJs(asked)).as("SockJS").isEqualTo(new Reported(400, null, message));
    if (!asked.containsKey("mode")) {  // MCP's ask takes no mode
      java.util.Map<String, Object> arguments = new java.util.HashMap<>(asked.getMap());
      assertThat(overMcp("ask", arguments)).as("MCP").isEqualTo(new Reported(0, errorType, message));
    }
  }

  static Reported overMcp(String question) {
    return overMcp("ask", Map.of("question", question));
  }

  static Reported overMcp(String tool, Map<String, Object> arguments) {
    McpSchema.CallToolResult r = mcp.callTool(new McpSchema.CallToolRequest(tool, arguments));
    assertThat(r.isError()).as(tool + " " + arguments).isTrue();
    Map<?, ?> data = (Map<?, ?>) r.structuredContent();
    return new Reported(0, (String) data.get("error_type"), (String) data.get("message"));
  }

  static Reported reported(HttpResponse<Buffer> r) {
    JsonObject b = r.bodyAsJsonObject();
    return new Reported(r.statusCode(), b.getString("error_type"), b.getString("message"));
  }

  /** A service address that fails every request as {@link #FAILING} says, for the duration of {@code checks}. */
  static void failing(String address, ThrowingRunnable checks) throws Exception {
    MessageConsumer<JsonObject> c = vertx.eventBus().consumer(address, msg -> msg.fail(FAILING.get().code(), "refused as " + FAILING.get()));
    c.completion().await(10, TimeUnit.SECONDS);
    try {
      checks.run();
    } finally {
      c.unregister().await(10, TimeUnit.SECONDS);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  static JsonObject ask(String question) {
    return new JsonObject().put("type", "ask").put("question", question);
  }

  static void sameOnEveryEdge(String question, int status, String errorType, String message) throws Exception {
    Reported h = overHttp(new JsonObject().put("question", question));
    Reported w = overWebSocket(ask(question));
    Reported m = overMcp(question);
    assertThat(h).as("HTTP").isEqualTo(new Reported(status, errorType, message));
    assertThat(w).as("/ws").isEqualTo(new Reported(0, errorType, message));
    assertThat(m).as("MCP").isEqualTo(new Reported(0, errorType, message));
  }

  @Test
  void everyBusFailureReachesEveryEdgeAsTheSameError() throws Exception {
    agent = vertx.eventBus().consumer(Addresses.ASK, msg -> msg.fail(FAILING.get().code(), "refused as " + FAILING.get()));
    agent.completion().await(10, TimeUnit.SECONDS);
    try {
      for (BusFailure f : BusFailure.values()) {
        FAILING.set(f);
        sameOnEveryEdge("How many bills are there?", f.httpStatus(), f.errorType(), "refused as " + f);
      }
      FAILING.set(BusFailure.BUSY);
      HttpResponse<Buffer> busy = web.post(http.actualPort(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "How many bills are there?")).await(30, TimeUnit.SECONDS);
      assertThat(busy.getHeader("Retry-After")).isEqualTo(String.valueOf(BusFailure.RETRY_AFTER_SECONDS));
    } finally {
      agent.unregister().await(10, TimeUnit.SECONDS);
    }
    // Nothing answers the agent's address at all.
    sameOnEveryEdge("How many bills are there?", 503, "unavailable", "the agent is not running");
  }

  @Test
  void aRefusedQuestionIsRefusedAlikeOnEveryEdge() throws Exception {
    String long_ = "why ".repeat(600);
    sameOnEveryEdge(long_, 400, "question_too_long", AskRules.question(long_).message());
    sameOnEveryEdge("   ", 400, "bad_request", "question must be a non-empty string");

    String badMode = "mode must be \"agent\" or \"baseline\"";
    assertThat(overHttp(new JsonObject().put("question", "How many?").put("mode", "fast")))
        .isEqualTo(new Reported(400, "bad_request", badMode));
    assertThat(overWebSocket(ask("How many?").put("mode", "fast"))).isEqualTo(new Reported(0, "bad_request", badMode));

    String badRunId = "run_id must be 8 to 64 letters, digits or dashes";
    HttpResponse<Buffer> events = web.get(http.actualPort(), "127.0.0.1", "/api/runs/no..such/events").send()
        .await(30, TimeUnit.SECONDS);
    assertThat(new Reported(events.statusCode(), events.bodyAsJsonObject().getString("error_type"),
        events.bodyAsJsonObject().getString("message"))).isEqualTo(new Reported(400, "bad_request", badRunId));
    assertThat(overWebSocket(new JsonObject().put("type", "replay").put("run_id", "no..such")))
        .isEqualTo(new Reported(0, "bad_request", badRunId));
  }

  @Test
  void theIntakeRefusesABadQuestionAlikeOnEveryDoor() throws Exception {
    String long_ = "why ".repeat(600);
    refusedOnEveryDoor(new JsonObject().put("question", long_), "question_too_long", AskRules.question(long_).message());
    refusedOnEveryDoor(new JsonObject().put("question", "  "), "bad_request", "question must be a non-empty string");
    refusedOnEveryDoor(new JsonObject().put("question", 42), "bad_request", "question must be a non-empty string");
    refusedOnEveryDoor(new JsonObject().put("question", "How many\u0000?"), "bad_request",
        AskRules.noNul("the question", "\u0000").message());
    refusedOnEveryDoor(new JsonObject().put("question", "How many?").put("mode", "fast"), "bad_request",
        "mode must be \"agent\" or \"baseline\"");
    refusedOnEveryDoor(new JsonObject().put("question", "And in 2024?").put("conversation_id", "x"), "bad_request",
        AskRules.conversationId("x").message());
  }

  @Test
  void aCancelOrFeedbackThatFailsFailsAlikeOnEveryEdgeThatOffersIt() throws Exception {
    String run = "run-0123456789";
    failing(Addresses.CANCEL, () -> {
      for (BusFailure f : BusFailure.values()) {
        FAILING.set(f);
        Reported expected = new Reported(f.httpStatus(), f.errorType(), "refused as " + f);
        assertThat(reported(web.delete(http.actualPort(), "127.0.0.1", "/api/runs/" + run).send().await(30, TimeUnit.SECONDS)))
            .as("DELETE /api/runs, %s", f).isEqualTo(expected);
        assertThat(overWebSocket(new JsonObject().put("type", "cancel").put("run_id", run)))
            .as("/ws cancel, %s", f).isEqualTo(new Reported(0, f.errorType(), "refused as " + f));
      }
    });
    failing(Addresses.RUN_FEEDBACK, () -> {
      for (BusFailure f : BusFailure.values()) {
        FAILING.set(f);
        assertThat(reported(web.post(http.actualPort(), "127.0.0.1", "/api/runs/" + run + "/feedback")
                .sendJsonObject(new JsonObject().put("rating", "up")).await(30, TimeUnit.SECONDS)))
            .as("POST /api/runs/{id}/feedback, %s", f).isEqualTo(new Reported(f.httpStatus(), f.errorType(), "refused as " + f));
        assertThat(overMcp("feedback", Map.of("run_id", run, "rating", "up")))
            .as("MCP feedback, %s", f).isEqualTo(new Reported(0, f.errorType(), "refused as " + f));
      }
    });
    failing(Addresses.CONVERSATION_GET, () -> {
      for (BusFailure f : BusFailure.values()) {
        FAILING.set(f);
        assertThat(reported(web.get(http.actualPort(), "127.0.0.1", "/api/conversations/" + run).send().await(30, TimeUnit.SECONDS)))
            .as("GET /api/conversations/{id}, %s", f).isEqualTo(new Reported(f.httpStatus(), f.errorType(), "refused as " + f));
      }
    });
    // Nothing answers: the service named, as on the agent's edges.
    assertThat(reported(web.post(http.actualPort(), "127.0.0.1", "/api/runs/" + run + "/verify")
        .sendJsonObject(new JsonObject()).await(30, TimeUnit.SECONDS)))
        .isEqualTo(new Reported(503, "unavailable", "the verified-query library is not running"));
    assertThat(overMcp("verify", Map.of("run_id", run))).isEqualTo(new Reported(0, "unavailable", "the verified-query library is not running"));
  }

  @Test
  void aBadRunOrConversationIdIsRefusedAlikeOnEveryEdge() throws Exception {
    Reported badRunId = new Reported(400, "bad_request", AskRules.runId("no..such").message());
    Reported badConversation = new Reported(400, "bad_request", AskRules.conversationId("x").message());
    Reported onSocket = new Reported(0, "bad_request", badRunId.message());
    assertThat(reported(web.delete(http.actualPort(), "127.0.0.1", "/api/runs/no..such").send().await(30, TimeUnit.SECONDS)))
        .isEqualTo(badRunId);
    assertThat(overWebSocket(new JsonObject().put("type", "cancel").put("run_id", "no..such"))).isEqualTo(onSocket);
    assertThat(reported(web.post(http.actualPort(), "127.0.0.1", "/api/runs/no..such/feedback")
        .sendJsonObject(new JsonObject().put("rating", "up")).await(30, TimeUnit.SECONDS))).isEqualTo(badRunId);
    assertThat(reported(web.post(http.actualPort(), "127.0.0.1", "/api/runs/no..such/verify")
        .sendJsonObject(new JsonObject()).await(30, TimeUnit.SECONDS))).isEqualTo(badRunId);
    assertThat(overMcp("feedback", Map.of("run_id", "no..such", "rating", "up"))).isEqualTo(onSocket);
    assertThat(overMcp("verify", Map.of("run_id", "no..such"))).isEqualTo(onSocket);

    assertThat(reported(web.get(http.actualPort(), "127.0.0.1", "/api/conversations/x").send().await(30, TimeUnit.SECONDS)))
        .isEqualTo(badConversation);
    assertThat(overHttp(new JsonObject().put("question", "And in 2024?").put("conversation_id", "x"))).isEqualTo(badConversation);
    assertThat(overWebSocket(ask("And in 2024?").put("conversation_id", "x")))
        .isEqualTo(new Reported(0, "bad_request", badConversation.message()));
    assertThat(overMcp("ask", Map.of("question", "And in 2024?", "conversation_id", "x")))
        .isEqualTo(new Reported(0, "bad_request", badConversation.message()));
  }

  @Test
  void theConfiguredOriginIsAdmittedAndAnotherRefusedOnEveryEdge() throws Exception {
    for (String origin : new String[] {ALLOWED, "https://evil.example"}) {
      int expected = origin.equals(ALLOWED) ? 200 : 403;
      HttpResponse<Buffer> mcpInit = web.post(http.actualPort(), "127.0.0.1", "/mcp").putHeader("Origin", origin)
          .putHeader("Accept", "application/json")
          .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
              .put("params", new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
                  .put("clientInfo", new JsonObject().put("name", "t").put("version", "1"))))
          .await(30, TimeUnit.SECONDS);
      assertThat(mcpInit.statusCode()).as("/mcp from %s", origin).isEqualTo(expected);
      HttpResponse<Buffer> info = web.get(http.actualPort(), "127.0.0.1", "/eventbus/info").putHeader("Origin", origin)
          .send().await(30, TimeUnit.SECONDS);
      assertThat(info.statusCode()).as("/eventbus from %s", origin).isEqualTo(expected);
      HttpResponse<Buffer> schema = web.post(http.actualPort(), "127.0.0.1", "/api/schema/refresh").putHeader("Origin", origin)
          .sendJsonObject(new JsonObject()).await(30, TimeUnit.SECONDS);
      // Admitted, the refresh finds no retrieval running here (503); refused, the origin is named (403).
      assertThat(schema.statusCode()).as("/api from %s", origin).isEqualTo(expected == 200 ? 503 : 403);
      if (expected == 403) {
        for (HttpResponse<Buffer> r : java.util.List.of(mcpInit, info, schema)) {
          assertThat(r.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden_origin");
        }
      }
      boolean opened;
      try (LiveClient c = LiveClient.connect(vertx, new WebSocketConnectOptions().setHost("127.0.0.1")
          .setPort(http.actualPort()).setURI("/ws").addHeader("Origin", origin))) {
        opened = c.ws != null;
      } catch (Exception refused) {
        opened = false;
      }
      assertThat(opened).as("/ws from %s", origin).isEqualTo(expected == 200);
    }
  }
}
