package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sqlagent.eval.Question.Category;
import dev.sqlagent.results.ResultComparator.Match;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The evaluation's metric use: questions that expect a metric, and whether their answers used it. */
class MetricSummaryTest {

  static final String FILE = String.join("\n",
      "{\"id\": \"m1\", \"category\": \"simple\", \"question\": \"revenue last month\", \"gold_sql\": \"SELECT 1\","
          + " \"metric\": \"revenue\"}",
      "{\"id\": \"m2\", \"category\": \"simple\", \"question\": \"turnover in May\", \"gold_sql\": \"SELECT 1\","
          + " \"metric\": \"revenue\"}",
      "{\"id\": \"m3\", \"category\": \"simple\", \"question\": \"takings by day\", \"gold_sql\": \"SELECT 1\","
          + " \"metric\": \"revenue\"}",
      "{\"id\": \"p1\", \"category\": \"simple\", \"question\": \"how many bakers\", \"gold_sql\": \"SELECT 1\"}");

  static JsonObject answer(String sql, String... metrics) {
    JsonObject a = new JsonObject().put("sql", sql);
    if (metrics.length > 0) {
      JsonArray m = new JsonArray();
      for (String name : metrics) m.add(new JsonObject().put("name", name).put("sql", "sum(x)"));
      a.put("metrics", m);
    }
    return a;
  }

  static Verdict verdict(String id) {
    return new Verdict(id, Category.SIMPLE, "agent", 1, Verdict.Outcome.CORRECT, Match.EXACT, "r", false, false, 1,
        false, false, null, null, 10, 1, 0, 100, "SELECT 1", new JsonArray(), "run", "fake-model");
  }

  @Test
  void aQuestionMayExpectAMetric() {
    List<Question> qs = QuestionSet.parse(FILE, "q.jsonl");
    assertThat(qs).extracting(Question::metric).containsExactly("revenue", "revenue", "revenue", null);
    assertThat(qs.get(0).toJson().getString("metric")).isEqualTo("revenue");
    assertThat(qs.get(3).toJson().containsKey("metric")).isFalse();
    String refused = catchThrowableOfType(() -> QuestionSet.parse("{\"id\": \"u\", \"category\": \"unanswerable\","
        + " \"question\": \"?\", \"metric\": \"revenue\"}", "q.jsonl"), QuestionSet.FormatException.class).getMessage();
    assertThat(refused).isEqualTo("q.jsonl line 1: a unanswerable question must not expect a metric (it must be refused)");
    String empty = catchThrowableOfType(() -> QuestionSet.parse("{\"id\": \"e\", \"category\": \"simple\","
        + " \"question\": \"?\", \"gold_sql\": \"SELECT 1\", \"metric\": \"\"}", "q.jsonl"),
        QuestionSet.FormatException.class).getMessage();
    assertThat(empty).isEqualTo("q.jsonl line 1: \"metric\" must be a non-empty string");
  }

  @Test
  void theReportSaysHowOftenAnswersUsedTheirMetricAndListsTheMisses() {
    List<Question> qs = QuestionSet.parse(FILE, "q.jsonl");
    List<Sample> samples = List.of(
        new Sample("m1", "agent", 1, false, answer("SELECT sum(x) FROM t", "revenue"), null, 100),
        new Sample("m2", "agent", 1, false, answer("SELECT sum(y) FROM t"), null, 100),
        new Sample("m3", "agent", 1, false, answer("SELECT count(*) FROM t", "orders"), null, 100),
        new Sample("p1", "agent", 1, false, answer("SELECT count(*) FROM bakers"), null, 100));
    List<Verdict> verdicts = List.of(verdict("m1"), verdict("m2"), verdict("m3"), verdict("p1"));
    JsonObject summary = MetricSummary.addTo(Summary.compute(verdicts, new JsonObject().put("run_id", "t")), qs, samples);
    JsonObject use = summary.getJsonObject("modes").getJsonObject("agent").getJsonObject("metric_use");
    assertThat(use.getInteger("expected")).isEqualTo(3);
    assertThat(use.getInteger("used")).isEqualTo(1);
    assertThat(use.getDouble("rate")).isEqualTo(0.3333);
    assertThat(use.getJsonArray("misses")).hasSize(2);
    assertThat(use.getJsonArray("misses").getJsonObject(0)).isEqualTo(new JsonObject().put("question_id", "m2")
        .put("sample", 1).put("metric", "revenue").put("answer_used", new JsonArray()).put("sql", "SELECT sum(y) FROM t"));
    String table = Summary.table(summary);
    assertThat(table).containsPattern("metric use +1 of 3");
    assertThat(table).contains("metric miss: agent m2 #1 expected revenue, the answer used none")
        .contains("metric miss: agent m3 #1 expected revenue, the answer used orders");
  }

  @Test
  void aRunWithoutMetricQuestionsReportsNoMetricUse() {
    List<Question> qs = QuestionSet.parse(FILE, "q.jsonl").subList(3, 4);
    List<Sample> samples = List.of(new Sample("p1", "agent", 1, false, answer("SELECT 1"), null, 100));
    JsonObject summary = MetricSummary.addTo(Summary.compute(List.of(verdict("p1")), new JsonObject()), qs, samples);
    assertThat(summary.getJsonObject("modes").getJsonObject("agent").containsKey("metric_use")).isFalse();
    assertThat(Summary.table(summary)).doesNotContain("metric use").doesNotContain("metric miss");
  }
}
