package dev.sqlagent.conversation;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.ConversationRequest;
import dev.sqlagent.contract.StateMessages.FeedbackRequest;
import dev.sqlagent.contract.StateMessages.Flush;
import dev.sqlagent.contract.StateMessages.RunTurnRequest;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.tools.DatabaseTools;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Conversations end to end on the real service: a follow-up's prompt holds the earlier turn, "and for 2024?"
 * becomes SQL over 2024, and the conversation id travels through POST /api/ask, /ws, the SockJS bridge and the
 * MCP ask tool, into the events, the stored turns and the query log.
 */
class ConversationFlowTest {

  static final String REVENUE_2025 = "SELECT extract(month FROM bill_dt)::int AS month, sum(total_amt) AS revenue FROM bills"
      + " WHERE status <> 'CANCELLED' AND extract(year FROM bill_dt) = 2025 GROUP BY 1 ORDER BY 1";
  static final String REVENUE_2024 = "SELECT extract(month FROM txn_dt)::int AS month, sum(amt) AS revenue FROM bill_archive"
      + " WHERE status <> 'CANCELLED' AND extract(year FROM txn_dt) = 2024 GROUP BY 1 ORDER BY 1";

  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle main;
  static RunningService service;
  static WebClient http;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    main = service.main;
    http = service.client;
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
  }

  @BeforeEach
  void resetModel() {
    model.reset();
  }

  static HttpResponse<JsonObject> post(String path, JsonObject body) throws Exception {
    return http.post(main.httpPort(), "127.0.0.1", path).as(BodyCodec.jsonObject()).sendJsonObject(body)
        .await(60, TimeUnit.SECONDS);
  }

  static JsonObject ask(String question, String conversationId) throws Exception {
    JsonObject body = new JsonObject().put("question", question);
    if (conversationId != null) body.put("conversation_id", conversationId);
    HttpResponse<JsonObject> r = post("/api/ask", body);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.body();
  }

  static HttpResponse<JsonObject> conversation(String id) throws Exception {
    return http.get(main.httpPort(), "127.0.0.1", "/api/conversations/" + id).as(BodyCodec.jsonObject()).send()
        .await(10, TimeUnit.SECONDS);
  }

  /** The follow-up is answered over 2024 only when its prompt holds the first turn's question and SQL. */
  static Reply followUp(JsonObject request) {
    String system = FakeModelServer.allText(request);
    boolean holdsTurn = system.contains("<<<CONVERSATION") && system.contains("revenue per month in 2025")
        && system.contains("extract(year FROM bill_dt) = 2025") && system.contains("Result: 12 rows");
    return holdsTurn ? Reply.sql(REVENUE_2024, "the same, for 2024 (archived bills)")
        : Reply.refusal("which year? there is no earlier question here");
  }

  @Test
  void andFor2024BecomesSqlOver2024BecauseTheFollowUpPromptHoldsTheEarlierTurn() throws Exception {
    model.enqueue(Reply.sql(REVENUE_2025));
    JsonObject first = ask("What was the revenue per month in 2025?", null);
    String id = first.getString("conversation_id");
    assertThat(id).isNotBlank();
    assertThat(first.getInteger("row_count")).isEqualTo(12);

    model.respondWith(ConversationFlowTest::followUp);
    JsonObject second = ask("and for 2024?", id);

    assertThat(second.getBoolean("refused")).as(second.encodePrettily()).isFalse();
    assertThat(second.getString("conversation_id")).isEqualTo(id);
    assertThat(second.getString("sql")).contains("2024").contains("bill_archive");
    assertThat(second.getInteger("row_count")).isEqualTo(12);
    BigDecimal january = new BigDecimal(second.getJsonArray("rows").getJsonArray(0).getValue(1).toString());
    assertThat(january).isEqualByComparingTo(scalar("SELECT sum(amt) FROM bill_archive WHERE status <> 'CANCELLED'"
        + " AND txn_dt >= '2024-01-01' AND txn_dt < '2024-02-01'"));
    String prompt = model.lastRequest().systemMessage();
    assertThat(prompt).contains("Turn 1: What was the revenue per month in 2025?").contains(REVENUE_2025.substring(0, 40));

    // Without the conversation the same words have nothing to build on.
    JsonObject alone = ask("and for 2024?", null);
    assertThat(alone.getBoolean("refused")).isTrue();
    assertThat(alone.getString("conversation_id")).isNotEqualTo(id);

    // Stored: both turns, in order, with their SQL and a summary (never the rows beyond it).
    HttpResponse<JsonObject> stored = conversation(id);
    assertThat(stored.statusCode()).isEqualTo(200);
    JsonArray turns = stored.body().getJsonArray("turns");
    assertThat(turns).hasSize(2);
    assertThat(turns.getJsonObject(0).getString("question")).isEqualTo("What was the revenue per month in 2025?");
    assertThat(turns.getJsonObject(1).getString("sql")).contains("2024");
    assertThat(turns.getJsonObject(1).getString("run_id")).isEqualTo(second.getString("run_id"));
    assertThat(turns.getJsonObject(0).getJsonObject("summary").getJsonArray("rows")).hasSize(ResultSummary.ROWS);
    assertThat(stored.body().getString("expires_at")).isNotBlank();

    // Events and the query log carry the conversation id.
    JsonArray events = http.get(main.httpPort(), "127.0.0.1", "/api/runs/" + second.getString("run_id") + "/events")
        .as(BodyCodec.jsonObject()).send().await(10, TimeUnit.SECONDS).body().getJsonArray("events");
    assertThat(events).isNotEmpty().allSatisfy(e -> assertThat(((JsonObject) e).getString("conversation_id")).isEqualTo(id));
    new StateClient(vertx, 30_000).flushLog(new Flush(20_000L)).await(30, TimeUnit.SECONDS);
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM agent_query_log WHERE conversation_id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
    }
  }

  @Test
  void aGiveUpIsMarkedInTheNextPrompt() throws Exception {
    model.enqueue(Reply.sql("SELECT door_colour FROM store_settings"), Reply.sql("SELECT door_color FROM store_settings"),
        Reply.sql("SELECT colour FROM store_settings"));
    JsonObject first = ask("What is the colour of the shop's front door?", null);
    assertThat(first.getBoolean("gave_up")).isTrue();
    model.enqueue(Reply.refusal("the database does not hold door colours"));
    ask("and the back door?", first.getString("conversation_id"));
    assertThat(model.lastRequest().systemMessage()).contains("Turn 1 (GAVE UP").contains("front door");
  }

  @Test
  void anUnknownOrMalformedConversationIsAClearClientError() throws Exception {
    HttpResponse<JsonObject> unknown = post("/api/ask", new JsonObject().put("question", "How many bills?")
        .put("conversation_id", "00000000-0000-0000-0000-000000000000"));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body().getString("message")).contains("no conversation").contains("expired");
    HttpResponse<JsonObject> malformed = post("/api/ask", new JsonObject().put("question", "How many bills?")
        .put("conversation_id", "'; DROP TABLE x"));
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body().getString("message")).contains("conversation_id");
    assertThat(conversation("00000000-0000-0000-0000-000000000000").statusCode()).isEqualTo(404);
    assertThat(conversation("bad!").statusCode()).isEqualTo(400);
    assertThat(model.requestCount()).isZero();
  }

  @Test
  void webSocketBridgeAndMcpAsksContinueTheConversation() throws Exception {
    model.respondWith(req -> Reply.sql("SELECT count(*) AS customers FROM customers"));
    String id = ask("How many customers are there?", null).getString("conversation_id");

    // /ws
    JsonObject viaWs = overWebSocket("/ws", new JsonObject().put("type", "ask").put("question", "and how many products?")
        .put("conversation_id", id), f -> "answer".equals(f.getString("type")));
    assertThat(viaWs.getString("conversation_id")).isEqualTo(id);

    // the SockJS bridge's raw WebSocket
    JsonObject viaBridge = overWebSocket("/eventbus/websocket", new JsonObject().put("type", "send")
        .put("address", Addresses.ASK).put("replyAddress", "r1").put("body", new JsonObject()
            .put("question", "and how many suppliers?").put("conversation_id", id)),
        f -> "r1".equals(f.getString("address"))).getJsonObject("body");
    assertThat(viaBridge.getString("conversation_id")).isEqualTo(id);
    assertThat(viaBridge.getString("source")).isEqualTo("eventbus");

    // the MCP ask tool (the tools the MCP server registers)
    JsonObject viaMcp = new DatabaseTools(vertx, dev.sqlagent.config.AppConfig.load(java.util.Map.of()).deadlines()).call(DatabaseTools.ASK, new JsonObject()
        .put("question", "and how many employees?").put("conversation_id", id)).await(60, TimeUnit.SECONDS).data();
    assertThat(viaMcp.getString("conversation_id")).isEqualTo(id);

    assertThat(conversation(id).body().getJsonArray("turns")).hasSize(4);
    assertThat(model.lastRequest().systemMessage()).contains("Turn 3: and how many suppliers?");
  }

  /**
   * An answer goes out without waiting for its turn to be written; whatever the asker does next with it, at once,
   * finds the turn: the run's turn and a rating (by run), the conversation and a follow-up (by conversation).
   */
  @Test
  void whatIsAskedRightAfterAnAnswerFindsItsTurn() throws Exception {
    model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills"));
    AgentClient agent = new AgentClient(vertx, 60_000);
    StateClient state = new StateClient(vertx, 10_000);
    String id = null;
    for (int i = 0; i < 12; i++) {
      AskRequest ask = new AskRequest("How many bills are there? (" + i + ")", null, null, null, null,
          i % 3 == 2 ? id : null, null);
      Answer answer = agent.ask(ask).await(60, TimeUnit.SECONDS);
      String runId = answer.runId();
      id = answer.conversationId();
      // all at once, the moment the answer is in
      var turn = state.turn(new RunTurnRequest(runId, null));
      var rated = state.feedback(new FeedbackRequest(runId, "up", null, null));
      var stored = state.conversation(new ConversationRequest(id, null));
      var opened = state.open(new ConversationRequest(id, null));
      assertThat(turn.await(10, TimeUnit.SECONDS).question()).isEqualTo(ask.question());
      assertThat(rated.await(10, TimeUnit.SECONDS).rating()).isEqualTo("up");
      JsonArray turns = stored.await(10, TimeUnit.SECONDS).turns();
      assertThat(turns.getJsonObject(turns.size() - 1).getString("run_id")).isEqualTo(runId);
      JsonArray earlier = opened.await(10, TimeUnit.SECONDS).turns();
      assertThat(earlier.getJsonObject(earlier.size() - 1).getString("run_id")).isEqualTo(runId);
    }
  }

  static JsonObject overWebSocket(String path, JsonObject message, java.util.function.Predicate<JsonObject> last) throws Exception {
    LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
    var client = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxMessageSize(4 << 20));
    var ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(main.httpPort()).setURI(path))
        .await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.binaryMessageHandler(b -> frames.add(new JsonObject(b)));
    ws.writeTextMessage(message.encode());
    List<JsonObject> seen = new ArrayList<>();
    try {
      while (true) {
        JsonObject f = frames.poll(60, TimeUnit.SECONDS);
        assertThat(f).as("frames so far: %s", seen).isNotNull();
        seen.add(f);
        if (last.test(f)) return f;
      }
    } finally {
      ws.close();
    }
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
