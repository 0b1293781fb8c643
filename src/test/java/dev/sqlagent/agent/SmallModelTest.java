package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.StoredValuesReady;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a small real model does, replayed through the whole agent on the demo (the real gate on the real database):
 * the model's SQL call is constrained to the reply schema, and the replies recorded from a 0.5B model on Spider dev
 * (constrained or not) still reach an answer or an honest give-up, with no reply lost to its format.
 */
class SmallModelTest {

  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    StoredValuesReady.await(service.vertx);
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

  static JsonObject ask(String question) throws Exception {
    return new AgentClient(service.vertx, 60_000).ask(AskRequest.of(question, null)
            .withOptions(new RunOptions(true, false, false, 1, null)))
        .await(70, TimeUnit.SECONDS).toJson();
  }

  @Test
  void theSqlCallAsksForTheReplySchema() throws Exception {
    model.enqueue(Reply.sql("SELECT count(*) AS n FROM customers"));
    JsonObject a = ask("How many customers are there?");
    assertThat(a.getBoolean("gave_up")).isFalse();
    JsonObject sent = model.requests().get(0).body();
    assertThat(sent.getJsonObject("response_format").getString("type")).isEqualTo("json_schema");
    assertThat(sent.getInteger("max_tokens")).isPositive();
  }

  @Test
  void aRepairThatRepeatsTheFailedQueryWordForWordIsAskedAgainWithSomeRandomness() throws Exception {
    // Recorded from a 0.5B model: after an unknown column, with the columns that exist in the hint, the
    // model answered the same query again on both repairs, at temperature 0 and at 0.7.
    String failing = "SELECT count(*) FROM bills WHERE amount > 100";
    model.enqueue(Reply.sql(failing), Reply.sql(failing + ";"), Reply.sql("SELECT count(*) FROM bills WHERE total_amt > 100"));
    JsonObject a = ask("How many bills are over 100?");
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(a.getString("sql")).contains("total_amt");
    List<FakeModelServer.Recorded> sent = model.requests();
    assertThat(sent).hasSize(3);
    assertThat(sent.get(1).body().getValue("temperature")).isEqualTo(0);
    assertThat(sent.get(2).body().getDouble("temperature")).isEqualTo(0.7);
    assertThat(sent.get(2).lastUserMessage()).contains("already failed in attempt 1").contains("unknown_column");
    // The repeat was never run: the history has the one failed attempt.
    assertThat(a.getJsonArray("history")).hasSize(1);
  }

  @Test
  void aModelWithASmallContextGetsTheSchemaCutToFitIt() throws Exception {
    String question = "How many bills did each customer pay, by month, with their discounts?";
    model.enqueue(Reply.sql("SELECT count(*) AS n FROM bills"));
    ask(question);
    String whole = model.requests().get(0).systemMessage();
    assertThat(whole).doesNotContain("more columns");
    try (FakeModelServer small = FakeModelServer.start();
         RunningService cut = RunningService.start(small, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain",
             "SQLAGENT_LLM_CONTEXT_TOKENS", "2600"))) {
      small.enqueue(Reply.sql("SELECT count(*) AS n FROM bills"));
      new AgentClient(cut.vertx, 60_000).ask(AskRequest.of(question, null)).await(70, TimeUnit.SECONDS);
      String fitted = small.requests().get(0).systemMessage();
      assertThat(fitted).contains("more columns");
      assertThat(fitted.length()).isLessThan(whole.length());
    }
  }
}
