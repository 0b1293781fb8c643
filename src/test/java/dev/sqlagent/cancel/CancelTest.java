package dev.sqlagent.cancel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.WsClients;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stopping a question on the whole service, against the real database: a statement that would run for
 * minutes (allowed by the gate: the cost limit and statement timeout are raised here) is cancelled in
 * PostgreSQL within moments of a DELETE, of a WebSocket cancel, of its HTTP client hanging up, and of the
 * question's deadline; a slow model reply is aborted. Afterwards no statement of the agent role is active,
 * and the run ended as cancelled with its history, its event and its query-log row.
 */
class CancelTest {

  /** Allowed by the gate and effectively endless: ten billion rows of a nested loop. */
  static final String ENDLESS = "SELECT count(*) AS n FROM generate_series(1, 100000) a, generate_series(1, 100000) b";

  /**
   * How long a question may take to reach PostgreSQL. Generous: what these tests time is the cancel, from a statement
   * seen active; a loaded machine may be slow to get there.
   */
  static final long STARTS_WITHIN_MS = 60_000;
  /** How long a count of active statements must hold to be the one awaited. */
  static final long STEADY_MS = 200;

  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req);
      if (q.contains("slow model")) return Reply.sql("SELECT 1 AS one").delayed(60_000);
      return Reply.sql(ENDLESS);
    });
    Map<String, String> env = endlessEnv(model);
    env.put("SQLAGENT_LLM_TIMEOUT_MS", "120000");
    env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "600000");
    service = RunningService.start(env);
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    if (model != null) model.close();
  }

  /** Whatever a test left running is stopped, so one failure does not become the next test's. */
  @AfterEach
  void stopWhatIsLeft() throws Exception {
    JsonObject runs = service.client.get(service.port(), "127.0.0.1", "/api/runs").send().await(10, TimeUnit.SECONDS)
        .bodyAsJsonObject();
    for (Object o : runs.getJsonArray("runs")) {
      JsonObject r = (JsonObject) o;
      if ("running".equals(r.getString("state"))) {
        service.client.delete(service.port(), "127.0.0.1", "/api/runs/" + r.getString("run_id")).send()
            .await(10, TimeUnit.SECONDS);
      }
    }
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = '"
          + TestDatabase.get().target().role() + "' AND state = 'active'");
    }
  }

  /** Settings under which {@link #ENDLESS} runs until stopped: the cost limit and statement timeout raised. */
  static Map<String, String> endlessEnv(FakeModelServer model) {
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_MAX_PLAN_COST", "1000000000000");
    env.put("SQLAGENT_STATEMENT_TIMEOUT_MS", "120000");
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    return env;
  }

  /** Active statements of the agent role on the target, as the server's admin sees them. */
  static int activeAgentStatements() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = '"
             + TestDatabase.get().target().role() + "' AND state = 'active'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * Waits until the agent role has {@code n} active statements, and still has {@link #STEADY_MS} later: validate_sql's
   * check runs short statements of its own before execute_sql sends the run's, and a count caught during one of them
   * is not the run's statement.
   */
  static void awaitActive(int n, long withinMs) throws Exception {
    long until = System.currentTimeMillis() + withinMs;
    int seen = activeAgentStatements();
    while (System.currentTimeMillis() < until) {
      if (seen == n) {
        Thread.sleep(STEADY_MS);
        seen = activeAgentStatements();
        if (seen == n) return;
      } else {
        Thread.sleep(20);
        seen = activeAgentStatements();
      }
    }
    if (seen != n) {
      assertThat(seen).as("active statements of the agent role; the server's sessions:\n" + sessions()
          + "\nruns: " + runs()).isEqualTo(n);
    }
  }

  /** Every session but idle ones, for a failure's message. */
  static String sessions() throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT usename, datname, application_name, state, wait_event_type, wait_event,"
             + " round(extract(epoch FROM now() - query_start)) AS secs, left(query, 120) AS query"
             + " FROM pg_stat_activity WHERE state IS DISTINCT FROM 'idle' AND backend_type = 'client backend'")) {
      while (rs.next()) {
        for (int i = 1; i <= 8; i++) out.append(i > 1 ? " | " : "").append(rs.getString(i));
        out.append('\n');
      }
    }
    return out.toString();
  }

  static String runs() {
    try {
      JsonObject runs = service.client.get(service.port(), "127.0.0.1", "/api/runs").send().await(10, TimeUnit.SECONDS)
          .bodyAsJsonObject();
      StringBuilder out = new StringBuilder(runs.encode());
      for (Object o : runs.getJsonArray("runs")) {
        String id = ((JsonObject) o).getString("run_id");
        out.append("\nevents of ").append(id).append(": ").append(service.client.get(service.port(), "127.0.0.1",
            "/api/runs/" + id + "/events").send().await(10, TimeUnit.SECONDS).bodyAsString());
      }
      return out.toString();
    } catch (Exception e) {
      return "(unavailable: " + e.getMessage() + ")";
    }
  }

  Future<HttpResponse<Buffer>> ask(String question) {
    return service.client.post(service.port(), "127.0.0.1", "/api/ask")
        .putHeader("Content-Type", "application/json")
        .sendJsonObject(new JsonObject().put("question", question));
  }

  /** The id of the newest run still running, from GET /api/runs. */
  String runningRun() throws Exception {
    long until = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < until) {
      JsonObject runs = service.client.get(service.port(), "127.0.0.1", "/api/runs").send().await(10, TimeUnit.SECONDS)
          .bodyAsJsonObject();
      for (Object o : runs.getJsonArray("runs")) {
        JsonObject r = (JsonObject) o;
        if ("running".equals(r.getString("state"))) return r.getString("run_id");
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no run started");
  }

  @Test
  void deleteCancelsTheRunningStatementInPostgresql() throws Exception {
    Future<HttpResponse<Buffer>> answer = ask("How many pairs of numbers are there?");
    String runId = runningRun();
    awaitActive(1, STARTS_WITHIN_MS);
    long t0 = System.nanoTime();
    HttpResponse<Buffer> del = service.client.delete(service.port(), "127.0.0.1", "/api/runs/" + runId).send()
        .await(10, TimeUnit.SECONDS);
    assertThat(del.statusCode()).as(del.bodyAsString()).isEqualTo(200);
    JsonObject a = answer.await(10, TimeUnit.SECONDS).bodyAsJsonObject();
    awaitActive(0, 2_000);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(ms).as("cancel to answer and idle backend").isLessThan(5_000);
    assertThat(a.getBoolean("cancelled")).isTrue();
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getString("sql")).contains("generate_series");
    assertThat(a.getString("run_id")).isEqualTo(runId);
    // The run's own record ends with the cancelled event.
    JsonObject events = service.client.get(service.port(), "127.0.0.1", "/api/runs/" + runId + "/events").send()
        .await(10, TimeUnit.SECONDS).bodyAsJsonObject();
    JsonObject last = events.getJsonArray("events").getJsonObject(events.getJsonArray("events").size() - 1);
    assertThat(last.getString("node")).isEqualTo("cancelled");
    // A second cancel finds the run ended.
    assertThat(service.client.delete(service.port(), "127.0.0.1", "/api/runs/" + runId).send().await(10, TimeUnit.SECONDS)
        .statusCode()).isEqualTo(409);
    // The pool's connections are clean: the next question runs normally, through the same gate.
    HttpResponse<Buffer> q = service.client.post(service.port(), "127.0.0.1", "/api/query")
        .putHeader("Content-Type", "application/json").sendJsonObject(new JsonObject().put("sql", "SELECT 1 AS one"))
        .await(10, TimeUnit.SECONDS);
    assertThat(q.statusCode()).as(q.bodyAsString()).isEqualTo(200);
    assertQueryLogged(runId);
    String metrics = service.client.get(service.port(), "127.0.0.1", "/metrics").send().await(10, TimeUnit.SECONDS).bodyAsString();
    assertThat(metrics).contains("sqlagent_cancellations_total");
  }

  @Test
  void anHttpClientThatHangsUpCancelsItsOwnRun() throws Exception {
    io.vertx.ext.web.client.WebClient own = io.vertx.ext.web.client.WebClient.create(service.vertx);
    own.post(service.port(), "127.0.0.1", "/api/ask").putHeader("Content-Type", "application/json")
        .sendJsonObject(new JsonObject().put("question", "How many pairs, asked and abandoned?"));
    String runId = runningRun();
    awaitActive(1, STARTS_WITHIN_MS);
    own.close();  // closes its connection mid-run
    awaitActive(0, 3_000);
    assertRunState(runId, "cancelled");
  }

  @Test
  void aWebSocketCancelStopsASlowModelCallAndAWatcherLeavingDoesNot() throws Exception {
    WebSocketClient wsc = WsClients.of(service.vertx);
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = wsc.connect(new WebSocketConnectOptions().setPort(service.port()).setHost("127.0.0.1").setURI("/ws"))
        .await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    // A watcher that comes and goes: its leaving stops nothing.
    WebSocket watcher = wsc.connect(new WebSocketConnectOptions().setPort(service.port()).setHost("127.0.0.1").setURI("/ws"))
        .await(10, TimeUnit.SECONDS);
    watcher.writeTextMessage(new JsonObject().put("type", "watch").encode());
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "A slow model, please").encode());
    String runId = await(frames, "accepted").getString("run_id");
    awaitModelCalled();
    watcher.close().await(10, TimeUnit.SECONDS);
    Thread.sleep(300);
    assertRunState(runId, "running");
    long t0 = System.nanoTime();
    ws.writeTextMessage(new JsonObject().put("type", "cancel").put("run_id", runId).encode());
    JsonObject answer = await(frames, "answer");
    assertThat((System.nanoTime() - t0) / 1_000_000).as("a model reply due in a minute is not waited for").isLessThan(3_000);
    assertThat(answer.getBoolean("cancelled")).isTrue();
    assertThat(frames).anyMatch(f -> "event".equals(f.getString("type")) && "cancelled".equals(f.getString("node")));
    // The model's HTTP call was reset, not left to finish: the model server sees its client go.
    long until = System.currentTimeMillis() + 3_000;
    while (model.abandoned() == 0 && System.currentTimeMillis() < until) Thread.sleep(10);
    assertThat(model.abandoned()).as("model requests whose client went away").isGreaterThanOrEqualTo(1);
    ws.close();
  }

  @Test
  void aSocketClosedMidRunCancelsItsRun() throws Exception {
    WebSocketClient wsc = WsClients.of(service.vertx);
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = wsc.connect(new WebSocketConnectOptions().setPort(service.port()).setHost("127.0.0.1").setURI("/ws"))
        .await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "Pairs, then the tab closes").encode());
    String runId = await(frames, "accepted").getString("run_id");
    awaitActive(1, STARTS_WITHIN_MS);
    ws.close().await(10, TimeUnit.SECONDS);
    awaitActive(0, 3_000);
    assertRunState(runId, "cancelled");
  }

  /**
   * The intake ties every run to the connection that asked: a SockJS session, an MCP session ended by its client and
   * an MCP request whose client hangs up each stop their run, statement and all.
   */
  @Test
  void everyDoorHoldingAConnectionStopsItsRunWhenTheConnectionGoes() throws Exception {
    WebSocket bridge = WsClients.of(service.vertx).connect(new WebSocketConnectOptions().setPort(service.port())
        .setHost("127.0.0.1").setURI("/eventbus/websocket")).await(10, TimeUnit.SECONDS);
    bridge.writeTextMessage(new JsonObject().put("type", "send").put("address", "sqlagent.agent.ask")
        .put("replyAddress", java.util.UUID.randomUUID().toString())
        .put("body", new JsonObject().put("question", "Pairs over the bridge, then the session ends")).encode());
    // The bridge closes a client that sends no ping for 10 s: this one stays until it closes.
    long pings = service.vertx.setPeriodic(2_000, t -> bridge.writeTextMessage(new JsonObject().put("type", "ping").encode()));
    String overBridge = runningRun();
    awaitActive(1, STARTS_WITHIN_MS);
    service.vertx.cancelTimer(pings);
    bridge.close().await(10, TimeUnit.SECONDS);
    awaitActive(0, 3_000);
    assertRunState(overBridge, "cancelled");

    io.vertx.ext.web.client.WebClient mcp = io.vertx.ext.web.client.WebClient.create(service.vertx);
    String session = mcpSession(mcp);
    mcpAsk(mcp, session, "Pairs over MCP, then the session ends");
    String overMcp = runningRun();
    awaitActive(1, STARTS_WITHIN_MS);
    HttpResponse<Buffer> ended = mcp.delete(service.port(), "127.0.0.1", "/mcp").putHeader("Mcp-Session-Id", session).send()
        .await(10, TimeUnit.SECONDS);
    assertThat(ended.statusCode()).isEqualTo(200);
    awaitActive(0, 3_000);
    assertRunState(overMcp, "cancelled");

    io.vertx.ext.web.client.WebClient hangsUp = io.vertx.ext.web.client.WebClient.create(service.vertx);
    mcpAsk(hangsUp, mcpSession(hangsUp), "Pairs over MCP, then the client hangs up");
    String abandoned = runningRun();
    awaitActive(1, STARTS_WITHIN_MS);
    hangsUp.close();
    awaitActive(0, 3_000);
    assertRunState(abandoned, "cancelled");
    mcp.close();
  }

  /** A new MCP session's id, initialized. */
  static String mcpSession(io.vertx.ext.web.client.WebClient client) throws Exception {
    HttpResponse<Buffer> init = client.post(service.port(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
            .put("params", new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
                .put("clientInfo", new JsonObject().put("name", "cancel-test").put("version", "1"))))
        .await(30, TimeUnit.SECONDS);
    assertThat(init.statusCode()).as(init.bodyAsString()).isEqualTo(200);
    String session = init.getHeader("Mcp-Session-Id");
    client.post(service.port(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/initialized"))
        .await(10, TimeUnit.SECONDS);
    return session;
  }

  /** Calls the ask tool in {@code session} without waiting for its reply. */
  static void mcpAsk(io.vertx.ext.web.client.WebClient client, String session, String question) {
    client.post(service.port(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/call")
            .put("params", new JsonObject().put("name", "ask").put("arguments", new JsonObject().put("question", question))));
  }

  void awaitModelCalled() throws Exception {
    long until = System.currentTimeMillis() + 10_000;
    while (model.requests().isEmpty() && System.currentTimeMillis() < until) Thread.sleep(10);
    Thread.sleep(100);
  }

  void assertRunState(String runId, String state) throws Exception {
    long until = System.currentTimeMillis() + 5_000;
    String seen = null;
    while (System.currentTimeMillis() < until) {
      JsonObject runs = service.client.get(service.port(), "127.0.0.1", "/api/runs").send().await(10, TimeUnit.SECONDS)
          .bodyAsJsonObject();
      for (Object o : runs.getJsonArray("runs")) {
        if (runId.equals(((JsonObject) o).getString("run_id"))) seen = ((JsonObject) o).getString("state");
      }
      if (state.equals(seen)) return;
      Thread.sleep(20);
    }
    assertThat(seen).as("state of run " + runId).isEqualTo(state);
  }

  static JsonObject await(List<JsonObject> frames, String type) throws Exception {
    long until = System.currentTimeMillis() + 15_000;
    while (System.currentTimeMillis() < until) {
      for (JsonObject f : frames) if (type.equals(f.getString("type"))) return f;
      Thread.sleep(10);
    }
    throw new AssertionError("no " + type + " frame in " + frames);
  }

  static void assertQueryLogged(String runId) throws Exception {
    long until = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < until) {
      try (Connection c = TestDatabase.get().state().ownerConnection(); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT cancelled FROM agent_query_log WHERE run_id = '" + runId + "'")) {
        if (rs.next()) {
          assertThat(rs.getBoolean(1)).isTrue();
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no query-log row for " + runId);
  }
}
