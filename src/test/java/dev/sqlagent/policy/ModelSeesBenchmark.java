package dev.sqlagent.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.generation.ChatClient;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.StoredValuesReady;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What privacy costs in prompt size: every answerable question of the evaluation set asked at each level of
 * SQLAGENT_MODEL_SEES, against the demo shop, the scripted model answering each question with its gold SQL (so every
 * run takes the same path: one SQL prompt, then the answer's wording where the level allows it). The prompt tokens are
 * counted on what the model was sent (characters / 4, the estimate the service uses when a model reports no usage).
 *
 * <pre>mvn -o -B test -Dtest=ModelSeesBenchmark -Dgroups=benchmark -Dtest.excludedGroups=</pre> (writes
 * {@code target/benchmarks/model-sees.txt})
 */
@Tag("benchmark")
class ModelSeesBenchmark {

  static final String WORDING = "You state the answer";

  @Test
  void promptTokensPerQuestionAtEachLevel() throws Exception {
    List<Question> questions = QuestionSet.shipped().stream().filter(Question::answerable).toList();
    Map<String, String> gold = new java.util.HashMap<>();
    questions.forEach(q -> gold.put("Question: " + q.question(), q.goldSql().get(0)));
    StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
        "%nprompt tokens per question, %d answerable questions of the evaluation set, demo shop (load %s)%n"
            + "%-8s %12s %12s %12s %14s %12s%n", questions.size(), dev.sqlagent.testing.BenchmarkMachine.loadAverage(),
        "level", "SQL prompt", "wording", "total", "vs results", "model calls"));
    double[] totals = new double[ModelSees.values().length];
    String[] rows = new String[totals.length];
    try (FakeModelServer model = FakeModelServer.start()) {
      for (ModelSees level : ModelSees.values()) {
        model.reset().respondWith(req -> FakeModelServer.allText(req).contains(WORDING) ? Reply.content("That is the answer.")
            : Reply.sql(gold.getOrDefault(FakeModelServer.lastUserMessage(req), "SELECT 1")));
        try (RunningService service = RunningService.start(model, Map.of("SQLAGENT_MODEL_SEES", level.wireName(),
            "SQLAGENT_ANSWER_SUMMARY", "model"))) {
          StoredValuesReady.await(service.vertx);
          long sqlTokens = 0;
          long wordingTokens = 0;
          int calls = 0;
          for (Question q : questions) {
            int before = model.requestCount();
            JsonObject a = service.client.post(service.port(), "127.0.0.1", "/api/ask")
                .sendJsonObject(new JsonObject().put("question", q.question())).await(120, TimeUnit.SECONDS).bodyAsJsonObject();
            assertThat(a.getString("run_id")).as(a.encode()).isNotNull();
            List<FakeModelServer.Recorded> sent = new ArrayList<>(model.requests().subList(before, model.requestCount()));
            calls += sent.size();
            for (FakeModelServer.Recorded r : sent) {
              int chars = r.messages().stream().mapToInt(m -> ((JsonObject) m).getString("content", "").length()).sum();
              if (r.body().encode().contains(WORDING)) wordingTokens += ChatClient.estimate(chars);
              else sqlTokens += ChatClient.estimate(chars);
            }
          }
          int n = questions.size();
          totals[level.ordinal()] = (double) (sqlTokens + wordingTokens) / n;
          rows[level.ordinal()] = String.format(Locale.ROOT, "%-8s %12.0f %12.0f %12.0f", level.wireName(),
              (double) sqlTokens / n, (double) wordingTokens / n, totals[level.ordinal()]) + "%s"
              + String.format(Locale.ROOT, " %12.2f%n", (double) calls / n);
        }
      }
    }
    double base = totals[ModelSees.RESULTS.ordinal()];
    for (ModelSees level : ModelSees.values()) {
      report.append(String.format(rows[level.ordinal()],
          String.format(Locale.ROOT, " %13.0f%%", 100.0 * totals[level.ordinal()] / base)));
    }
    System.out.print(report);
    java.nio.file.Files.createDirectories(java.nio.file.Path.of("target/benchmarks"));
    java.nio.file.Files.writeString(java.nio.file.Path.of("target/benchmarks/model-sees.txt"), report.toString());
    // Each level sends no more than the one above it.
    for (int i = 1; i < totals.length; i++) assertThat(totals[i]).isGreaterThanOrEqualTo(totals[i - 1]);
  }
}
