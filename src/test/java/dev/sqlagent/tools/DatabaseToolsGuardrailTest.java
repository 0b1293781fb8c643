package dev.sqlagent.tools;

import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tool functions on the real pipeline, called directly (no MCP in between): every attack of the gate's
 * corpus is refused through run_query with the type the gate gives it, the query log and the system
 * catalogues stay invisible to every tool, and ask runs the whole agent.
 */
class DatabaseToolsGuardrailTest {

  static Vertx vertx;
  static FakeModelServer model;
  static DatabaseTools tools;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
    model.respondWith(req -> FakeModelServer.Reply.sql("SELECT count(*) AS n FROM bills", "count the bills"));
    TestDatabase db = TestDatabase.get();
    Map<String, String> env = new java.util.HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    var config = db.config(env);
    vertx.deployVerticle(new MainVerticle(config, db.target(), TestDatabase.get().state(), false)).await(120, TimeUnit.SECONDS);
    tools = new DatabaseTools(vertx, config.deadlines());
  }

  @AfterAll
  static void stop() throws Exception {
    awaitRetrievalIndex(vertx);
    vertx.close().await(30, TimeUnit.SECONDS);
  }
  /**
   * Waits for retrieval's background table index (RETRIEVE waits for it) before Vert.x closes: a JVM that
   * exits while ONNX is still loading the embedding model can die in native code.
   */
  static void awaitRetrievalIndex(Vertx vertx) {
    try {
      new RetrievalClient(vertx, 180_000).retrieve(new Retrieval.Request("bills", false)).await(200, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Best effort: the close below goes ahead either way.
    }
  }


  private static ToolResult call(String tool, JsonObject args) throws Exception {
    return tools.call(tool, args).await(60, TimeUnit.SECONDS);
  }

  @Test
  void everyAttackOfTheGateCorpusIsRefusedThroughRunQuery() throws Exception {
    List<JsonObject> attacks = new ArrayList<>();
    try (var in = DatabaseToolsGuardrailTest.class.getResourceAsStream("/gate/attacks.jsonl")) {
      assertThat(in).as("the gate's attack corpus on the test classpath").isNotNull();
      new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
          .filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(l -> attacks.add(new JsonObject(l)));
    }
    assertThat(attacks).hasSizeGreaterThan(100);
    String bills = billCount();
    List<String> wrong = new ArrayList<>();
    for (JsonObject attack : attacks) {
      ToolResult r = tools.runQuery(attack.getString("sql")).await(60, TimeUnit.SECONDS);
      if (!r.error() || !attack.getString("expected").equals(r.errorType())) {
        wrong.add(attack.getString("id") + " " + attack.getString("sql") + " -> " + r.data().encode());
      }
    }
    assertThat(wrong).as("attacks not refused as the gate refuses them").isEmpty();
    assertThat(billCount()).isEqualTo(bills);
  }

  @Test
  void theQueryLogAndTheCataloguesAreInvisibleToEveryTool() throws Exception {
    ToolResult list = call("list_tables", new JsonObject());
    assertThat(list.error()).isFalse();
    List<String> names = list.data().getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name")).toList();
    assertThat(names).contains("bills", "customers").doesNotContain("agent_query_log")
        .noneMatch(n -> n.startsWith("pg_") || n.startsWith("information_schema"));
    for (String hidden : List.of("agent_query_log", "AGENT_QUERY_LOG", "public.agent_query_log", "pg_authid",
        "pg_catalog.pg_class", "information_schema.columns")) {
      ToolResult d = call("describe_table", new JsonObject().put("name", hidden));
      assertThat(d.errorType()).as(hidden).isEqualTo("unknown_table");
      assertThat(d.message()).as(hidden).contains("the tables are:").contains("bills");
      assertThat(call("sample_rows", new JsonObject().put("name", hidden)).errorType()).as(hidden).isEqualTo("unknown_table");
    }
  }

  @Test
  void describeAndSampleAnswerForARealTable() throws Exception {
    ToolResult d = call("describe_table", new JsonObject().put("name", "Bills"));
    assertThat(d.error()).isFalse();
    assertThat(d.text()).contains("CREATE TABLE bills (", "PRIMARY KEY (bill_id)");
    assertThat(d.data().getString("ddl")).isEqualTo(d.text());
    ToolResult s = call("sample_rows", new JsonObject().put("name", "payments").put("n", 10));
    assertThat(s.error()).isFalse();
    assertThat(s.data().getJsonArray("rows")).hasSize(10);
  }

  @Test
  void emptySqlIsTheGatesRefusalWithAClearMessage() throws Exception {
    for (String blank : List.of("", "   \n\t ")) {
      ToolResult r = call("run_query", new JsonObject().put("sql", blank));
      assertThat(r.errorType()).isEqualTo("rejected");
      assertThat(r.data().getBoolean("repairable")).isFalse();
      assertThat(r.message()).isNotBlank();
    }
  }

  @Test
  void runQueryGivesRowsOrTheGatesStructuredError() throws Exception {
    ToolResult ok = call("run_query", new JsonObject().put("sql", "SELECT bill_id FROM bills ORDER BY bill_id"));
    assertThat(ok.error()).isFalse();
    assertThat(ok.data().getBoolean("truncated")).isTrue();
    ToolResult bad = call("run_query", new JsonObject().put("sql", "SELECT no_such_column FROM bills"));
    assertThat(bad.error()).isTrue();
    assertThat(bad.errorType()).isEqualTo("unknown_column");
    assertThat(bad.data().getBoolean("repairable")).isTrue();
    assertThat(bad.data().getString("sqlstate")).isEqualTo("42703");
  }

  @Test
  void askRunsTheWholeAgent() throws Exception {
    ToolResult r = call("ask", new JsonObject().put("question", "How many bills are there?"));
    assertThat(r.error()).as(r.text()).isFalse();
    JsonObject answer = r.data();
    assertThat(answer.getString("sql")).containsIgnoringCase("FROM bills");
    assertThat(answer.getBoolean("gave_up")).isFalse();
    assertThat(answer.getJsonArray("rows")).hasSize(1);
    assertThat(answer.getJsonArray("history")).isEmpty();
  }

  private static String billCount() throws Exception {
    ToolResult r = tools.runQuery("SELECT count(*) FROM bills").await(60, TimeUnit.SECONDS);
    assertThat(r.error()).as(r.text()).isFalse();
    return String.valueOf(r.data().getJsonArray("rows").getJsonArray(0).getValue(0));
  }
}
