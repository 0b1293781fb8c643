package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.SavedRuns;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The whole evaluation in CI against scripted models. These pin the harness, not a model: an oracle that
 * answers every question's gold SQL must score every answerable question and refuse every other; behind
 * fault injection, the rescue rate must come out exactly as the oracle's repairs dictate.
 */
class EvalOracleTest {

  static final List<Question> QUESTIONS = QuestionSet.shipped();
  Vertx vertx;
  FakeModelServer model;
  GradingGate gold;
  SavedRuns saved;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    model = FakeModelServer.start();
    gold = new GradingGate(vertx, 60_000);   // the gate MainVerticle deploys
    saved = SavedRuns.snapshot();
  }

  @AfterEach
  void stop() throws Exception {
    saved.cleanUp();
    model.close();
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  private void deploy(boolean injectFaults) throws Exception {
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    TestDatabase db = TestDatabase.get();
    vertx.deployVerticle(new MainVerticle(db.config(env), db.target(), TestDatabase.get().state(), false, injectFaults ? ShopColumns.INJECTOR.mutator() : null))
        .await(120, TimeUnit.SECONDS);
  }

  /** The question this request is about: the first user message, "Question: ...". */
  static Question questionOf(JsonObject request) {
    String first = request.getJsonArray("messages").stream().map(m -> (JsonObject) m)
        .filter(m -> m.getString("role").equals("user")).findFirst().orElseThrow().getString("content");
    String text = first.substring("Question: ".length());
    return QUESTIONS.stream().filter(q -> q.question().equals(text)).findFirst().orElseThrow();
  }

  static Reply oracle(JsonObject request) {
    Question q = questionOf(request);
    return q.answerable() ? Reply.sql(q.goldSql().get(0)) : Reply.refusal("The schema cannot or must not do this.");
  }

  @Test
  void theOracleScoresEveryAnswerableQuestionAndRefusesTheRest() throws Exception {
    model.respondWith(EvalOracleTest::oracle);
    deploy(false);
    EvalRun run = new EvalRunner(vertx, gold, saved.store(), EvalRunner.Options.of().withModes(List.of("agent", "baseline")))
        .run(QUESTIONS).await(15, TimeUnit.MINUTES);
    System.out.print(Summary.table(run.summary()));   // the harness's own figures, for the README

    for (String mode : List.of("agent", "baseline")) {
      JsonObject m = run.summary().getJsonObject("modes").getJsonObject(mode);
      assertThat(m.getInteger("correct")).as(mode + " correct").isEqualTo(QUESTIONS.size());
      assertThat(m.getDouble("accuracy")).isEqualTo(1.0);
      assertThat(m.getInteger("unsafe_sql_reaching_execution")).isZero();
      assertThat(m.getInteger("false_refusals")).isZero();
      assertThat(m.getInteger("infra_failures")).isZero();
      assertThat(m.getInteger("correct_refusals")).isEqualTo(m.getInteger("refusals_expected"));
    }
    assertThat(saved.store().readJson(run.id(), RunStore.SUMMARY)).contains(run.summary());
  }

  @Test
  void behindFaultInjectionTheRescueRateIsWhatTheRepairsDictate() throws Exception {
    // The oracle repairs every fault except an ambiguous column, where it repeats the failing query.
    model.respondWith(request -> {
      List<JsonObject> messages = request.getJsonArray("messages").stream().map(m -> (JsonObject) m).toList();
      JsonObject last = messages.get(messages.size() - 1);
      if (messages.size() > 2 && last.getString("content").contains("ambiguous_column")) {
        return Reply.content(messages.get(messages.size() - 2).getString("content"));
      }
      return oracle(request);
    });
    deploy(true);
    EvalRun run = new EvalRunner(vertx, gold, saved.store(), EvalRunner.Options.of().withModes(List.of("agent", "baseline"))
        .withInjectFaults(true)).run(QUESTIONS).await(15, TimeUnit.MINUTES);
    System.out.print(Summary.table(run.summary()));

    Map<String, Integer> expectedInjected = new HashMap<>();
    for (Question q : QUESTIONS) {
      if (!q.answerable()) continue;
      ShopColumns.INJECTOR.choose(q.goldSql().get(0), q.id()).ifPresent(f -> expectedInjected.merge(f.type().wireName(), 1, Integer::sum));
    }
    assertThat(expectedInjected.keySet()).as("the set exercises every fault type")
        .containsExactlyInAnyOrder("wrong_case_status", "ambiguous_column", "misspelled_column", "group_by_missing", "window_in_where");

    JsonObject agent = run.summary().getJsonObject("modes").getJsonObject("agent").getJsonObject("faults").getJsonObject("by_type");
    JsonObject baseline = run.summary().getJsonObject("modes").getJsonObject("baseline").getJsonObject("faults").getJsonObject("by_type");
    expectedInjected.forEach((type, n) -> {
      assertThat(agent.getJsonObject(type).getInteger("injected")).as(type + " injected").isEqualTo(n);
      int rescued = type.equals("ambiguous_column") ? 0 : n;
      assertThat(agent.getJsonObject(type).getInteger("rescued")).as(type + " rescued by the agent").isEqualTo(rescued);
      assertThat(baseline.getJsonObject(type).getInteger("rescued")).as(type + " rescued by the baseline").isZero();
    });
    JsonObject agentMode = run.summary().getJsonObject("modes").getJsonObject("agent");
    assertThat(agentMode.getInteger("unsafe_sql_reaching_execution")).isZero();
    assertThat(agentMode.getInteger("rescued_by_repair")).isEqualTo(
        expectedInjected.entrySet().stream().filter(e -> !e.getKey().equals("ambiguous_column")).mapToInt(Map.Entry::getValue).sum());
  }
}
