package dev.sqlagent.lifecycle;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.testing.AotJdk;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.testing.ServiceProcess;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long {@code serve} takes to start, and to answer its first questions: on the suite's JDK, on a JDK of 25 or
 * later, and on that JDK from an ahead-of-time cache a training run made (started, asked the question set
 * {@value #TRAINING_ROUNDS} times, stopped with SIGTERM once its start-up work was done: the stored values indexed, the
 * exports warmed up). The three alternate, {@code -Daot.rounds=N} times (3); each start is timed to serve's {@code ready
 * in} line and to the first 200 of {@code /api/health}, from the process's launch; then the evaluation set's 48
 * answerable questions are asked over HTTP, one at a time, three times, each answered at once by a local model with
 * its gold SQL: the answer's latency, the first round (the first questions after a start) apart from the next two. The
 * same target and state store as the suite's; the service's classes in a jar, as {@code java -jar} has them.
 *
 * <p>{@code mvn -B test -Dtest=AotStartBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 * (writes {@code target/benchmarks/aot-start.txt})
 */
@Tag("benchmark")
class AotStartBenchmark {

  private static final int ROUNDS = Integer.getInteger("aot.rounds", 3);
  static final int TRAINING_ROUNDS = 10;
  private static final Pattern READY = Pattern.compile("ServeCommand - ready in (\\d+) ms");
  private static final Pattern VALUES = Pattern.compile("stored values ready: .*\"index_ms\":(\\d+)");

  @Test
  void startOnEachJdkAndFromTheCache(@TempDir Path dir) throws Exception {
    Optional<Path> newer = AotJdk.java();
    assumeTrue(newer.isPresent(), "no JDK of 25 or later beside this one");
    String classPath = AotJdk.jarClassPath(dir);
    List<Question> questions = QuestionSet.shipped().stream().filter(Question::answerable).toList();
    try (FakeModelServer model = FakeModelServer.start()) {
      answersWithGoldSql(model, questions);
      measure(dir, newer.get(), classPath, questions, model);
    }
  }

  private static void measure(Path dir, Path newer, String classPath, List<Question> questions, FakeModelServer model)
      throws Exception {
    Map<String, String> settings = new HashMap<>(model.env());
    settings.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    Map<String, String> env = TestDatabase.get().env(settings);
    Path cache = dir.resolve("sql-agent.aot");
    try (ServiceProcess training = ServiceProcess.start("aot-bench-training", newer, classPath,
        List.of("-XX:AOTCacheOutput=" + cache), env)) {
      training.awaitReady(180);
      awaitLine(training, "stored values ready");
      for (int r = 0; r < TRAINING_ROUNDS; r++) ask(training.httpPort, questions);
      awaitLine(training, "exports warmed up");
      training.terminate();
      training.process.waitFor(180, TimeUnit.SECONDS);
    }

    Map<String, List<Long>> ready = new LinkedHashMap<>();
    Map<String, List<Long>> health = new LinkedHashMap<>();
    Map<String, List<Long>> values = new LinkedHashMap<>();
    Map<String, List<Long>> first = new LinkedHashMap<>();
    Map<String, List<Long>> next = new LinkedHashMap<>();
    Map<String, Start> starts = new LinkedHashMap<>();
    starts.put("JDK " + Runtime.version().feature(), new Start(Path.of(System.getProperty("java.home"), "bin", "java"), List.of()));
    starts.put("JDK 25+", new Start(newer, List.of()));
    starts.put("JDK 25+ from the cache", new Start(newer, List.of("-XX:AOTCache=" + cache)));
    for (int r = 0; r < ROUNDS; r++) {
      for (Map.Entry<String, Start> s : starts.entrySet()) {
        long t0 = System.nanoTime();
        try (ServiceProcess p = ServiceProcess.start("aot-bench", s.getValue().java(), classPath, s.getValue().options(), env)) {
          long toHealth = awaitHealth(p.httpPort, t0);
          p.awaitReady(60);
          awaitLine(p, "stored values ready");
          ready.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).add(number(READY, p.output()));
          health.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).add(toHealth);
          values.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).add(number(VALUES, p.output()));
          first.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).addAll(ask(p.httpPort, questions));
          for (int n = 0; n < 2; n++) next.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).addAll(ask(p.httpPort, questions));
        }
      }
    }
    StringBuilder out = new StringBuilder("serve's start, " + ROUNDS + " rounds alternated (cache "
        + Files.size(cache) / (1 << 20) + " MB):\n");
    for (String k : starts.keySet()) {
      out.append(String.format("  %-24s ready in p50 %5d ms %s; /api/health 200 after launch p50 %5d ms %s; "
              + "stored values indexed p50 %4d ms %s%n", k, Percentiles.of(ready.get(k), 50), ready.get(k),
          Percentiles.of(health.get(k), 50), health.get(k), Percentiles.of(values.get(k), 50), values.get(k)));
    }
    out.append("a question's latency as a user asks, with a model that answers at once (" + questions.size()
        + " questions after each start, then twice more):\n");
    for (String k : starts.keySet()) {
      out.append(String.format("  %-24s the first %d after a start: p50 %3d ms, p90 %3d ms; the next %d: p50 %3d ms, p90 %3d ms%n",
          k, questions.size(), Percentiles.of(first.get(k), 50), Percentiles.of(first.get(k), 90), 2 * questions.size(),
          Percentiles.of(next.get(k), 50), Percentiles.of(next.get(k), 90)));
    }
    Files.createDirectories(Path.of("target", "benchmarks"));
    Files.writeString(Path.of("target", "benchmarks", "aot-start.txt"), out);
    System.out.print(out);
  }

  private record Start(Path java, List<String> options) {}

  private static void answersWithGoldSql(FakeModelServer model, List<Question> questions) {
    AtomicInteger replies = new AtomicInteger();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req).substring("Question: ".length());
      // A comment makes each reply new text to the gate, as a real model's SQL for a new question is.
      return Reply.sql("/* reply " + replies.incrementAndGet() + " */ "
          + questions.stream().filter(x -> x.question().equals(q)).findFirst().orElseThrow().goldSql().get(0));
    });
  }

  /** Each question asked over HTTP in turn: the answers' {@code latency_ms}. */
  private static List<Long> ask(int port, List<Question> questions) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    List<Long> latency = new ArrayList<>();
    for (Question q : questions) {
      HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/ask"))
          .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("question", q.question()).encode())).build();
      HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
      JsonObject answer = new JsonObject(r.body());
      // Answered by the agent with the model's SQL: not from the verified library.
      if (r.statusCode() != 200 || !"answered".equals(answer.getString("outcome"))
          || !"model".equals(answer.getString("answer_source"))) {
        throw new AssertionError("not answered: " + q.question() + " -> " + r.statusCode() + " " + r.body());
      }
      latency.add(answer.getLong("latency_ms"));
    }
    return latency;
  }

  /** Milliseconds from {@code t0} to the first 200 of {@code /api/health}. */
  private static long awaitHealth(int port, long t0) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/health"))
        .timeout(Duration.ofSeconds(10)).build();
    while (System.nanoTime() - t0 < TimeUnit.MINUTES.toNanos(2)) {
      try {
        if (http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return (System.nanoTime() - t0) / 1_000_000;
        }
      } catch (java.io.IOException notListening) {
        // not listening yet
      }
      Thread.sleep(20);
    }
    throw new AssertionError("/api/health was not 200 within 2 minutes");
  }

  private static void awaitLine(ServiceProcess p, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (!p.output().contains(text)) {
      if (System.nanoTime() > deadline) throw new AssertionError("no '" + text + "' in 2 minutes:\n" + p.output());
      Thread.sleep(100);
    }
  }

  private static long number(Pattern p, String log) {
    Matcher m = p.matcher(log);
    if (!m.find()) throw new AssertionError("no " + p + " in the log");
    return Long.parseLong(m.group(1));
  }
}
