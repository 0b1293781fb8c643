package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.eval.Grader;
import dev.sqlagent.eval.GradingGate;
import dev.sqlagent.results.QueryResult;
import dev.sqlagent.testing.DatabaseState;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.WsClients;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gate's grading mode (issue 16, item 5): the evaluation's only route to the database. The gate's own
 * checks and read-only execution, without the agent's row cap, clipping or plan-cost ceiling, bounded by a
 * memory guard; reachable in-process only, never from /api/query, /ws, the SockJS bridge or MCP.
 */
class GradingModeTest {

  static final int CAP = 50;
  static final int BILLS = 1_400;

  static Vertx vertx;
  /** A gate whose plan-cost ceiling refuses almost everything, to show grading does not apply it. */
  static Gate strict;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    strict = Gate.start(vertx, Gate.Database.of(TestDatabase.get().target().roOptions()),
        Gate.Settings.DEFAULTS.withRowCap(CAP).withMaxPlanCost(5).withTimeouts(1500, 500).withPoolSize(2))
            .await(60, TimeUnit.SECONDS);
    service = RunningService.start(Map.of("SQLAGENT_ROW_CAP", String.valueOf(CAP)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    strict.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static GateReply grade(String sql) throws Exception {
    return strict.grade(sql).await(60, TimeUnit.SECONDS);
  }

  // ---- what grading runs, and how --------------------------------------------------------------------

  @Test
  void aGoldQueryPastTheAgentsRowCapComesBackWhole() throws Exception {
    GateReply graded = grade("SELECT bill_id FROM bills");
    assertThat(graded.ok()).as(graded.toJson().encode()).isTrue();
    assertThat(graded.result().rowCount()).isEqualTo(BILLS);
    assertThat(graded.result().rows()).hasSize(BILLS);
    assertThat(graded.result().truncated()).isFalse();
    assertThat(graded.sql()).isEqualTo("SELECT bill_id FROM bills");
    assertThat(graded.stage(GateReply.LIMIT).orElseThrow().facts().getBoolean("grading")).isTrue();
    assertThat(graded.stages()).extracting(GateReply.Stage::name).containsExactly(GateReply.STATIC_CHECK, GateReply.LIMIT,
        GateReply.PLAN, GateReply.EXECUTION);
  }

  @Test
  void gradingSkipsThePlanCostCeilingButNotTheStatementTimeout() throws Exception {
    GateReply agent = strict.submit(GateRequest.run("SELECT b.bill_id, i.qty FROM bills b JOIN bill_items i ON i.bill_id = b.bill_id")).await(60, TimeUnit.SECONDS);
    assertThat(agent.ok()).isFalse();
    assertThat(agent.failedStage()).contains(GateReply.PLAN);
    GateReply graded = grade("SELECT b.bill_id, i.qty FROM bills b JOIN bill_items i ON i.bill_id = b.bill_id");
    assertThat(graded.ok()).as(graded.toJson().encode()).isTrue();
    assertThat(graded.result().rowCount()).isGreaterThan(CAP);
    // Still bounded in time: the gate's statement timeout (1.5 s here) cancels a runaway query.
    GateReply slow = grade("SELECT count(*) FROM bills a, bills b, bills c");
    assertThat(slow.ok()).isFalse();
    assertThat(slow.error().type()).isEqualTo(ErrorType.TIMEOUT);
    assertThat(slow.error().sqlState()).isEqualTo("57014");
  }

  @Test
  void valuesAreNotClipped() throws Exception {
    String sql = "SELECT string_agg(bill_no, ',' ORDER BY bill_no) AS numbers FROM bills";
    GateReply graded = grade(sql);
    assertThat(graded.ok()).as(graded.toJson().encode()).isTrue();
    String whole = graded.result().rows().getJsonArray(0).getString(0);
    assertThat(whole).doesNotContain("clipped").hasSizeGreaterThan(ResultJson.CLIP_CHARS * 10);
    assertThat(whole.split(",")).hasSize(BILLS);
    // The agent's path (the service's gate) clips the same value.
    GateReply agent = new GateClient(service.vertx, 60_000).execute(GateRequest.run(sql)).await(60, TimeUnit.SECONDS);
    assertThat(agent.result().rows().getJsonArray(0).getString(0)).contains("…[clipped, " + whole.length() + " chars]");
  }

  @Test
  void twoStatementsAWriteOrAHiddenTableAreRefusedAndNothingChanges() throws Exception {
    DatabaseState before = DatabaseState.read(TestDatabase.get().target());
    for (String sql : List.of("SELECT 1; DELETE FROM bills", "SELECT count(*) FROM bills; SELECT 1",
        "DELETE FROM bills", "UPDATE employees SET salary = 0", "WITH d AS (DELETE FROM bills RETURNING *) SELECT count(*) FROM d",
        "SELECT * INTO bills_copy FROM bills", "SELECT * FROM bills FOR UPDATE", "SELECT pg_sleep(0.1)",
        "TRUNCATE bills", "SELECT * FROM staff.payroll", "SELECT * FROM pg_catalog.pg_authid")) {
      GateReply r = grade(sql);
      assertThat(r.ok()).as(sql).isFalse();
      assertThat(r.error().type()).as(sql).isIn(ErrorType.REJECTED, ErrorType.UNKNOWN_TABLE);
      assertThat(r.failedStage()).as(sql).contains(GateReply.STATIC_CHECK);
    }
    assertThat(grade("SELECT 1; DELETE FROM bills").error().message()).contains("More than one statement");
    assertThat(grade("DELETE FROM bills").writeRefused()).isTrue();
    assertThat(DatabaseState.read(TestDatabase.get().target())).isEqualTo(before);
  }

  @Test
  void pastTheMemoryGuardTheReplyIsAClearErrorNotTheRows() throws Exception {
    GateReply rows = strict.grade("SELECT bill_id FROM bills", 100, Gate.GRADING_MAX_BYTES).await(60, TimeUnit.SECONDS);
    assertThat(rows.ok()).isFalse();
    assertThat(rows.error().type()).isEqualTo(ErrorType.RESULT_TOO_LARGE);
    assertThat(rows.error().message()).contains("more than 100 rows");
    assertThat(rows.result()).isNull();
    GateReply bytes = strict.grade("SELECT bill_no FROM bills", 1_000_000, 10_000).await(60, TimeUnit.SECONDS);
    assertThat(bytes.ok()).isFalse();
    assertThat(bytes.error().type()).isEqualTo(ErrorType.RESULT_TOO_LARGE);
    assertThat(bytes.error().message()).contains("grew past 10000 bytes");
    // The gate goes on answering.
    assertThat(grade("SELECT count(*) FROM bills").ok()).isTrue();
  }

  // ---- who can reach it -----------------------------------------------------------------------------

  @Test
  void theHarnessInTheServicesProcessReachesIt() throws Exception {
    GradingGate grading = new GradingGate(service.vertx, 60_000);
    QueryResult all = grading.run("SELECT bill_id FROM bills").toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertThat(all.rows()).hasSize(BILLS);
    ExecutionException refused = org.assertj.core.api.Assertions.catchThrowableOfType(ExecutionException.class,
        () -> grading.run("DELETE FROM bills").toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS));
    assertThat(refused.getCause()).isInstanceOf(Grader.QueryFailedException.class);
    assertThat(((Grader.QueryFailedException) refused.getCause()).errorType()).isEqualTo("rejected");
  }

  @Test
  void theSqlConsoleStaysCappedWhateverTheBodySays() throws Exception {
    JsonObject body = new JsonObject().put("sql", "SELECT bill_id FROM bills").put("grading", true).put("grade", true)
        .put("mode", "grading").put("address", Addresses.GATE_GRADE).put("row_cap", 100_000);
    var resp = service.client.post(service.port(), "127.0.0.1", "/api/query").putHeader("content-type", "application/json")
        .sendJsonObject(body).await(30, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.bodyAsJsonObject().getInteger("row_count")).isEqualTo(CAP);
    assertThat(resp.bodyAsJsonObject().getBoolean("truncated")).isTrue();
  }

  @Test
  void theEventBusBridgeRefusesTheGradingAddress() throws Exception {
    List<JsonObject> frames = exchange("/eventbus/websocket", List.of(
        new JsonObject().put("type", "send").put("address", Addresses.GATE_GRADE)
            .put("body", new JsonObject().put("sql", "SELECT bill_id FROM bills")).put("replyAddress", "r1"),
        new JsonObject().put("type", "publish").put("address", Addresses.GATE_GRADE)
            .put("body", new JsonObject().put("sql", "SELECT bill_id FROM bills")),
        new JsonObject().put("type", "register").put("address", Addresses.GATE_GRADE)), 3);
    assertThat(frames).extracting(f -> f.getString("type")).containsOnly("err");
    // The send and the register are denied by the bridge's permissions; every publish is refused before that.
    assertThat(frames).extracting(f -> f.getString("body")).containsExactlyInAnyOrder("access_denied", "rejected", "access_denied");
  }

  @Test
  void theLiveSocketHasNoGradingMessage() throws Exception {
    List<JsonObject> frames = exchange("/ws", List.of(new JsonObject().put("type", "grade").put("sql", "SELECT bill_id FROM bills"),
        new JsonObject().put("type", "send").put("address", Addresses.GATE_GRADE).put("sql", "SELECT 1")), 2);
    assertThat(frames).allSatisfy(f -> {
      assertThat(f.getString("type")).isEqualTo("error");
      assertThat(f.getString("message")).startsWith("unknown message type");
    });
  }

  @Test
  void mcpsRunQueryStaysCappedWhateverTheArgumentsSay() throws Exception {
    var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + service.port()).endpoint("/mcp").build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
    try {
      client.initialize();
      assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).noneMatch(n -> n.contains("grad"));
      for (String extra : List.of("grading", "row_cap", "address")) {
        var asked = client.callTool(new McpSchema.CallToolRequest("run_query", Map.of("sql", "SELECT bill_id FROM bills",
            extra, extra.equals("grading") ? true : extra.equals("row_cap") ? 100_000 : Addresses.GATE_GRADE)));
        assertThat(asked.isError()).as(extra).isTrue();
        assertThat(((McpSchema.TextContent) asked.content().get(0)).text()).contains("unknown argument '" + extra + "'");
      }
      var r = client.callTool(new McpSchema.CallToolRequest("run_query", Map.of("sql", "SELECT bill_id FROM bills")));
      assertThat(r.isError()).isFalse();
      JsonObject result = new JsonObject(io.vertx.core.json.Json.encode(r.structuredContent()));
      assertThat(result.getInteger("row_count")).isEqualTo(CAP);
      assertThat(result.getBoolean("truncated")).isTrue();
    } finally {
      client.closeGracefully();
    }
  }

  /**
   * No edge can name the address: in the service's sources only the gate (which serves it, as a local consumer, so
   * not even a cluster's other nodes reach it), the address list and the evaluation's client mention it.
   */
  @Test
  void onlyTheGateAndTheHarnessNameTheGradingAddress() throws IOException {
    Path main = Path.of("src/main/java/dev/sqlagent");
    List<String> naming = new ArrayList<>();
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String text = Files.readString(f);
        if (text.contains("GATE_GRADE") || text.contains("sqlagent.execution.grade")) naming.add(main.relativize(f).toString());
      }
    }
    // The harness reaches it through the gate's typed client (GateClient.grade), node-local.
    assertThat(naming).containsExactlyInAnyOrder("bus/Addresses.java", "execution/ExecutionVerticle.java",
        "contract/GateClient.java");
    String verticle = Files.readString(main.resolve("execution/ExecutionVerticle.java"));
    assertThat(verticle).contains("localConsumer(Addresses.GATE_GRADE").doesNotContain("consumer(Addresses.GATE_GRADE");
  }

  /** Sends text frames on a WebSocket of the service and returns the first {@code n} frames that come back. */
  static List<JsonObject> exchange(String uri, List<JsonObject> messages, int n) throws Exception {
    LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
    WebSocket ws = WsClients.of(service.vertx)
        .connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(service.port()).setURI(uri))
        .await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.binaryMessageHandler(b -> frames.add(new JsonObject(b)));
    try {
      for (JsonObject m : messages) ws.writeTextMessage(m.encode()).await(10, TimeUnit.SECONDS);
      List<JsonObject> out = new ArrayList<>();
      while (out.size() < n) {
        JsonObject f = frames.poll(20, TimeUnit.SECONDS);
        if (f == null) throw new AssertionError("no reply within 20 s; got " + out);
        out.add(f);
      }
      return out;
    } finally {
      ws.close();
    }
  }
}
