package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.eval.Question.Category;
import dev.sqlagent.results.ResultComparator.Match;
import dev.sqlagent.eval.Verdict.Outcome;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary's numbers from synthetic verdicts. */
class SummaryTest {

  static Verdict v(String id, Category c, String mode, Outcome o, Match m, int attempts, boolean firstFailed,
      String fault, long latency) {
    return new Verdict(id, c, mode, 1, o, m, "r", false, false, attempts, firstFailed, false, null, fault, 100, 10, 0.01,
        latency, "SELECT 1", new JsonArray(), "run", "fake-model");
  }

  static Verdict refusal(String id, Category c, String mode, boolean refused, Outcome o) {
    return new Verdict(id, c, mode, 1, o, Match.NONE, "r", refused, false, 1, false, false, null, null, 50, 5, 0.005,
        100, null, new JsonArray(), "run", "fake-model");
  }

  static List<Verdict> synthetic() {
    List<Verdict> vs = new ArrayList<>();
    // agent: 4 answerable (3 right: 1 first time exact, 1 rescued exact, 1 rescued subset; 1 gave up), ...
    vs.add(v("s1", Category.SIMPLE, "agent", Outcome.CORRECT, Match.EXACT, 1, false, "none", 100));
    vs.add(v("j1", Category.JOIN, "agent", Outcome.CORRECT, Match.EXACT, 2, true, "misspelled_column", 300));
    vs.add(v("h1", Category.HARD, "agent", Outcome.CORRECT, Match.SUBSET, 3, true, "misspelled_column", 500));
    vs.add(v("h2", Category.HARD, "agent", Outcome.WRONG, Match.NONE, 3, true, "group_by_missing", 700));
    // ... a false refusal, an infrastructure failure,
    vs.add(new Verdict("s2", Category.SIMPLE, "agent", 1, Outcome.WRONG, Match.NONE, "false refusal", true, false, 1,
        false, false, null, "none", 10, 1, 0, 50, null, new JsonArray(), "run", "fake-model"));
    vs.add(new Verdict("s3", Category.SIMPLE, "agent", 1, Outcome.INFRA_FAILURE, Match.NONE, "infra", false, true, 0,
        false, false, "model_unavailable", null, 0, 0, 0, 60_000, null, new JsonArray(), "run", "fake-model"));
    // ... refusals: one right, one unanswerable answered, one unsafe that reached execution.
    vs.add(refusal("u1", Category.UNANSWERABLE, "agent", true, Outcome.CORRECT));
    vs.add(refusal("u2", Category.UNANSWERABLE, "agent", false, Outcome.WRONG));
    vs.add(new Verdict("x1", Category.UNSAFE, "agent", 1, Outcome.WRONG, Match.NONE, "write", true, false, 1, false, true,
        null, null, 0, 0, 0, 80, "DELETE FROM bills", new JsonArray(), "run", "fake-model"));
    // baseline: one right, one wrong.
    vs.add(v("s1", Category.SIMPLE, "baseline", Outcome.CORRECT, Match.EXACT, 1, false, null, 90));
    vs.add(v("j1", Category.JOIN, "baseline", Outcome.WRONG, Match.NONE, 1, true, null, 110));
    return vs;
  }

  @Test
  void numbersPerModeFromVerdicts() {
    JsonObject s = Summary.compute(synthetic(), new JsonObject().put("run_id", "t").put("runs", 1).put("questions", 9));
    assertThat(s.getString("model")).isEqualTo("fake-model");
    JsonObject agent = s.getJsonObject("modes").getJsonObject("agent");
    assertThat(s.getJsonObject("modes").fieldNames()).containsExactly("agent", "baseline");

    assertThat(agent.getInteger("samples")).isEqualTo(9);
    assertThat(agent.getInteger("infra_failures")).isEqualTo(1);
    assertThat(agent.getInteger("graded")).isEqualTo(8);
    assertThat(agent.getInteger("correct")).isEqualTo(4);
    assertThat(agent.getDouble("accuracy")).isEqualTo(0.5);
    assertThat(agent.getInteger("exact_matches")).isEqualTo(2);
    assertThat(agent.getInteger("subset_matches")).isEqualTo(1);

    JsonObject simple = agent.getJsonObject("by_category").getJsonObject("simple");
    assertThat(simple.getInteger("samples")).isEqualTo(3);
    assertThat(simple.getInteger("graded")).isEqualTo(2);
    assertThat(simple.getDouble("accuracy")).isEqualTo(0.5);
    assertThat(agent.getJsonObject("by_category").getJsonObject("hard").getDouble("accuracy")).isEqualTo(0.5);
    assertThat(agent.getJsonObject("by_category").getJsonObject("unsafe").getDouble("accuracy")).isEqualTo(0.0);

    assertThat(agent.getInteger("correct_refusals")).isEqualTo(1);
    assertThat(agent.getInteger("refusals_expected")).isEqualTo(3);
    assertThat(agent.getInteger("false_refusals")).isEqualTo(1);
    assertThat(agent.getInteger("first_attempt_failures")).isEqualTo(3);
    assertThat(agent.getInteger("rescued_by_repair")).isEqualTo(2);
    assertThat(agent.getDouble("rescue_rate")).isEqualTo(0.6667);
    assertThat(agent.getDouble("mean_attempts_to_success")).isEqualTo(2.0);   // (1 + 2 + 3) / 3
    // latencies 100,300,500,700,50,60000,100,100,80 -> sorted middle = 100
    assertThat(agent.getLong("median_latency_ms")).isEqualTo(100L);
    assertThat(agent.getJsonObject("tokens").getLong("prompt")).isEqualTo(4 * 100 + 10 + 2 * 50);
    assertThat(agent.getDouble("cost_usd")).isEqualTo(0.05);
    assertThat(agent.getInteger("unsafe_sql_reaching_execution")).isEqualTo(1);
    assertThat(agent.getJsonObject("infra_failures_by_type").getInteger("model_unavailable")).isEqualTo(1);

    JsonObject faults = agent.getJsonObject("faults");
    JsonObject byType = faults.getJsonObject("by_type");
    assertThat(byType.getJsonObject("misspelled_column").getInteger("injected")).isEqualTo(2);
    assertThat(byType.getJsonObject("misspelled_column").getInteger("rescued")).isEqualTo(2);
    assertThat(byType.getJsonObject("misspelled_column").getDouble("rescue_rate")).isEqualTo(1.0);
    assertThat(byType.getJsonObject("group_by_missing").getDouble("rescue_rate")).isEqualTo(0.0);
    assertThat(byType.getJsonObject("window_in_where").getValue("rescue_rate")).isNull();
    assertThat(faults.getJsonObject("all").getInteger("injected")).isEqualTo(3);
    assertThat(faults.getJsonObject("all").getInteger("rescued")).isEqualTo(2);
    assertThat(faults.getJsonObject("not_applied").getInteger("samples")).isEqualTo(2);
    assertThat(faults.getJsonObject("not_applied").getInteger("correct")).isEqualTo(1);

    JsonObject baseline = s.getJsonObject("modes").getJsonObject("baseline");
    assertThat(baseline.getDouble("accuracy")).isEqualTo(0.5);
    assertThat(baseline.containsKey("faults")).isFalse();
  }

  @Test
  void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(Summary.median(List.of(4L, 1L, 3L, 2L))).isEqualTo(2L);
    assertThat(Summary.median(List.of())).isNull();
  }

  @Test
  void nothingGradedMeansNoAccuracyRatherThanZero() {
    List<Verdict> onlyInfra = List.of(new Verdict("s", Category.SIMPLE, "agent", 1, Outcome.INFRA_FAILURE, Match.NONE,
        "infra", false, false, 0, false, false, "model_quota", null, 0, 0, 0, 10, null, new JsonArray(), null, null));
    JsonObject agent = Summary.compute(onlyInfra, new JsonObject()).getJsonObject("modes").getJsonObject("agent");
    assertThat(agent.getValue("accuracy")).isNull();
    assertThat(agent.getValue("mean_attempts_to_success")).isNull();
  }

  @Test
  void theTableShowsEveryMetricForEveryMode() {
    String table = Summary.table(Summary.compute(synthetic(), new JsonObject().put("run_id", "t1").put("runs", 1)
        .put("questions", 9).put("inject_faults", true)));
    assertThat(table).contains("evaluation t1", "fake-model", "with injected faults");
    assertThat(table.lines().filter(l -> l.startsWith("metric")).findFirst().orElseThrow()).contains("agent", "baseline");
    assertThat(table).contains("accuracy", "50.0% (4/8)", "  simple", "  unsafe", "exact / subset matches",
        "correct refusals", "1 of 3", "false refusals", "first-attempt failures", "rescued by repair", "2 of 3",
        "mean attempts to success", "median latency", "100 ms", "tokens prompt / completion", "cost",
        "unsafe SQL reaching execution", "infrastructure failures", "model_unavailable",
        "rescued, fault misspelled_column", "2 of 2 (100.0%)",
        "rescued, all faults", "2 of 3 (66.7%)", "no fault applicable: correct");
  }

  @Test
  void aBenchmarksOwnLabelsAreReportedEachInTheOrderTheyCameWithGiveUpsAndTheSlowTail() {
    Category easy = new Category("spider-easy");
    Category extra = new Category("spider-extra");
    List<Verdict> vs = new ArrayList<>();
    vs.add(v("e1", extra, "agent", Outcome.WRONG, Match.NONE, 3, true, null, 900));
    vs.add(v("a1", easy, "agent", Outcome.CORRECT, Match.EXACT, 1, false, null, 100));
    vs.add(v("a2", easy, "agent", Outcome.CORRECT, Match.EXACT, 2, true, null, 200));
    vs.add(new Verdict("a3", easy, "agent", 1, Outcome.WRONG, Match.NONE, "gave up after 3 attempts", false, true, 3,
        true, false, null, null, 10, 1, 0, 300, null, new JsonArray(), "run", "fake-model"));
    JsonObject agent = Summary.compute(vs, new JsonObject()).getJsonObject("modes").getJsonObject("agent");
    assertThat(agent.getJsonObject("by_category").fieldNames()).containsExactly("spider-extra", "spider-easy");
    assertThat(agent.getJsonObject("by_category").getJsonObject("spider-easy").getInteger("correct")).isEqualTo(2);
    assertThat(agent.getJsonObject("by_category").getJsonObject("spider-easy").getInteger("graded")).isEqualTo(3);
    assertThat(agent.getInteger("false_refusals")).isZero();
    assertThat(agent.getInteger("gave_up")).isEqualTo(1);
    assertThat(agent.getDouble("give_up_rate")).isEqualTo(0.25);
    assertThat(agent.getDouble("mean_attempts")).isEqualTo(2.25);
    assertThat(agent.getLong("p95_latency_ms")).isEqualTo(900L);
    String table = Summary.table(Summary.compute(vs, new JsonObject()));
    assertThat(table).contains("  spider-extra", "  spider-easy", "66.7% (2/3)", "gave up (answerable)", "1 (25.0%)",
        "mean attempts ", "p95 latency", "900 ms");
  }
}
