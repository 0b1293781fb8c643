package dev.sqlagent.ops;

import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.Flush;
import dev.sqlagent.contract.StateMessages.LogStatus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Credentials;
import dev.sqlagent.db.Target;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.state.StateStore;
import dev.sqlagent.db.EmbeddedDatabase;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.metrics.MetricsVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.StoredValuesReady;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Load and faults, bounded and on loopback only: many concurrent questions over HTTP against the whole
 * service and the fake model, with the database stopped once in the middle and started again. Runs on a
 * PostgreSQL of its own (started here, on a fixed port so a restart is the same server), so the suite's
 * shared database is never disturbed.
 *
 * <p>Size: {@code -Dload.questions=120 -Dload.concurrency=12 -Dload.seconds=15} (the defaults): the questions
 * start evenly over that time, at most that many in flight; the database stops a third of the way in and
 * starts again 4 s later. Prints its numbers and writes
 * them to {@code target/load-and-faults.txt}.
 */
class LoadAndFaultsTest {

  static final int QUESTIONS = Integer.getInteger("load.questions", 120);
  static final int CONCURRENCY = Integer.getInteger("load.concurrency", 12);
  /** Questions are spread over this long, so the outage falls in the middle of a steady stream. */
  static final int SECONDS = Integer.getInteger("load.seconds", 15);
  static final long OUTAGE_MS = 4_000;

  static Path home;
  static int port;
  static String adminPassword;
  static volatile EmbeddedDatabase pg;
  static Target target;
  static StateStore state;
  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle service;
  static WebClient client;

  @BeforeAll
  static void start() throws Exception {
    home = Files.createTempDirectory("sql-agent-load");
    // The database is stopped and started again on this port mid-test: a port outside the ephemeral range.
    port = dev.sqlagent.testing.FreePorts.next();
    Credentials credentials = new Credentials(home);
    adminPassword = credentials.embeddedAdminPassword();
    pg = EmbeddedDatabase.start(home.resolve("pgdata"), TestDatabase.binaries(), adminPassword, port);
    PgUrl admin = pg.adminUrl();
    Credentials.RolePasswords roles = credentials.rolesOrCreate("embedded");
    DemoShop demo = new DemoShop(admin.withDatabase(DemoShop.DATABASE), roles.ro());
    demo.run();
    target = demo.target();
    state = new StateStore(admin.withDatabase(StateStore.EMBEDDED_DATABASE), roles.log());
    state.migrate();

    vertx = MetricsVerticle.newVertx();
    model = FakeModelServer.start(vertx);
    // The model answers each question with a good query after a short think; every fifth question's first
    // query names a column that does not exist, so the repair path is under load too.
    model.respondWith(req -> {
      String all = FakeModelServer.allText(req);
      String last = FakeModelServer.lastUserMessage(req);
      boolean repair = all.contains("bogus_total");
      boolean trap = last.contains("[trap]") && !repair;
      String sql = trap ? "SELECT sum(bogus_total) AS total FROM bills" : "SELECT count(*) AS bills FROM bills";
      return Reply.sql(sql, "counted the bills").delayed(20 + ThreadLocalRandom.current().nextInt(80));
    });

    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_DB_URL", target.url().withSecret());
    env.put("SQLAGENT_STATE_URL", state.owner().withSecret());
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_HTTP_PORT", "0");
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_ASK_PER_CLIENT", String.valueOf(CONCURRENCY * 2));
    env.put("SQLAGENT_HEALTH_TIMEOUT_MS", "1000");
    env.put("SQLAGENT_LOG_RETRY_MAX_MS", "2000");
    env.put("SQLAGENT_LLM_TIMEOUT_MS", "10000");
    env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "30000");
    AppConfig config = AppConfig.load(env);
    service = new MainVerticle(config, target, state);
    vertx.deployVerticle(service).await(5, TimeUnit.MINUTES);
    client = WebClient.create(vertx);
    awaitHealth(200, 120_000);
    // The stored values are read once after start, in the background: the load begins after, so it measures the restart.
    StoredValuesReady.await(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) vertx.close().await(60, TimeUnit.SECONDS);
    if (pg != null) pg.close();
  }

  record Sample(long atMs, int status, JsonObject body) {}

  record Outcome(int index, long startedMs, long latencyMs, int status, String kind, String detail) {}

  static HttpResponse<Buffer> get(String path) throws Exception {
    return client.get(service.httpPort(), "127.0.0.1", path).timeout(10_000).send().await(15, TimeUnit.SECONDS);
  }

  static void awaitHealth(int status, long withinMs) throws Exception {
    long deadline = System.currentTimeMillis() + withinMs;
    int last = -1;
    while (System.currentTimeMillis() < deadline) {
      last = get("/api/health").statusCode();
      if (last == status) return;
      Thread.sleep(250);
    }
    throw new AssertionError("/api/health never answered " + status + " (last " + last + ")");
  }

  static Outcome ask(int i, long testStart) {
    long startedMs = System.currentTimeMillis() - testStart;
    String question = "How many bills are there? #" + i + (i % 5 == 0 ? " [trap]" : "");
    long t0 = System.nanoTime();
    try {
      HttpResponse<Buffer> r = client.post(service.httpPort(), "127.0.0.1", "/api/ask").timeout(60_000)
          .sendJsonObject(new JsonObject().put("question", question)).await(90, TimeUnit.SECONDS);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      JsonObject b;
      try {
        b = r.bodyAsJsonObject();
      } catch (RuntimeException e) {
        return new Outcome(i, startedMs, ms, r.statusCode(), "not_json", r.bodyAsString());
      }
      if (r.statusCode() == 200) {
        String kind = b.getBoolean("refused", false) ? "refused" : b.getBoolean("gave_up", false) ? "gave_up" : "answered";
        String detail = kind.equals("gave_up") && !b.getJsonArray("history").isEmpty()
            ? b.getJsonArray("history").getJsonObject(b.getJsonArray("history").size() - 1).getString("error_type")
            : kind.equals("answered") && b.getInteger("attempts", 1) > 1 ? "repaired" : null;
        return new Outcome(i, startedMs, ms, 200, kind, detail);
      }
      return new Outcome(i, startedMs, ms, r.statusCode(), "error", b.getString("error_type"));
    } catch (Exception e) {
      return new Outcome(i, startedMs, (System.nanoTime() - t0) / 1_000_000, -1, "client_error", String.valueOf(e));
    }
  }

  @Test
  void everyQuestionGetsAnAnswerOrAnHonestFailureAcrossADatabaseRestart() throws Exception {
    long t0 = System.currentTimeMillis();
    List<Sample> health = new CopyOnWriteArrayList<>();
    AtomicInteger done = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY + 2);

    // Readiness is sampled all along.
    Future<?> sampler = pool.submit(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        try {
          HttpResponse<Buffer> r = get("/api/health");
          health.add(new Sample(System.currentTimeMillis() - t0, r.statusCode(), r.bodyAsJsonObject()));
          Thread.sleep(300);
        } catch (InterruptedException e) {
          return null;
        } catch (Exception e) {
          health.add(new Sample(System.currentTimeMillis() - t0, -1, new JsonObject().put("client_error", e.toString())));
        }
      }
      return null;
    });

    // The fault: a third of the way in (and not before some questions are done, on a slow machine), stop the
    // database; start it again 4 s later.
    Map<String, Long> faultTimes = new TreeMap<>();
    Future<?> fault = pool.submit(() -> {
      Thread.sleep(SECONDS * 1000L / 3);
      for (long until = System.currentTimeMillis() + 60_000; done.get() < 3 && System.currentTimeMillis() < until; ) {
        Thread.sleep(50);
      }
      faultTimes.put("stopping", System.currentTimeMillis() - t0);
      pg.close();
      faultTimes.put("stopped", System.currentTimeMillis() - t0);
      Thread.sleep(OUTAGE_MS);
      pg = EmbeddedDatabase.start(home.resolve("pgdata"), TestDatabase.binaries(), adminPassword, port);
      faultTimes.put("started", System.currentTimeMillis() - t0);
      return null;
    });

    ExecutorService askers = Executors.newFixedThreadPool(CONCURRENCY);
    List<Future<Outcome>> futures = new ArrayList<>();
    long spacingMs = SECONDS * 1000L / QUESTIONS;
    for (int i = 0; i < QUESTIONS; i++) {
      int n = i;
      long due = t0 + n * spacingMs;
      futures.add(askers.submit(() -> {
        long wait = due - System.currentTimeMillis();
        if (wait > 0) Thread.sleep(wait);
        Outcome o = ask(n, t0);
        done.incrementAndGet();
        return o;
      }));
    }
    List<Outcome> outcomes = new ArrayList<>();
    for (Future<Outcome> f : futures) outcomes.add(f.get(5, TimeUnit.MINUTES));
    askers.shutdown();
    fault.get(2, TimeUnit.MINUTES);
    awaitHealth(200, 60_000);
    Thread.sleep(600);
    sampler.cancel(true);
    pool.shutdownNow();

    // The service stays up and answers again once the database is back.
    assertThat(get("/health").statusCode()).isEqualTo(200);
    Outcome after = ask(QUESTIONS, t0);
    outcomes.add(after);
    assertThat(after.kind()).as(after.toString()).isEqualTo("answered");

    // Every question got an answer or an honest, structured failure; none was lost on the way.
    assertThat(outcomes).allSatisfy(o -> {
      assertThat(o.kind()).as(o.toString()).isNotIn("client_error", "not_json");
      if (o.status() != 200) assertThat(o.detail()).as(o.toString()).isNotBlank();
    });

    // The log holds exactly one row per answered question once the database is back.
    LogStatus log = new StateClient(vertx, 40_000).flushLog(new Flush(30_000L)).await(45, TimeUnit.SECONDS);
    long answeredOverHttp = outcomes.stream().filter(o -> o.status() == 200).count();
    int rows;
    try (Connection c = state.ownerConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM agent_query_log WHERE source = 'http'")) {
      rs.next();
      rows = rs.getInt(1);
    }
    assertThat(log.buffered()).isZero();
    assertThat(log.dropped()).isZero();
    assertThat(rows).isEqualTo(answeredOverHttp);

    // Questions asked once readiness was back are answered: the pools found the restarted server by themselves.
    long backAt = health.get(indexOf(health, 200, indexOf(health, 503, 0))).atMs();
    assertThat(outcomes.stream().filter(o -> o.startedMs() > backAt)).as("questions after recovery")
        .isNotEmpty().allSatisfy(o -> assertThat(o.kind()).as(o.toString()).isEqualTo("answered"));
    // And those finished before the database stopped were answered too.
    long stoppingAt = faultTimes.get("stopping");
    assertThat(outcomes.stream().filter(o -> o.startedMs() + o.latencyMs() < stoppingAt))
        .isNotEmpty().allSatisfy(o -> assertThat(o.kind()).as(o.toString()).isEqualTo("answered"));

    // Readiness went 200 -> 503 -> 200, and while down every flag had been tried (not assumed).
    int firstDown = indexOf(health, 503, 0);
    assertThat(indexOf(health, 200, 0)).isLessThan(firstDown);
    assertThat(firstDown).as("a 503 while the database was down").isGreaterThanOrEqualTo(0);
    assertThat(indexOf(health, 200, firstDown)).as("200 again after the restart").isGreaterThan(firstDown);
    // The first 503 may come while the server is shutting down (new connections refused, a pooled one still
    // answering); once it is down, a report has the database unreachable and the log unwritable.
    JsonObject down = health.get(firstDown).body();
    assertThat(health.subList(firstDown, indexOf(health, 200, firstDown)))
        .anySatisfy(h -> {
          assertThat(h.body().getBoolean("db_reachable")).isFalse();
          assertThat(h.body().getBoolean("query_log_writable")).isFalse();
        });
    for (Object c : down.getJsonArray("checks")) {
      assertThat(((JsonObject) c).getJsonObject("data").containsKey("tried_at")
          || ((JsonObject) c).getJsonObject("data").containsKey("procedure-execution-failure")).as(c.toString()).isTrue();
    }

    // The metrics saw the same: every question, every log row, no drop.
    String metrics = get("/metrics").bodyAsString();
    assertThat(metrics).contains("sqlagent_query_log_rows_written_total " + rows + ".0")
        .contains("sqlagent_query_log_rows_dropped_total 0.0");
    double questions = metrics.lines().filter(l -> l.startsWith("sqlagent_questions_total{"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    assertThat(questions).isEqualTo((double) answeredOverHttp);

    String report = report(outcomes, health, faultTimes, rows, log);
    System.out.println(report);
    Files.writeString(Path.of("target", "load-and-faults.txt"), report);
  }

  static int indexOf(List<Sample> samples, int status, int from) {
    for (int i = Math.max(0, from); i < samples.size(); i++) if (samples.get(i).status() == status) return i;
    return -1;
  }

  static String report(List<Outcome> outcomes, List<Sample> health, Map<String, Long> faultTimes, int rows, LogStatus log) {
    List<Long> latencies = new ArrayList<>(outcomes.stream().map(Outcome::latencyMs).toList());
    Collections.sort(latencies);
    Map<String, Integer> byKind = new TreeMap<>();
    for (Outcome o : outcomes) {
      String key = o.status() == 200 ? o.kind() + (o.detail() == null ? "" : " (" + o.detail() + ")")
          : "http " + o.status() + " " + o.detail();
      byKind.merge(key, 1, Integer::sum);
    }
    StringBuilder transitions = new StringBuilder();
    int last = 0;
    for (Sample s : health) {
      if (s.status() != last) transitions.append(" ").append(s.status()).append("@").append(s.atMs()).append("ms");
      last = s.status();
    }
    return "load and faults: " + outcomes.size() + " questions (" + QUESTIONS + " started evenly over " + SECONDS
        + " s, at most " + CONCURRENCY + " in flight, + 1 after), database stopped for " + OUTAGE_MS + " ms a third of the way in\n"
        + "  latency p50 " + Percentiles.of(latencies, 50) + " ms, p90 " + Percentiles.of(latencies, 90) + " ms, p99 " + Percentiles.of(latencies, 99)
        + " ms, max " + latencies.get(latencies.size() - 1) + " ms\n"
        + "  outcomes: " + byKind + "\n"
        + "  database: " + faultTimes + " (ms since start)\n"
        + "  /api/health transitions:" + transitions + " (" + health.size() + " samples)\n"
        + "  query log: " + rows + " rows for " + outcomes.stream().filter(o -> o.status() == 200).count()
        + " answered over HTTP; written " + log.written() + ", dropped " + log.dropped()
        + ", failed writes " + log.failedWrites() + "\n";
  }
}
