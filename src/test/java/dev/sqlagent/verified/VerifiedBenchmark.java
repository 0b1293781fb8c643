package dev.sqlagent.verified;

import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.db.Target;
import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Verified queries, measured: (1) how similar DIFFERENT questions of the demo's evaluation set are to each other
 * (the direct-answer threshold must sit above them: a false direct answer is a wrong answer), and the hit rate of
 * hand-written paraphrases of those questions (src/test/resources/verified/paraphrases.jsonl) at the configured
 * threshold, reported and not tuned to; (2) end-to-end latency over HTTP of a verified answer vs the model path,
 * with the fake model answering at once (so the difference is everything but the model's own time).
 *
 * <p>{@code mvn -B test -Dtest=VerifiedBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class VerifiedBenchmark {

  record Paraphrase(String id, String text) {}

  @Test
  void paraphraseHitRateAndLatency() throws Exception {
    List<Question> library = QuestionSet.shipped().stream().filter(Question::answerable).toList();
    List<Paraphrase> paraphrases = Files.readAllLines(Path.of("src/test/resources/verified/paraphrases.jsonl")).stream()
        .filter(l -> !l.isBlank()).map(JsonObject::new).map(j -> new Paraphrase(j.getString("id"), j.getString("paraphrase")))
        .toList();
    StringBuilder report = new StringBuilder();
    similarity(library, paraphrases, report);
    latency(library, paraphrases, report);
    System.out.print(report);
    Files.createDirectories(Path.of("target/benchmarks"));
    Files.writeString(Path.of("target/benchmarks/verified.txt"), report);
  }

  private static void similarity(List<Question> library, List<Paraphrase> paraphrases, StringBuilder report) {
    List<float[]> vectors = library.stream().map(q -> QuestionVectors.embed(q.question())).toList();
    List<Double> pairs = new ArrayList<>();
    double maxSameValues = 0;
    String closest = "";
    for (int i = 0; i < library.size(); i++) {
      for (int j = i + 1; j < library.size(); j++) {
        double s = QuestionVectors.similarity(vectors.get(i), vectors.get(j));
        pairs.add(s);
        if (Literals.same(library.get(i).question(), library.get(j).question()) && s > maxSameValues) {
          maxSameValues = s;
          closest = library.get(i).id() + " / " + library.get(j).id();
        }
      }
    }
    Collections.sort(pairs);
    report.append(String.format("different evaluation questions (%d, %d pairs): similarity p50 %.3f, p99 %.3f, max %.3f; "
            + "max among pairs naming the same values %.3f (%s)%n", library.size(), pairs.size(), Percentiles.of(pairs, 50),
        Percentiles.of(pairs, 99), pairs.get(pairs.size() - 1), maxSameValues, closest));
    List<Double> own = new ArrayList<>();
    double[] thresholds = {0.80, 0.85, 0.88, 0.90, 0.91, 0.93, 0.95};
    int[] hits = new int[thresholds.length];
    int[] wrong = new int[thresholds.length];
    int rankedFirst = 0;
    for (Paraphrase p : paraphrases) {
      float[] v = QuestionVectors.embed(p.text());
      int best = -1;
      double bestScore = -1;
      for (int i = 0; i < library.size(); i++) {
        double s = QuestionVectors.similarity(v, vectors.get(i));
        if (s > bestScore) {
          bestScore = s;
          best = i;
        }
      }
      Question source = library.stream().filter(q -> q.id().equals(p.id())).findFirst().orElseThrow();
      own.add(QuestionVectors.similarity(v, vectors.get(library.indexOf(source))));
      boolean right = library.get(best) == source;
      if (right) rankedFirst++;
      boolean sameValues = Literals.same(p.text(), library.get(best).question());
      for (int t = 0; t < thresholds.length; t++) {
        if (bestScore >= thresholds[t] && sameValues) {
          if (right) hits[t]++;
          else wrong[t]++;
        }
      }
    }
    Collections.sort(own);
    report.append(String.format("paraphrases (%d): similarity to their own question p10 %.3f, p50 %.3f, min %.3f; "
        + "own question ranked first %d/%d%n", paraphrases.size(), Percentiles.of(own, 10), Percentiles.of(own, 50), own.get(0), rankedFirst,
        paraphrases.size()));
    for (int t = 0; t < thresholds.length; t++) {
      report.append(String.format("  threshold %.2f: answered from the verified query %d/%d (%.0f%%), wrong verified answers %d%s%n",
          thresholds[t], hits[t], paraphrases.size(), 100.0 * hits[t] / paraphrases.size(), wrong[t],
          thresholds[t] == dev.sqlagent.config.AppConfig.load(java.util.Map.of()).verifiedThreshold() ? "   <- the default" : ""));
    }
  }

  private static void latency(List<Question> library, List<Paraphrase> paraphrases, StringBuilder report) throws Exception {
    Target copy = DatabaseCopy.of("shop_verified_bench");
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("DELETE FROM verified_queries WHERE target = ?")) {
      ps.setString(1, copy.key());
      ps.executeUpdate();
    }
    Map<String, String> gold = new HashMap<>();
    library.forEach(q -> gold.put(q.question(), q.goldSql().get(0)));
    paraphrases.forEach(p -> gold.put(p.text(), library.stream().filter(q -> q.id().equals(p.id())).findFirst()
        .orElseThrow().goldSql().get(0)));
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql(gold.getOrDefault(FakeModelServer.lastUserMessage(req).replaceFirst("^Question: ", ""),
          "SELECT 1")));
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      env.put("SQLAGENT_DB_URL", copy.url().withSecret());
      env.put("SQLAGENT_ASK_PER_CLIENT", "10");
      try (RunningService service = RunningService.on(copy, model, env)) {
        MainVerticle main = service.main;
        WebClient http = service.client;
        for (int i = 0; i < 5; i++) ask(http, main.httpPort(), paraphrases.get(i).text());  // warm-up, model path

        List<Long> modelPath = new ArrayList<>();
        for (int r = 0; r < 3; r++) for (Paraphrase p : paraphrases) modelPath.add(timed(http, main.httpPort(), p.text(), null));

        for (Question q : library) {
          http.post(main.httpPort(), "127.0.0.1", "/api/verified").as(BodyCodec.jsonObject())
              .sendJsonObject(new JsonObject().put("question", q.question()).put("sql", q.goldSql().get(0)))
              .await(60, TimeUnit.SECONDS);
        }
        List<Long> verified = new ArrayList<>();
        List<Long> missed = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
          for (Paraphrase p : paraphrases) {
            JsonObject[] answer = new JsonObject[1];
            long ms = timed(http, main.httpPort(), p.text(), answer);
            ("verified".equals(answer[0].getString("answer_source")) ? verified : missed).add(ms);
          }
        }
        report.append(String.format("end to end over HTTP (POST /api/ask, plain wording, fake model answering at once), "
                + "%d questions x 3:%n  model path: p50 %d ms, p90 %d ms, p99 %d ms%n"
                + "  verified answer (%d of %d asks): p50 %d ms, p90 %d ms, p99 %d ms (goal: p50 under 100 ms)%n"
                + "  with a library of %d verified queries, the asks that still went to the model: %d, p50 %d ms%n",
            paraphrases.size(), Percentiles.of(modelPath, 50), Percentiles.of(modelPath, 90), Percentiles.of(modelPath, 99), verified.size(),
            verified.size() + missed.size(), verified.isEmpty() ? -1 : Percentiles.of(verified, 50), verified.isEmpty() ? -1 : Percentiles.of(verified, 90),
            verified.isEmpty() ? -1 : Percentiles.of(verified, 99), library.size(), missed.size(), missed.isEmpty() ? -1 : Percentiles.of(missed, 50)));
      }
    }
  }

  private static JsonObject ask(WebClient http, int port, String question) throws Exception {
    return http.post(port, "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
        .sendJsonObject(new JsonObject().put("question", question)).await(60, TimeUnit.SECONDS).body();
  }

  private static long timed(WebClient http, int port, String question, JsonObject[] answer) throws Exception {
    long t0 = System.nanoTime();
    JsonObject a = ask(http, port, question);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    if (answer != null) answer[0] = a;
    return ms;
  }
}
