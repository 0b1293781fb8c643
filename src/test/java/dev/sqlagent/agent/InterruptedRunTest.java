package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.ServiceProcess;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A service killed with SIGKILL while it answers a question (its model slow to reply) leaves the run claimed and
 * unanswered. The next start records it as interrupted: in the list of runs, in the query log and as its
 * conversation's turn; its id stays taken.
 */
class InterruptedRunTest {

  static FakeModelServer model;
  static Vertx vertx;
  static WebClient client;

  @BeforeAll
  static void start() {
    model = FakeModelServer.start();
    model.respondWith(req -> FakeModelServer.lastUserMessage(req).contains("cut short")
        ? Reply.hang() : Reply.sql("SELECT count(*) AS customers FROM customers"));
    vertx = Vertx.vertx();
    client = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() {
    if (vertx != null) vertx.close().await();
    if (model != null) model.close();
  }

  @Test
  void aRunCutByKill9IsRecordedAsInterruptedAtTheNextStart() throws Exception {
    String runId = "cut-" + UUID.randomUUID();
    Map<String, String> settings = new HashMap<>(model.env());
    settings.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    settings.put("SQLAGENT_LLM_TIMEOUT_MS", "300000");
    settings.put("SQLAGENT_QUESTION_TIMEOUT_MS", "600000");
    try (ServiceProcess first = ServiceProcess.start("interrupted", List.of("-Xmx512m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"), TestDatabase.get().env(settings))) {
      first.awaitReady(300);
      client.post(first.httpPort, "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "How many customers are there (cut short)?").put("run_id", runId));
      awaitModelAsked("cut short", 120);
      first.process.destroyForcibly();  // SIGKILL: nothing of the run is written on the way out
      assertThat(first.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    try (RunningService again = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"))) {
      JsonObject run = awaitListed(again, runId);
      assertThat(run.getString("state")).isEqualTo("interrupted");
      assertThat(run.getString("question")).isEqualTo("How many customers are there (cut short)?");

      Map<String, Object> row = awaitLogRow(runId);
      assertThat(row.get("gave_up")).isEqualTo(true);
      assertThat(row.get("error_types")).isEqualTo("{interrupted}");
      assertThat(row.get("question")).isEqualTo("How many customers are there (cut short)?");
      String conversation = (String) row.get("conversation_id");
      assertThat(conversation).isNotBlank();

      JsonObject turn = awaitTurn(again, conversation);
      assertThat(turn.getString("run_id")).isEqualTo(runId);
      assertThat(turn.getString("outcome")).isEqualTo("gave_up");
      assertThat(turn.getString("answer")).contains("stopped").contains("before this question was answered");

      // Its id is still its own.
      HttpResponse<Buffer> reused = again.client.post(again.port(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "How many customers are there?").put("run_id", runId))
          .await(60, TimeUnit.SECONDS);
      assertThat(reused.statusCode()).as(reused.bodyAsString()).isEqualTo(400);
    }
  }

  static void awaitModelAsked(String marker, int seconds) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < until) {
      if (model.requests().stream().anyMatch(r -> r.lastUserMessage().contains(marker))) return;
      Thread.sleep(100);
    }
    throw new AssertionError("the model was not asked about \"" + marker + "\" within " + seconds + " s");
  }

  static JsonObject awaitListed(RunningService service, String runId) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    JsonArray runs = new JsonArray();
    while (System.nanoTime() < until) {
      runs = service.client.get(service.port(), "127.0.0.1", "/api/runs").send().await(10, TimeUnit.SECONDS)
          .bodyAsJsonObject().getJsonArray("runs");
      for (Object r : runs) {
        if (runId.equals(((JsonObject) r).getString("run_id"))) return (JsonObject) r;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("run " + runId + " is not listed: " + runs.encode());
  }

  static Map<String, Object> awaitLogRow(String runId) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < until) {
      try (Connection c = TestDatabase.get().state().ownerConnection(); PreparedStatement ps = c.prepareStatement(
          "SELECT question, gave_up, error_types::text, conversation_id FROM agent_query_log WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            Map<String, Object> row = new HashMap<>();
            row.put("question", rs.getString(1));
            row.put("gave_up", rs.getBoolean(2));
            row.put("error_types", rs.getString(3));
            row.put("conversation_id", rs.getString(4));
            return row;
          }
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no query-log row for run " + runId);
  }

  static JsonObject awaitTurn(RunningService service, String conversation) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "";
    while (System.nanoTime() < until) {
      HttpResponse<Buffer> r = service.client.get(service.port(), "127.0.0.1", "/api/conversations/" + conversation)
          .send().await(10, TimeUnit.SECONDS);
      last = r.statusCode() + " " + r.bodyAsString();
      if (r.statusCode() == 200 && !r.bodyAsJsonObject().getJsonArray("turns").isEmpty()) {
        return r.bodyAsJsonObject().getJsonArray("turns").getJsonObject(0);
      }
      Thread.sleep(200);
    }
    throw new AssertionError("conversation " + conversation + " has no turn: " + last);
  }
}
