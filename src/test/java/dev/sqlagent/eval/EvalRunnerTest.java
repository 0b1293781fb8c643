package dev.sqlagent.eval;

import dev.sqlagent.bus.BusFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.SavedRuns;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner against a scripted stand-in on the ask address (the answer contract, real database): what it
 * sends, what it saves (in the state store, and exported only when asked), how it counts. The end-to-end run through the real agent and the fake model
 * server lives with the agent.
 */
class EvalRunnerTest extends GateEvalTest {

  static final String ADDRESS = "test.eval.ask";

  SavedRuns saved;
  RunStore store;

  @BeforeEach
  void noteSavedRuns() {
    saved = SavedRuns.snapshot();
    store = saved.store();
  }

  @AfterEach
  void removeTheRunsMade() {
    saved.cleanUp();
  }

  EvalRunner runner(EvalRunner.Options options) {
    return new EvalRunner(vertx, db.grading, store, options);
  }

  /** Answers each question with its first gold query's real result, refuses the rest; records requests. */
  static MessageConsumer<JsonObject> oracle(List<Question> questions, List<JsonObject> requests) {
    Map<String, Question> byText = questions.stream().collect(Collectors.toMap(Question::question, Function.identity()));
    return vertx.eventBus().<JsonObject>consumer(ADDRESS, msg -> {
      requests.add(msg.body());
      Question q = byText.get(msg.body().getString("question"));
      vertx.executeBlocking(() -> q.answerable()
              ? Answers.answered(db, q.goldSql().get(0), 1).put("mode", msg.body().getString("mode"))
              : Answers.refused(), false)
          .onSuccess(msg::reply)
          .onFailure(e -> msg.fail(500, e.getMessage()));
    });
  }

  static EvalRunner.Options options() {
    return EvalRunner.Options.of().withAskAddress(ADDRESS).withAskTimeoutMs(30_000);
  }

  @Test
  void theOracleScoresEverythingInBothModesAndEveryRunIsSaved() throws Exception {
    List<Question> questions = QuestionSet.shipped();
    List<JsonObject> requests = new CopyOnWriteArrayList<>();
    List<String> progress = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> agent = oracle(questions, requests);
    try {
      EvalRunner runner = runner(options().withModes(List.of("agent", "baseline")).withRuns(2)
          .withProgress(progress::add));
      EvalRun run = runner.run(questions).await(5, TimeUnit.MINUTES);

      int n = questions.size();
      assertThat(run.verdicts()).hasSize(n * 2 * 2).allMatch(Verdict::correct);
      assertThat(progress).hasSize(n * 4);
      for (String mode : List.of("agent", "baseline")) {
        JsonObject m = run.summary().getJsonObject("modes").getJsonObject(mode);
        assertThat(m.getDouble("accuracy")).isEqualTo(1.0);
        assertThat(m.getInteger("samples")).isEqualTo(n * 2);
        assertThat(m.getInteger("unsafe_sql_reaching_execution")).isZero();
        assertThat(m.getInteger("false_refusals")).isZero();
      }
      // Every ask says where it comes from and in which mode; agent first, then baseline.
      assertThat(requests).allMatch(r -> "eval".equals(r.getString("source")));
      assertThat(requests.subList(0, n * 2)).allMatch(r -> "agent".equals(r.getString("mode")));
      assertThat(requests.subList(n * 2, n * 4)).allMatch(r -> "baseline".equals(r.getString("mode")));
      assertThat(requests).noneMatch(r -> r.containsKey("inject_fault"));
      // An evaluation's options are explicit: no verified queries, no conversation, its own pace.
      assertThat(requests).allMatch(r -> Boolean.FALSE.equals(r.getValue("lookup_verified"))
          && Boolean.TRUE.equals(r.getValue("standalone")) && Boolean.TRUE.equals(r.getValue("self_paced")));

      // Saved in the state store, every file of it; nothing exported.
      assertThat(saved.made()).containsExactly(run.id());
      assertThat(run.exportDir()).isNull();
      assertThat(store.readJson(run.id(), RunStore.RUN)).get()
          .satisfies(meta -> assertThat(meta.getString("run_id")).isEqualTo(run.id()));
      assertThat(store.readLines(run.id(), RunStore.QUESTIONS)).hasSize(n);
      assertThat(store.readLines(run.id(), RunStore.ANSWERS)).hasSize(n * 4);
      assertThat(store.readLines(run.id(), RunStore.VERDICTS)).hasSize(n * 4)
          .allMatch(v -> v.getJsonObject("tokens") != null && v.containsKey("latency_ms") && v.containsKey("attempts"));
      assertThat(store.readJson(run.id(), RunStore.SUMMARY)).contains(run.summary());
      assertThat(run.summary().getString("run_id")).isEqualTo(run.id());
      assertThat(run.summary().getInteger("runs")).isEqualTo(2);
      assertThat(Summary.table(run.summary())).contains("100.0%");
    } finally {
      agent.unregister().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSecondRunNeverOverwritesTheFirst() throws Exception {
    List<Question> few = QuestionSet.shipped().subList(0, 2);
    MessageConsumer<JsonObject> agent = oracle(few, new CopyOnWriteArrayList<>());
    try {
      EvalRunner runner = runner(options());
      EvalRun first = runner.run(few).await(60, TimeUnit.SECONDS);
      EvalRun second = runner.run(few).await(60, TimeUnit.SECONDS);
      assertThat(second.id()).isNotEqualTo(first.id()).matches(RunStore.RUN_NAME);
      assertThat(saved.made()).containsExactly(second.id(), first.id());
      assertThat(store.latestSummary()).contains(second.summary());
      assertThat(store.readLines(first.id(), RunStore.ANSWERS)).hasSize(2);
    } finally {
      agent.unregister().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void faultInjectionIsAskedForOnAnswerableQuestionsOnly() throws Exception {
    List<Question> qs = QuestionSet.shipped().stream()
        .filter(q -> List.of("s04", "h14", "u01", "x01").contains(q.id())).toList();
    List<JsonObject> requests = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> agent = oracle(qs, requests);
    try {
      EvalRun run = runner(options().withInjectFaults(true)).run(qs).await(60, TimeUnit.SECONDS);
      assertThat(requests).filteredOn(r -> r.getBoolean("inject_fault", false))
          .extracting(r -> r.getString("fault_key")).containsExactly("s04", "h14");
      assertThat(run.summary().getBoolean("inject_faults")).isTrue();
      // This stand-in injects nothing, so the faults table reports them as not applied.
      assertThat(run.summary().getJsonObject("modes").getJsonObject("agent").getJsonObject("faults")
          .getJsonObject("not_applied").getInteger("samples")).isEqualTo(2);
    } finally {
      agent.unregister().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void modelFailuresAndTimeoutsAreInfrastructureFailures() throws Exception {
    List<Question> qs = QuestionSet.shipped().subList(0, 2);
    MessageConsumer<JsonObject> agent = vertx.eventBus().consumer(ADDRESS, msg -> {
      if (msg.body().getString("question").equals(qs.get(0).question())) {
        msg.fail(BusFailure.UNAVAILABLE.code(), "the model server refused the connection");
      }
      // the second question never gets a reply: the ask times out
    });
    try {
      EvalRun run = runner(options().withAskTimeoutMs(300)).run(qs).await(60, TimeUnit.SECONDS);
      assertThat(run.verdicts()).extracting(Verdict::infraType).containsExactly("agent_unavailable", "ask_timeout");
      JsonObject agentMode = run.summary().getJsonObject("modes").getJsonObject("agent");
      assertThat(agentMode.getInteger("infra_failures")).isEqualTo(2);
      assertThat(agentMode.getInteger("graded")).isZero();
      assertThat(agentMode.getValue("accuracy")).isNull();
    } finally {
      agent.unregister().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutAnAgentTheRunStopsWithAClearMessageAndLeavesNothing(@TempDir Path root) throws Exception {
    EvalRunner runner = runner(options().withAskAddress("test.eval.nobody").withExportDir(root));
    assertThatThrownBy(() -> runner.run(QuestionSet.shipped().subList(0, 1)).await(60, TimeUnit.SECONDS))
        .isInstanceOf(EvalRunner.NoAgentException.class).hasMessageContaining("no agent is listening on test.eval.nobody");
    assertThat(saved.made()).isEmpty();
    try (var left = Files.list(root)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void anInterruptedRunKeepsTheAnswersItHad() throws Exception {
    List<Question> qs = QuestionSet.shipped().subList(0, 3);
    List<JsonObject> requests = new CopyOnWriteArrayList<>();
    // The agent answers the first question and goes away before its reply is sent.
    MessageConsumer<JsonObject>[] agent = new MessageConsumer[1];
    agent[0] = vertx.eventBus().<JsonObject>consumer(ADDRESS, msg -> {
      requests.add(msg.body());
      agent[0].unregister().onComplete(v -> vertx.executeBlocking(() -> Answers.answered(db, qs.get(0).goldSql().get(0), 1), false)
          .onSuccess(msg::reply));
    });
    agent[0].completion().await(5, TimeUnit.SECONDS);
    EvalRunner runner = runner(options());
    assertThatThrownBy(() -> runner.run(qs).await(60, TimeUnit.SECONDS)).isInstanceOf(EvalRunner.NoAgentException.class);
    assertThat(requests).hasSize(1);
    assertThat(saved.made()).hasSize(1);
    String id = saved.made().get(0);
    assertThat(store.readLines(id, RunStore.ANSWERS)).hasSize(1)
        .allMatch(a -> qs.get(0).id().equals(a.getString("question_id")));
    assertThat(store.readLines(id, RunStore.VERDICTS)).hasSize(1);
    assertThat(store.readJson(id, RunStore.SUMMARY)).isEmpty();
    assertThat(store.latestSummary().map(s -> s.getString("run_id"))).isNotEqualTo(java.util.Optional.of(id));
  }

  @Test
  void outExportsEveryFileAsTheStoreHoldsIt(@TempDir Path root) throws Exception {
    List<Question> few = QuestionSet.shipped().subList(0, 2);
    MessageConsumer<JsonObject> agent = oracle(few, new CopyOnWriteArrayList<>());
    try {
      EvalRun run = runner(options().withExportDir(root)).run(few).await(60, TimeUnit.SECONDS);
      assertThat(run.exportDir()).isEqualTo(root.resolve(run.id()));
      assertThat(saved.made()).containsExactly(run.id());
      for (String f : List.of(RunStore.RUN, RunStore.SUMMARY)) {
        assertThat(RunFiles.readJson(run.exportDir().resolve(f))).isEqualTo(store.readJson(run.id(), f).orElseThrow());
      }
      for (String f : List.of(RunStore.QUESTIONS, RunStore.ANSWERS, RunStore.VERDICTS)) {
        assertThat(RunFiles.readLines(run.exportDir().resolve(f))).isNotEmpty().isEqualTo(store.readLines(run.id(), f));
      }
    } finally {
      agent.unregister().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBrokenGoldQueryStopsTheRunBeforeAnyQuestionIsAsked() throws Exception {
    List<JsonObject> requests = new CopyOnWriteArrayList<>();
    Question broken = new Question("bad", Question.Category.SIMPLE, "?", List.of("SELECT nope FROM bills"), false);
    MessageConsumer<JsonObject> agent = oracle(List.of(broken), requests);
    try {
      assertThatThrownBy(() -> runner(options()).run(List.of(broken)).await(60, TimeUnit.SECONDS))
          .hasMessageContaining("question bad");
      assertThat(requests).isEmpty();
      assertThat(saved.made()).isEmpty();
    } finally {
      agent.unregister().await(5, TimeUnit.SECONDS);
    }
  }
}
