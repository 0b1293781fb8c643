package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.SavedRuns;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --candidates 1,3}: the agent is asked once per candidate count, the summary has a column for each
 * (accuracy, tokens, latency) and counts how often the vote changed the answer from the first candidate.
 */
class EvalCandidatesTest extends GateEvalTest {

  static final String ADDRESS = "test.eval.candidates";

  SavedRuns saved;

  @BeforeEach
  void noteSavedRuns() {
    saved = SavedRuns.snapshot();
  }

  @AfterEach
  void removeTheRunsMade() {
    saved.cleanUp();
  }

  /**
   * A stand-in agent: alone, it gets every other question wrong; with three candidates the vote picks the
   * second candidate on exactly those questions and gets them right. Three candidates cost three times the tokens.
   */
  static MessageConsumer<JsonObject> agent(List<Question> questions, List<JsonObject> requests) {
    Map<String, Integer> index = questions.stream().collect(Collectors.toMap(Question::question, questions::indexOf));
    Map<String, Question> byText = questions.stream().collect(Collectors.toMap(Question::question, Function.identity()));
    return vertx.eventBus().<JsonObject>consumer(ADDRESS, msg -> {
      requests.add(msg.body());
      Question q = byText.get(msg.body().getString("question"));
      boolean hard = index.get(q.question()) % 2 == 1;
      int n = msg.body().getInteger("candidates", 1);
      vertx.executeBlocking(() -> {
        JsonObject a = Answers.answered(db, n == 1 && hard ? "SELECT 424242 AS wrong" : q.goldSql().get(0), 1)
            .put("tokens", new JsonObject().put("prompt", 100 * n).put("completion", 20 * n));
        if (n > 1) {
          JsonArray c = new JsonArray();
          for (int i = 0; i < n; i++) {
            c.add(new JsonObject().put("sql", "SELECT " + i).put("ok", true).put("fingerprint", "f" + i)
                .put("votes", 1).put("chosen", hard ? i == 1 : i == 0));
          }
          a.put("candidates", c);
        }
        return a;
      }, false).onSuccess(msg::reply).onFailure(e -> msg.fail(500, e.getMessage()));
    });
  }

  @Test
  void eachCandidateCountIsAColumnWithItsAccuracyTokensAndVotes() throws Exception {
    List<Question> questions = QuestionSet.shipped().stream().filter(q -> q.category().answerable()).limit(4).toList();
    List<JsonObject> requests = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> consumer = agent(questions, requests);
    try {
      EvalRunner.Options options = EvalRunner.Options.of().withAskAddress(ADDRESS).withAskTimeoutMs(30_000)
          .withCandidates(List.of(1, 3));
      EvalRun run = new EvalRunner(vertx, db.grading, saved.store(), options).run(questions).await(5, TimeUnit.MINUTES);

      JsonObject modes = run.summary().getJsonObject("modes");
      assertThat(modes.fieldNames()).containsExactly("agent", "agent@3");
      assertThat(modes.getJsonObject("agent").getDouble("accuracy")).isEqualTo(0.5);
      assertThat(modes.getJsonObject("agent@3").getDouble("accuracy")).isEqualTo(1.0);
      assertThat(modes.getJsonObject("agent").getJsonObject("tokens").getLong("prompt")).isEqualTo(400);
      assertThat(modes.getJsonObject("agent@3").getJsonObject("tokens").getLong("prompt")).isEqualTo(1200);
      assertThat(modes.getJsonObject("agent").containsKey("vote")).isFalse();
      assertThat(modes.getJsonObject("agent@3").getJsonObject("vote")).isEqualTo(new JsonObject()
          .put("voted", 4).put("changed", 2).put("changed_rate", 0.5).put("changed_correct", 2));
      assertThat(run.summary().getJsonArray("candidates")).containsExactly(1, 3);
      assertThat(requests.subList(0, 4)).noneMatch(r -> r.containsKey("candidates"));
      assertThat(requests.subList(4, 8)).allMatch(r -> r.getInteger("candidates") == 3 && "agent".equals(r.getString("mode")));

      String table = Summary.table(run.summary());
      assertThat(table).contains("agent@3").contains("vote changed the answer").contains("2 of 4 (2 correct)");
    } finally {
      consumer.unregister().await(10, TimeUnit.SECONDS);
    }
  }
}
