package dev.sqlagent.querylog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole agent (gate, retrieval, generation against the fake model) without HTTP, as the CLI, MCP and
 * evaluation run it: each user-facing entry leaves one row, evaluation none; and the schema the agent is
 * offered never includes the log.
 */
class QueryLogEntriesTest {

  static Vertx vertx;
  static FakeModelServer model;

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
    model.respondWith(req -> Reply.sql("SELECT count(*) AS customers FROM customers"));
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    vertx.deployVerticle(new MainVerticle(db.config(env), db.target(), TestDatabase.get().state(), false)).await(5, TimeUnit.MINUTES);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(60, TimeUnit.SECONDS);
  }

  static JsonObject ask(String source) throws Exception {
    return vertx.eventBus().<JsonObject>request(Addresses.ASK,
            new JsonObject().put("question", "How many customers are there? (" + source + ")").put("source", source),
            new DeliveryOptions().setSendTimeout(120_000))
        .await(130, TimeUnit.SECONDS).body();
  }

  @Test
  void everyUserFacingEntryLeavesOneRowAndEvaluationNone() throws Exception {
    Map<String, String> runs = new HashMap<>();
    for (String source : List.of("cli", "eventbus", "mcp", "ws", "eval")) {
      JsonObject answer = ask(source);
      assertThat(answer.getBoolean("gave_up")).as(answer.encodePrettily()).isFalse();
      runs.put(source, answer.getString("run_id"));
    }
    JsonObject status = vertx.eventBus().<JsonObject>request(Addresses.QUERY_LOG_FLUSH, new JsonObject().put("timeout_ms", 20_000))
        .await(30, TimeUnit.SECONDS).body();
    assertThat(status.getLong("dropped")).isZero();
    List<Map<String, Object>> rows = QueryLogTest.rows(List.copyOf(runs.values()));
    assertThat(rows).extracting(r -> r.get("source")).containsExactlyInAnyOrder("cli", "eventbus", "mcp", "ws");
    Map<String, Object> cli = rows.stream().filter(r -> r.get("source").equals("cli")).findFirst().orElseThrow();
    assertThat(cli.get("run_id")).isEqualTo(runs.get("cli"));
    assertThat((String) cli.get("final_sql")).contains("FROM customers");
    assertThat(cli.get("model")).isEqualTo(FakeModelServer.MODEL);
    assertThat(cli.get("rows_returned")).isEqualTo(1);
  }

  @Test
  void theSchemaOfferedToTheAgentNeverIncludesTheLog() throws Exception {
    JsonObject schema = vertx.eventBus().<JsonObject>request(Addresses.SCHEMA, new JsonObject()).await(60, TimeUnit.SECONDS).body();
    JsonArray tables = schema.getJsonArray("tables");
    assertThat(tables).isNotEmpty();
    assertThat(tables.stream().map(t -> ((JsonObject) t).getString("name"))).doesNotContain("agent_query_log");
    JsonObject chosen = vertx.eventBus().<JsonObject>request(Addresses.RETRIEVE,
            new JsonObject().put("question", "which questions did the agent log, with their sql, attempts and errors?").put("widen", true))
        .await(60, TimeUnit.SECONDS).body();
    assertThat(chosen.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name"))).doesNotContain("agent_query_log");
    assertThat(chosen.getString("schema")).doesNotContain("agent_query_log");
  }
}
