package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.SavedRuns;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The evaluation counts how often the agent asked back and what asking is worth: with a stand-in agent that asks on
 * every other question (its vote's pick wrong, one of its readings right), accuracy is 0.5 with the vote's pick and
 * 1.0 with the reading a person would choose; the readings' SQL is graded through the gate like any answer.
 */
class EvalClarificationTest extends GateEvalTest {

  static final String ADDRESS = "test.eval.clarification";

  SavedRuns saved;

  @BeforeEach
  void noteSavedRuns() {
    saved = SavedRuns.snapshot();
  }

  @AfterEach
  void removeTheRunsMade() {
    saved.cleanUp();
  }

  static JsonObject reading(int n, String sql, boolean pick) {
    return new JsonObject().put("reading", n).put("description", "reading " + n).put("sql", sql).put("row_count", 1)
        .put("columns", new JsonArray()).put("sample", new JsonArray()).put("votes", 1).put("vote_pick", pick);
  }

  static MessageConsumer<JsonObject> agent(List<Question> questions) {
    Map<String, Integer> index = questions.stream().collect(Collectors.toMap(Question::question, questions::indexOf));
    Map<String, Question> byText = questions.stream().collect(Collectors.toMap(Question::question, Function.identity()));
    return vertx.eventBus().<JsonObject>consumer(ADDRESS, msg -> {
      Question q = byText.get(msg.body().getString("question"));
      boolean ambiguous = index.get(q.question()) % 2 == 1;
      vertx.executeBlocking(() -> {
        String wrong = "SELECT 424242 AS wrong";
        JsonObject a = Answers.answered(db, ambiguous ? wrong : q.goldSql().get(0), 1);
        if (ambiguous) {
          a.put("clarification", new JsonObject().put("reason", "split_vote").put("readings", new JsonArray()
              .add(reading(1, wrong, true)).add(reading(2, q.goldSql().get(0), false))));
        }
        return a;
      }, false).onSuccess(msg::reply).onFailure(e -> msg.fail(500, e.getMessage()));
    });
  }

  @Test
  void askingIsCountedWithTheAccuracyOfTheVotesPickAndOfTheReadingChosen() throws Exception {
    List<Question> questions = QuestionSet.shipped().stream().filter(q -> q.category().answerable()).limit(4).toList();
    MessageConsumer<JsonObject> consumer = agent(questions);
    try {
      EvalRunner.Options options = EvalRunner.Options.of().withAskAddress(ADDRESS).withAskTimeoutMs(30_000)
          .withCandidates(List.of(3));
      EvalRun run = new EvalRunner(vertx, db.grading, saved.store(), options).run(questions).await(5, TimeUnit.MINUTES);
      JsonObject mode = run.summary().getJsonObject("modes").getJsonObject("agent@3");
      assertThat(mode.getDouble("accuracy")).isEqualTo(0.5);
      assertThat(mode.getJsonObject("clarification")).isEqualTo(new JsonObject().put("graded", 4).put("asked", 2)
          .put("asked_rate", 0.5).put("asked_vote_correct", 0).put("asked_reading_correct", 2)
          .put("accuracy_vote_pick", 0.5).put("accuracy_asked_reading", 1.0));
      assertThat(Summary.table(run.summary())).contains("asked back (needs_clarification)").contains("2 of 4")
          .contains("0.5000 / 1.0000");
    } finally {
      consumer.unregister().await(10, TimeUnit.SECONDS);
    }
  }
}
