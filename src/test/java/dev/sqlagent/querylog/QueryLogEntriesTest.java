package dev.sqlagent.querylog;

import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.SchemaRequest;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.Flush;
import dev.sqlagent.contract.StateMessages.LogStatus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
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

  static Answer ask(String source) throws Exception {
    return new AgentClient(vertx, 120_000).ask(AskRequest.of("How many customers are there? (" + source + ")", source))
        .await(130, TimeUnit.SECONDS);
  }

  @Test
  void everyUserFacingEntryLeavesOneRowAndEvaluationNone() throws Exception {
    Map<String, String> runs = new HashMap<>();
    for (String source : List.of("cli", "eventbus", "mcp", "ws", "eval")) {
      Answer answer = ask(source);
      assertThat(answer.gaveUp()).as(answer.toJson().encodePrettily()).isFalse();
      runs.put(source, answer.runId());
    }
    LogStatus status = new StateClient(vertx, 30_000).flushLog(new Flush(20_000L)).await(30, TimeUnit.SECONDS);
    assertThat(status.dropped()).isZero();
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
    RetrievalClient retrieval = new RetrievalClient(vertx, 60_000);
    List<TableInfo> tables = retrieval.tables(new SchemaRequest(null)).await(60, TimeUnit.SECONDS).tables();
    assertThat(tables).isNotEmpty();
    assertThat(tables).extracting(TableInfo::name).doesNotContain("agent_query_log");
    Retrieval chosen = retrieval.retrieve(new Retrieval.Request(
            "which questions did the agent log, with their sql, attempts and errors?", true))
        .await(60, TimeUnit.SECONDS);
    assertThat(chosen.tables()).extracting(ScoredTable::name).doesNotContain("agent_query_log");
    assertThat(chosen.schema()).doesNotContain("agent_query_log");
  }
}
