package dev.sqlagent.agent;

import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.StepData;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.DescribeRequest;
import dev.sqlagent.contract.RetrievalMessages.SampleRequest;
import dev.sqlagent.contract.RetrievalMessages.SchemaRequest;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.VerifiedAdd;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.StoredValuesReady;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent's own overhead per question: everything but model time (retrieval, prompt, one gate request,
 * execution, events), with a local model that answers instantly; where it goes, stage by stage, from the runs'
 * events; the same per question as a user asks (a conversation turn and the verified library in the path); and
 * the prompt size of a first attempt against one that holds every table. The overhead is measured early in the
 * service's life, while the JIT still compiles the question's path, and once it has settled ({@code
 * -Dagent.settleRounds=N}: at most N rounds of the question set between the two, 60 by default). Measures only;
 * asserts nothing about time.
 *
 * <p>{@code mvn -B test -Dtest=AgentBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class AgentBenchmark {

  /** Rounds of the question set asked before anything is measured. */
  private static final int WARM_UP_ROUNDS = 3;

  /** At most this many rounds more before the settled measurement (each about a second once warm). */
  private static final int SETTLE_ROUNDS = Integer.getInteger("agent.settleRounds", 60);

  /** One measurement: each question's overhead and latency, the time by node, and what the JIT took meanwhile. */
  private record Measured(List<Long> overhead, List<Long> total, Map<String, List<Long>> stages, long events,
                          long jitMs, long wallMs) {}

  private static Measured measure(Vertx vertx, List<Question> questions, int rounds,
      java.lang.management.CompilationMXBean jit) throws Exception {
    List<Long> overhead = new ArrayList<>();
    List<Long> total = new ArrayList<>();
    Map<String, List<Long>> stages = new LinkedHashMap<>();
    long eventCount = 0;
    long c0 = jit.getTotalCompilationTime();
    long w0 = System.nanoTime();
    for (int r = 0; r < rounds; r++) {
      for (Question q : questions) {
        Answer a = ask(vertx, q.question());
        JsonArray events = explained(vertx, a);
        eventCount += events.size();
        long modelMs = modelTime(events);
        total.add(a.latencyMs());
        overhead.add(a.latencyMs() - modelMs);
        stages(events, a.latencyMs()).forEach((k, v) -> stages.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
      }
    }
    return new Measured(overhead, total, stages, eventCount, jit.getTotalCompilationTime() - c0,
        (System.nanoTime() - w0) / 1_000_000);
  }

  @Test
  void overheadPerQuestionAndPromptSize() throws Exception {
    List<Question> questions = QuestionSet.shipped().stream().filter(Question::answerable).toList();
    Vertx vertx = Vertx.vertx();
    try (FakeModelServer model = FakeModelServer.start()) {
      answersWithGoldSql(model, questions);
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      TestDatabase db = TestDatabase.get();
      vertx.deployVerticle(new MainVerticle(db.config(env), db.target(), TestDatabase.get().state(), false)).await(120, TimeUnit.SECONDS);

      // The stored values are read in the background after start: measured questions all have their lookups, and
      // none shares the CPU with that read.
      StoredValuesReady.await(vertx);
      // Two measurements. Early: after three warm-up rounds of the question set (pools, the embedding index, the first
      // compilations), while the JIT still compiles the question's path, its C2 thread taking most of one core of two
      // (about 1,400 methods of the path reach C2 one after another over the first two thousand questions). Settled:
      // once three rounds in a row kept the compiler threads busy less than half the round (at most SETTLE_ROUNDS
      // more): the service as it runs after some thousands of questions. The breakdown by node shows both.
      java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
      for (int r = 0; r < WARM_UP_ROUNDS; r++) for (Question q : questions) ask(vertx, q.question());
      int rounds = 3;
      Measured early = measure(vertx, questions, rounds, jit);
      int settleRounds = 0;
      for (int quiet = 0; quiet < 3 && settleRounds < SETTLE_ROUNDS; settleRounds++) {
        long c0 = jit.getTotalCompilationTime();
        long w0 = System.nanoTime();
        for (Question q : questions) ask(vertx, q.question());
        quiet = jit.getTotalCompilationTime() - c0 < (System.nanoTime() - w0) / 2_000_000 ? quiet + 1 : 0;
      }
      Measured settled = measure(vertx, questions, rounds, jit);
      List<Long> overhead = settled.overhead();
      List<Long> total = settled.total();
      Map<String, List<Long>> stages = settled.stages();
      long eventCount = settled.events();
      double eventsPerQuestion = eventCount / (double) overhead.size();
      double publishMs = publishing(vertx);
      StringBuilder byStage = new StringBuilder();
      stages.forEach((k, v) -> {
        List<Long> e = early.stages().getOrDefault(k, List.of(0L));
        byStage.append(String.format("  %-46s mean %5.1f ms, p50 %3d ms, p90 %3d ms; early: mean %5.1f ms, p50 %3d ms%n", k,
            v.stream().mapToLong(Long::longValue).average().orElse(0), Percentiles.of(v, 50), Percentiles.of(v, 90),
            e.stream().mapToLong(Long::longValue).average().orElse(0), Percentiles.of(e, 50)));
      });

      // The gate's share holds the statement's own time: the same SQL run directly, as the agent role (µs).
      List<Long> direct = new ArrayList<>();
      Pool pool = PgBuilder.pool().connectingTo(db.target().roOptions()).using(vertx).build();
      for (int r = 0; r < rounds; r++) {
        for (Question q : questions) {
          long t0 = System.nanoTime();
          pool.query(q.goldSql().get(0)).execute().await(30, TimeUnit.SECONDS);
          direct.add((System.nanoTime() - t0) / 1_000);
        }
      }
      pool.close().await(10, TimeUnit.SECONDS);

      // Retrieval's floor: the question's embedding alone, in this JVM with nothing beside it (wall and CPU, µs).
      List<Long> embedWall = new ArrayList<>();
      List<Long> embedCpu = new ArrayList<>();
      java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
      for (int r = 0; r < rounds; r++) {
        for (Question q : questions) {
          long c0 = threads.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          dev.sqlagent.retrieval.TableSelector.embedQuestion(q.question());
          embedWall.add((System.nanoTime() - t0) / 1_000);
          embedCpu.add((threads.getCurrentThreadCpuTime() - c0) / 1_000);
        }
      }

      // first-attempt prompt (all messages) vs the same prompt holding every table
      long firstAttemptChars = model.requests().stream().mapToLong(rq -> rq.messages().encode().length()).sum()
          / model.requestCount();
      Retrieval everything = everyTable(vertx);
      long allTablesChars = new JsonArray(PromptBuilder.sqlMessages(questions.get(0).question(), everything, List.of(), null)
          .stream().map(ChatRequest.Message::toJson).toList()).encode().length();

      // As a user asks (not as evaluation does): each question opens a conversation and is recorded as its turn,
      // and the verified library is looked up (three entries no question here is close to: embedded and scored).
      for (String[] v : List.of(new String[] {"Which employees joined most recently?", "SELECT count(*) FROM employees"},
          new String[] {"Count the suppliers based in Chennai", "SELECT count(*) FROM suppliers"},
          new String[] {"Which categories hold more than ten products?", "SELECT count(*) FROM products"})) {
        new StateClient(vertx, 30_000).addVerified(new VerifiedAdd(v[0], v[1], null, null)).await(30, TimeUnit.SECONDS);
      }
      for (Question q : questions) askAsUser(vertx, q.question());
      List<Long> userWall = new ArrayList<>();
      List<Long> userLatency = new ArrayList<>();
      long embeddedBefore = dev.sqlagent.retrieval.MiniLmModel.textsEmbedded();
      for (int r = 0; r < 2; r++) {
        for (Question q : questions) {
          long t0 = System.nanoTime();
          Answer a = askAsUser(vertx, q.question());
          long wallMs = (System.nanoTime() - t0) / 1_000_000;
          long modelMs = modelTime(events(vertx, a.runId()));
          userWall.add(wallMs - modelMs);
          userLatency.add(a.latencyMs() - modelMs);
        }
      }

      // The verified library and retrieval embed the question at the same moment: the model makes one embedding.
      double embeddedPerQuestion = (dev.sqlagent.retrieval.MiniLmModel.textsEmbedded() - embeddedBefore)
          / (double) userWall.size();
      String report = String.format(
          "agent overhead per question (model time excluded), %d questions x %d rounds on the seeded shop:%n"
              + "  early (after %d warm-up rounds): p50 %d ms, p90 %d ms, p99 %d ms; the JIT's compiler threads busy %d ms of the %d ms%n"
              + "  settled (%d rounds more): p50 %d ms, p90 %d ms, p99 %d ms; the JIT's compiler threads busy %d ms of the %d ms%n"
              + "  settled, in full: p50 %d ms, p90 %d ms, p99 %d ms, max %d ms (whole question incl. instant model: p50 %d ms, p99 %d ms)%n"
              + "where it goes, by node, settled and early, from the run's events (ms timestamps, summed over a run's attempts):%n%s"
              + "  (one event published as a run publishes it, to its run's address and to every watcher's, with this"
              + " service's consumers: mean %.3f ms; %.1f events per question: %.2f ms a question)%n"
              + "  (the same SQL run directly as the agent role: p50 %.1f ms, p90 %.1f ms, of the gate's share)%n"
              + "  (the question's embedding alone, one at a time with nothing beside it, of select_schema's share:"
              + " p50 %.1f ms, p90 %.1f ms; its CPU time p50 %.1f ms)%n"
              + "as a user asks (a conversation opened and its turn recorded, the verified library looked up), %d x 2:%n"
              + "  answer's latency less model time p50 %d ms, p90 %d ms; asked to answered (bus round trip) p50 %d ms,"
              + " p90 %d ms, p99 %d ms; the embedding model ran %.2f times a question%n"
              + "first-attempt prompt: %d chars (~%d tokens) with the top-5 tables; every table: %d chars (~%d tokens), %.0f%% of it%n",
          questions.size(), rounds,
          WARM_UP_ROUNDS, Percentiles.of(early.overhead(), 50), Percentiles.of(early.overhead(), 90),
          Percentiles.of(early.overhead(), 99), early.jitMs(), early.wallMs(),
          settleRounds, Percentiles.of(overhead, 50), Percentiles.of(overhead, 90), Percentiles.of(overhead, 99),
          settled.jitMs(), settled.wallMs(), Percentiles.of(overhead, 50), Percentiles.of(overhead, 90),
          Percentiles.of(overhead, 99), Collections.max(overhead), Percentiles.of(total, 50), Percentiles.of(total, 99),
          byStage, publishMs, eventsPerQuestion, publishMs * eventsPerQuestion, Percentiles.of(direct, 50) / 1000.0, Percentiles.of(direct, 90) / 1000.0,
          Percentiles.of(embedWall, 50) / 1000.0, Percentiles.of(embedWall, 90) / 1000.0,
          Percentiles.of(embedCpu, 50) / 1000.0, questions.size(),
          Percentiles.of(userLatency, 50), Percentiles.of(userLatency, 90), Percentiles.of(userWall, 50),
          Percentiles.of(userWall, 90), Percentiles.of(userWall, 99), embeddedPerQuestion,
          firstAttemptChars, firstAttemptChars / 4, allTablesChars, allTablesChars / 4,
          100.0 * firstAttemptChars / allTablesChars);
      System.out.print(report);
      Files.createDirectories(Path.of("target/benchmarks"));
      Files.writeString(Path.of("target/benchmarks/agent.txt"), report);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Tracing's cost: two services in this JVM on the same database and model, one exporting every span to an OTLP
   * receiver running here (SQLAGENT_OTLP_ENDPOINT), one with tracing off, asked the same questions in turns, so both
   * share the machine's state; each question's latency less its model time, as a user asks (a conversation turn).
   *
   * <p>{@code mvn -B test -Dtest='AgentBenchmark#tracingOnAndOff' -Dgroups=benchmark -Dtest.excludedGroups=}
   */
  @Test
  void tracingOnAndOff() throws Exception {
    List<Question> questions = QuestionSet.shipped().stream().filter(Question::answerable).toList();
    Vertx client = Vertx.vertx();
    dev.sqlagent.testing.OtlpReceiver sink = dev.sqlagent.testing.OtlpReceiver.start(client);
    Vertx off = null;
    Vertx on = null;
    try (FakeModelServer model = FakeModelServer.start()) {
      answersWithGoldSql(model, questions);
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      TestDatabase db = TestDatabase.get();
      off = Vertx.vertx();
      off.deployVerticle(new MainVerticle(db.config(env), db.target(), db.state(), false)).await(180, TimeUnit.SECONDS);
      env.put("SQLAGENT_OTLP_ENDPOINT", sink.endpoint());
      dev.sqlagent.telemetry.Tracing tracing = dev.sqlagent.telemetry.Tracing.start(
          dev.sqlagent.config.TelemetrySettings.from(env), null);
      on = tracing.attach(tracing.install(Vertx.builder()).build());
      on.deployVerticle(new MainVerticle(db.config(env), db.target(), db.state(), false)).await(180, TimeUnit.SECONDS);
      StoredValuesReady.await(off);
      StoredValuesReady.await(on);
      for (int r = 0; r < WARM_UP_ROUNDS; r++) {
        for (Question q : questions) {
          askAsUser(off, q.question());
          askAsUser(on, q.question());
        }
      }
      int spansBefore = sink.spans().size();
      // Each question's time as the asking client sees it (ns, so a p50 is not a whole number of ms), less the model's
      // own latency; on and off are asked the same question one after the other, so each pair shares the moment.
      List<Double> offMs = new ArrayList<>();
      List<Double> onMs = new ArrayList<>();
      List<Double> pairDiffMs = new ArrayList<>();
      int rounds = Integer.getInteger("tracing.rounds", 6);
      String loadBefore = loadAverage();
      for (int r = 0; r < rounds; r++) {
        for (Question q : questions) {
          // Which goes first alternates, so neither always meets a cooler cache.
          boolean onFirst = (r + questions.indexOf(q)) % 2 == 0;
          double[] pair = new double[2];
          for (Vertx v : onFirst ? List.of(on, off) : List.of(off, on)) {
            long t0 = System.nanoTime();
            Answer a = askAsUser(v, q.question());
            double ms = (System.nanoTime() - t0) / 1e6 - modelTime(events(v, a.runId()));
            (v == on ? onMs : offMs).add(ms);
            pair[v == on ? 1 : 0] = ms;
          }
          pairDiffMs.add(pair[1] - pair[0]);
        }
      }
      String loadAfter = loadAverage();
      Thread.sleep(2_000);  // the last batch of spans
      List<dev.sqlagent.testing.OtlpReceiver.Received> measured = sink.spans().subList(spansBefore, sink.spans().size());
      double spansPerQuestion = measured.size() / (double) onMs.size();
      Map<String, Long> names = new java.util.TreeMap<>();
      for (var span : measured) names.merge(span.name(), 1L, Long::sum);
      StringBuilder byName = new StringBuilder();
      names.forEach((name, count) -> byName.append(String.format("    %-28s %5.2f a question%n", name,
          count / (double) onMs.size())));
      double offP50 = Percentiles.of(offMs, 50);
      double onP50 = Percentiles.of(onMs, 50);
      String report = String.format(
          "tracing's cost, %d questions x %d rounds as a user asks, the same service with tracing off and on in turns "
              + "(the asking client's time less the model's; load average %s before, %s after):%n"
              + "  off: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, mean %.2f ms%n"
              + "  on:  p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, mean %.2f ms (%.0f spans per question exported over "
              + "OTLP/HTTP to a receiver in the same JVM)%n"
              + "  on vs off at p50: %+.2f ms (%+.1f%%); the same question on minus off: median %+.2f ms, mean %+.2f ms%n"
              + "  the spans, by name:%n%s",
          questions.size(), rounds, loadBefore, loadAfter, offP50, Percentiles.of(offMs, 90), Percentiles.of(offMs, 99),
          mean(offMs), onP50, Percentiles.of(onMs, 90), Percentiles.of(onMs, 99), mean(onMs), spansPerQuestion,
          onP50 - offP50, 100 * (onP50 - offP50) / offP50, Percentiles.of(pairDiffMs, 50), mean(pairDiffMs), byName);
      System.out.print(report);
      Files.createDirectories(Path.of("target/benchmarks"));
      Files.writeString(Path.of("target/benchmarks/tracing.txt"), report);
    } finally {
      if (on != null) on.close().await(30, TimeUnit.SECONDS);
      if (off != null) off.close().await(30, TimeUnit.SECONDS);
      sink.close();
      client.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  /** The machine's load averages (1, 5, 15 minutes), as {@code uptime} prints them. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /**
   * The model answers each question with its gold SQL, instantly. Each reply is SQL the gate has not seen (a numbered
   * comment), as a fresh attempt is: no question is measured on verdicts or result shapes the warm-up left behind.
   */
  private static void answersWithGoldSql(FakeModelServer model, List<Question> questions) {
    AtomicInteger replies = new AtomicInteger();
    model.respondWith(req -> {
      String q = req.getJsonArray("messages").getJsonObject(1).getString("content").substring("Question: ".length());
      return Reply.sql("/* reply " + replies.incrementAndGet() + " */ "
              + questions.stream().filter(x -> x.question().equals(q)).findFirst().orElseThrow().goldSql().get(0))
          .streamedIn(1);
    });
  }

  private static Answer ask(Vertx vertx, String question) throws Exception {
    return new AgentClient(vertx, 60_000).ask(AskRequest.of(question, "eval").withOptions(RunOptions.evaluation(null, null)))
        .await(60, TimeUnit.SECONDS);
  }

  private static Answer askAsUser(Vertx vertx, String question) throws Exception {
    return new AgentClient(vertx, 60_000).ask(AskRequest.of(question, null)).await(60, TimeUnit.SECONDS);
  }

  /** The run's events once the last has come: explain_sql after an answer with SQL (when the service publishes it). */
  private static JsonArray explained(Vertx vertx, Answer a) throws Exception {
    JsonArray events = events(vertx, a.runId());
    for (int i = 0; i < 40 && a.sql() != null && "answered".equals(a.outcome()) && a.explanation() == null
        && !"explain_sql".equals(events.getJsonObject(events.size() - 1).getString("node")); i++) {
      Thread.sleep(5);
      events = events(vertx, a.runId());
    }
    return events;
  }

  /**
   * What publishing one event costs the run, on an event loop of the service, with the service's own consumers of every
   * run's events (metrics): the mean of 2,000 publishes of an execute_sql finished event with a result's columns.
   */
  private static double publishing(Vertx vertx) throws Exception {
    JsonArray columns = new JsonArray();
    for (int i = 0; i < 4; i++) columns.add(new JsonObject().put("name", "c" + i).put("type", "text"));
    StepData data = new StepData.SqlRan("SELECT 1", 10, false, 1, columns);
    int n = 2_000;
    io.vertx.core.Promise<Double> done = io.vertx.core.Promise.promise();
    vertx.runOnContext(v -> {
      RunEvents events = new RunEvents(vertx.eventBus(), "benchmark-publishing", new JsonArray(), null);
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) events.finished(Node.EXECUTE_SQL, 1, data);
      done.complete((System.nanoTime() - t0) / 1e6 / n);
    });
    return done.future().await(60, TimeUnit.SECONDS);
  }

  /** The run's events as they go out to watchers. */
  private static JsonArray events(Vertx vertx, String runId) throws Exception {
    return new JsonArray(new AgentClient(vertx, 10_000).events(RunRequest.events(runId, 0, null))
        .await(10, TimeUnit.SECONDS).events().stream().map(GraphEvent::toJson).toList());
  }

  /**
   * Where a run's time went, from its events' timestamps (ms; means over many questions are sound, single values are
   * not): each node of the graph from its start to its end (a node that announces nothing before it runs, from the end
   * of the one before), the model's own latency taken out of generate_sql; the time between one node's end and the
   * next one's start (the driver, the events published, the next request sent); what lies outside the events (the
   * ask's hop in and the answer's way out); and explain_sql, after the answer, off its path.
   */
  private static Map<String, Long> stages(JsonArray events, long latencyMs) {
    Map<String, Long> out = new LinkedHashMap<>();
    long modelMs = 0;
    long between = 0;
    Long previousEnd = null;
    Long answered = null;
    Map<String, Long> started = new HashMap<>();
    for (Object o : events) {
      JsonObject e = (JsonObject) o;
      String node = e.getString("node");
      String status = e.getString("status");
      long ts = e.getLong("ts");
      if ("progress".equals(status)) continue;
      if ("explain_sql".equals(node)) {
        if (answered != null) out.put("explain_sql (after the answer, off its path)", ts - answered);
        continue;
      }
      if ("started".equals(status)) {
        started.put(node, ts);
        if (previousEnd != null) between += ts - previousEnd;
        continue;
      }
      Long from = started.remove(node);
      if (from == null) from = previousEnd == null ? ts : previousEnd;
      long took = ts - from;
      if ("generate_sql".equals(node)) {
        long model = e.getJsonObject("data").getLong("latency_ms", 0L);
        modelMs += model;
        took -= model;
      }
      out.merge(node + ("generate_sql".equals(node) ? " (less the model)" : ""), took, Long::sum);
      previousEnd = ts;
      if ("answer".equals(node) || "give_up".equals(node)) answered = ts;
    }
    out.put("between nodes (driver, events, next request)", between);
    Long first = ((JsonObject) events.getValue(0)).getLong("ts");
    long end = answered != null ? answered : ((JsonObject) events.getValue(events.size() - 1)).getLong("ts");
    out.put("outside the events (ask in, answer out)", latencyMs - (end - first));
    return out;
  }

  /** Model time of a run: the generation latencies its events report. */
  private static long modelTime(JsonArray events) {
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
  private static Retrieval everyTable(Vertx vertx) throws Exception {
    RetrievalClient retrieval = new RetrievalClient(vertx, 30_000);
    StringBuilder ddl = new StringBuilder();
    List<SampleRows> samples = new ArrayList<>();
    for (TableInfo t : retrieval.tables(new SchemaRequest(null)).await(30, TimeUnit.SECONDS).tables()) {
      ddl.append(retrieval.describe(new DescribeRequest(t.name(), null)).await(30, TimeUnit.SECONDS).ddl()).append("\n\n");
      samples.add(retrieval.sample(new SampleRequest(t.name(), 3, null)).await(30, TimeUnit.SECONDS));
    }
    return new Retrieval(List.of(), ddl.toString(), SampleRows.text(samples), List.of(), 0);
  }
}
