package dev.sqlagent.agent;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.retrieval.SampleRows;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent's own overhead per question: everything but model time (retrieval, prompt, one gate request,
 * execution, events), with a local model that answers instantly; and the prompt size of a first attempt
 * against one that holds every table. Measures only; asserts nothing about time.
 *
 * <p>{@code mvn -B test -Dtest=AgentBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class AgentBenchmark {

  @Test
  void overheadPerQuestionAndPromptSize() throws Exception {
    List<Question> questions = QuestionSet.shipped().stream().filter(Question::answerable).toList();
    Vertx vertx = Vertx.vertx();
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> {
        String q = req.getJsonArray("messages").getJsonObject(1).getString("content").substring("Question: ".length());
        return Reply.sql(questions.stream().filter(x -> x.question().equals(q)).findFirst().orElseThrow().goldSql().get(0))
            .streamedIn(1);
      });
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      TestDatabase db = TestDatabase.get();
      vertx.deployVerticle(new MainVerticle(db.config(env), db.target(), TestDatabase.get().state(), false)).await(120, TimeUnit.SECONDS);

      // warm-up: JIT, pools, the embedding index
      for (int i = 0; i < 10; i++) ask(vertx, questions.get(i % questions.size()).question());

      List<Long> overhead = new ArrayList<>();
      List<Long> total = new ArrayList<>();
      int rounds = 3;
      for (int r = 0; r < rounds; r++) {
        for (Question q : questions) {
          JsonObject a = ask(vertx, q.question());
          long modelMs = modelTime(vertx, a.getString("run_id"));
          total.add(a.getLong("latency_ms"));
          overhead.add(a.getLong("latency_ms") - modelMs);
        }
      }

      // first-attempt prompt (all messages) vs the same prompt holding every table
      long firstAttemptChars = model.requests().stream().mapToLong(rq -> rq.messages().encode().length()).sum()
          / model.requestCount();
      JsonObject everything = everyTable(vertx);
      long allTablesChars = PromptBuilder.sqlMessages(questions.get(0).question(), everything, List.of(), null).encode().length();

      String report = String.format(
          "agent overhead per question (model time excluded), %d questions x %d rounds on the seeded shop:%n"
              + "  p50 %d ms, p90 %d ms, p99 %d ms, max %d ms (whole question incl. instant model: p50 %d ms, p99 %d ms)%n"
              + "first-attempt prompt: %d chars (~%d tokens) with the top-5 tables; every table: %d chars (~%d tokens), %.0f%% of it%n",
          questions.size(), rounds, pct(overhead, 50), pct(overhead, 90), pct(overhead, 99), Collections.max(overhead),
          pct(total, 50), pct(total, 99), firstAttemptChars, firstAttemptChars / 4, allTablesChars, allTablesChars / 4,
          100.0 * firstAttemptChars / allTablesChars);
      System.out.print(report);
      Files.createDirectories(Path.of("target/benchmarks"));
      Files.writeString(Path.of("target/benchmarks/agent.txt"), report);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static JsonObject ask(Vertx vertx, String question) throws Exception {
    return vertx.eventBus().<JsonObject>request(Addresses.ASK, new JsonObject().put("question", question).put("source", "eval"))
        .await(60, TimeUnit.SECONDS).body();
  }

  /** Model time of a run: the generation latencies its events report. */
  private static long modelTime(Vertx vertx, String runId) throws Exception {
    JsonArray events = vertx.eventBus().<JsonObject>request(Addresses.RUN_EVENTS, new JsonObject().put("run_id", runId))
        .await(10, TimeUnit.SECONDS).body().getJsonArray("events");
    long ms = 0;
    for (Object o : events) {
      JsonObject e = (JsonObject) o;
      if (e.getString("node").equals("generate_sql") && !e.getString("status").equals("started")
          && !e.getString("status").equals("progress")) {
        ms += e.getJsonObject("data").getLong("latency_ms", 0L);
      }
    }
    return ms;
  }

  /** A retrieval reply that holds every table, built from the same renderers. */
  private static JsonObject everyTable(Vertx vertx) throws Exception {
    JsonArray tables = vertx.eventBus().<JsonObject>request(Addresses.SCHEMA, new JsonObject()).await(30, TimeUnit.SECONDS)
        .body().getJsonArray("tables");
    StringBuilder ddl = new StringBuilder();
    List<SampleRows> samples = new ArrayList<>();
    for (Object t : tables) {
      String name = ((JsonObject) t).getString("name");
      ddl.append(vertx.eventBus().<JsonObject>request(Addresses.DESCRIBE, new JsonObject().put("name", name))
          .await(30, TimeUnit.SECONDS).body().getString("ddl")).append("\n\n");
      samples.add(SampleRows.fromJson(vertx.eventBus().<JsonObject>request(Addresses.SAMPLE,
          new JsonObject().put("name", name).put("n", 3)).await(30, TimeUnit.SECONDS).body()));
    }
    return new JsonObject().put("schema", ddl.toString()).put("samples", SampleRows.text(samples))
        .put("conventions", new JsonArray());
  }

  private static long pct(List<Long> xs, int p) {
    List<Long> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
  }
}
