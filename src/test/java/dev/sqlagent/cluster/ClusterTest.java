package dev.sqlagent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three JVMs on loopback (one edge, two workers), real child processes on the test's classpath, against the
 * suite's PostgreSQL as target and state store, with the fake model: questions over HTTP and WebSocket on the
 * edge are answered by either worker; a watcher on the edge sees every event of every run; events reach no
 * node without a watcher, also once a watcher stops or leaves; any run replays from the state store; a cancel
 * on the edge stops the run on its worker and the edge lists every worker's runs; a schema refresh on the edge
 * refreshes every worker; a worker killed with kill -9 mid-load, the one holding the query-log writer, leaves
 * every question answered or honestly given up ({@code worker_lost}), no 5xx, the writer taken over (health
 * says where), and exactly one log row per answered question.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {

  static Vertx vertx;
  static FakeModelServer model;
  static WebClient http;
  static ClusterNodes nodes;
  static ClusterNodes.Node edge;
  static ClusterNodes.Node worker1;
  static ClusterNodes.Node worker2;
  /** How long the model thinks: raised while a worker is killed, so runs are in flight. */
  static volatile long thinkMs = 0;
  /** Run ids of every question answered over HTTP or WebSocket, with its answer. */
  static final Map<String, JsonObject> answers = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
    model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills", "counted the bills").delayed(thinkMs));
    http = WebClient.create(vertx);
    Map<String, String> env = new HashMap<>(db.env(model.env()));
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_ASK_PER_CLIENT", "50");
    env.put("SQLAGENT_HEALTH_TIMEOUT_MS", "3000");
    env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "30000");
    nodes = new ClusterNodes(env, 3);
    // The worker that is killed later first: the oldest member, so it holds the query-log writer until then.
    worker2 = nodes.start("worker");
    worker2.awaitReady(240);
    edge = nodes.start("edge");
    worker1 = nodes.start("worker");
    edge.awaitReady(300);
    worker1.awaitReady(300);
  }

  @AfterAll
  static void stop() throws Exception {
    if (nodes != null) nodes.close();
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  @Order(1)
  void healthShowsTheMembersTheirRolesAndTheLogWriter() throws Exception {
    JsonObject cluster = awaitCluster(3);
    assertThat(cluster.getBoolean("enabled")).isTrue();
    assertThat(cluster.getString("role")).isEqualTo("edge");
    assertThat(cluster.getJsonArray("members").stream().map(m -> ((JsonObject) m).getString("role")).sorted().toList())
        .containsExactly("edge", "worker", "worker");
    assertThat(cluster.getJsonObject("log_writer").getString("name")).isEqualTo(worker2.name());
    assertThat(cluster.getJsonObject("log_writer").getBoolean("ready")).isTrue();
    String metrics = get("/metrics").bodyAsString();
    assertThat(metrics).contains("node=\"" + edge.name() + "\"");
    HttpResponse<Buffer> workerMetrics = get("/metrics?node=" + worker1.name());
    assertThat(workerMetrics.statusCode()).isEqualTo(200);
    assertThat(workerMetrics.bodyAsString()).contains("node=\"" + worker1.name() + "\"");
    assertThat(get("/metrics?node=127.0.0.1:1").statusCode()).isEqualTo(503);
  }

  @Test
  @Order(2)
  void questionsOverHttpAreAnsweredByBothWorkersAndNoNodeReceivesEventsWithoutAWatcher() throws Exception {
    List<JsonObject> got = askConcurrently(8, "before any watcher");
    assertThat(got).allSatisfy(a -> assertThat(a.getBoolean("gave_up")).as(a.encode()).isFalse());
    assertThat(got.stream().map(a -> a.getString("worker")).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(worker1.name(), worker2.name());
    // Eight runs' events were published on the workers; with no watcher anywhere, none crossed to a node.
    for (Object m : cluster().getJsonArray("members")) {
      assertThat(((JsonObject) m).getLong("events_from_other_nodes")).as(((JsonObject) m).encode()).isZero();
    }
    // A run a client named: asked again, on either worker (the edge takes turns), its id is refused.
    String named = "named-" + UUID.randomUUID();
    HttpResponse<Buffer> once = post(new JsonObject().put("question", "a named run").put("run_id", named));
    assertThat(once.statusCode()).as(once.bodyAsString()).isEqualTo(200);
    answers.put(named, once.bodyAsJsonObject());
    for (int i = 0; i < 2; i++) {
      HttpResponse<Buffer> again = post(new JsonObject().put("question", "a named run again").put("run_id", named));
      assertThat(again.statusCode()).as(again.bodyAsString()).isEqualTo(400);
      assertThat(again.bodyAsJsonObject().getString("message")).isEqualTo("run_id " + named + " is already in use");
    }
  }

  @Test
  @Order(3)
  void aWatcherOnTheEdgeSeesEveryEventOfRunsOnEitherWorkerInOrderAndReplayMatches() throws Exception {
    ClusterWs watcher = ClusterWs.connect(vertx, edge.httpPort);
    watcher.send(new JsonObject().put("type", "watch"));
    watcher.until(f -> "watching".equals(f.getString("type")), 10);
    // The workers learn of the new subscription asynchronously: ask until the watcher sees runs from both.
    Set<String> seenFrom = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 40 && seenFrom.size() < 2; i++) {
      JsonObject a = askHttp("warm-up " + i);
      if (watcher.answered(a.getString("run_id"), 5) && watcher.seqs(a.getString("run_id")).indexOf(1L) == 0) {
        seenFrom.add(a.getString("worker"));
      }
    }
    assertThat(seenFrom).hasSize(2);
    watcher.frames.clear();

    List<JsonObject> viaHttp = askConcurrently(10, "watched");
    ClusterWs asker = ClusterWs.connect(vertx, edge.httpPort);
    List<JsonObject> viaWs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      asker.send(new JsonObject().put("type", "ask").put("question", "How many bills over ws? " + i));
      List<JsonObject> frames = asker.until(f -> "answer".equals(f.getString("type")), 30);
      JsonObject answer = frames.get(frames.size() - 1);
      answers.put(answer.getString("run_id"), answer);
      viaWs.add(answer);
    }
    assertThat(viaWs).allSatisfy(a -> assertThat(a.getBoolean("gave_up")).isFalse());
    List<JsonObject> all = new ArrayList<>(viaHttp);
    all.addAll(viaWs);
    assertThat(viaHttp.stream().map(a -> a.getString("worker")).collect(Collectors.toSet())).hasSize(2);

    for (JsonObject a : all) {
      String runId = a.getString("run_id");
      assertThat(watcher.answered(runId, 20)).as("the watcher got the answer of " + runId).isTrue();
      List<Long> seqs = watcher.seqs(runId);
      JsonArray kept = get("/api/runs/" + runId + "/events").bodyAsJsonObject().getJsonArray("events");
      // Up to the answer: explain_sql follows it, and may or may not have come yet.
      int answered = kept.getJsonObject(kept.size() - 1).getString("node").equals("explain_sql") ? kept.size() - 1
          : kept.size();
      assertThat(kept.getJsonObject(answered - 1).getString("node")).isEqualTo("answer");
      assertThat(seqs.subList(0, Math.min(seqs.size(), answered))).as("events of " + runId + " in order, no gap")
          .isEqualTo(ClusterNodes.range(answered));
    }
    // WebSocket replay on the edge, of a run that ran on a worker: every event, then replay_end.
    String runId = viaHttp.get(0).getString("run_id");
    asker.send(new JsonObject().put("type", "replay").put("run_id", runId).put("after_seq", 2));
    // (The asker's own runs' explain_sql events may still come in between: only the replayed run's frames count.)
    List<JsonObject> replayed = asker.until(f -> "replay_end".equals(f.getString("type")), 10).stream()
        .filter(f -> runId.equals(f.getString("run_id"))).toList();
    assertThat(replayed.get(0).getLong("seq")).isEqualTo(3L);
    assertThat(replayed.get(replayed.size() - 1).getInteger("count")).isEqualTo(replayed.size() - 1);
    assertThat(get("/api/runs/no-such-run-0000/events").statusCode()).isEqualTo(404);

    // Only the edge, where the watcher is, received events from other nodes; the workers none.
    for (Object o : cluster().getJsonArray("members")) {
      JsonObject m = (JsonObject) o;
      if (m.getString("role").equals("edge")) {
        assertThat(m.getLong("events_from_other_nodes")).isPositive();
      } else {
        assertThat(m.getLong("events_from_other_nodes")).as(m.encode()).isZero();
      }
    }
    watcher.close();
    asker.close();
  }

  @Test
  @Order(4)
  void aWatcherThatStopsOrLeavesNoLongerHasEveryEventCopiedToItsEdge() throws Exception {
    // Unwatch: the edge gives its subscription back.
    ClusterWs watcher = ClusterWs.connect(vertx, edge.httpPort);
    watcher.send(new JsonObject().put("type", "watch"));
    watcher.until(f -> "watching".equals(f.getString("type")), 10);
    awaitEventsReach(watcher);
    watcher.send(new JsonObject().put("type", "unwatch"));
    watcher.until(f -> "watching".equals(f.getString("type")) && !f.getBoolean("watching"), 10);
    assertNoEventCrossesTheBus("after unwatch", watcher);
    // Watching again works, and a watcher that disconnects is gone as well.
    watcher.send(new JsonObject().put("type", "watch"));
    watcher.until(f -> "watching".equals(f.getString("type")) && f.getBoolean("watching"), 10);
    awaitEventsReach(watcher);
    watcher.close();
    assertNoEventCrossesTheBus("after the watcher disconnected", null);
  }

  @Test
  @Order(5)
  void aCancelOnTheEdgeStopsTheRunOnItsWorkerAndTheEdgeListsEveryWorkersRuns() throws Exception {
    thinkMs = 60_000;
    ClusterWs asker = ClusterWs.connect(vertx, edge.httpPort);
    try {
      // DELETE /api/runs/{id} on the edge, for a run waiting on the model on a worker.
      String viaHttp = askAndAwaitTheModel(asker, "How many bills? (cancelled over http)");
      long t0 = System.currentTimeMillis();
      HttpResponse<Buffer> cancel = delete("/api/runs/" + viaHttp);
      assertThat(cancel.statusCode()).as(cancel.bodyAsString()).isEqualTo(200);
      assertThat(cancel.bodyAsJsonObject().getBoolean("cancelled")).isTrue();
      JsonObject first = answerOf(asker, viaHttp, 20);
      assertThat(first.getBoolean("cancelled")).as(first.encode()).isTrue();
      // The WebSocket's own cancel.
      String viaWs = askAndAwaitTheModel(asker, "How many bills? (cancelled over ws)");
      asker.send(new JsonObject().put("type", "cancel").put("run_id", viaWs));
      JsonObject second = answerOf(asker, viaWs, 20);
      assertThat(second.getBoolean("cancelled")).as(second.encode()).isTrue();
      assertThat(System.currentTimeMillis() - t0).as("both runs stopped long before the model would answer").isLessThan(40_000);
      // A run that ended: its worker says so (409), though this edge no longer tracks it; an unknown run: 404.
      assertThat(delete("/api/runs/" + viaHttp).statusCode()).isEqualTo(409);
      assertThat(delete("/api/runs/no-such-run-0000").statusCode()).isEqualTo(404);

      // The list on the edge: every worker's runs, newest first, each naming the worker that ran it.
      HttpResponse<Buffer> listed = get("/api/runs");
      assertThat(listed.statusCode()).as(listed.bodyAsString()).isEqualTo(200);
      JsonArray runs = listed.bodyAsJsonObject().getJsonArray("runs");
      Map<String, JsonObject> byId = new HashMap<>();
      runs.forEach(o -> byId.put(((JsonObject) o).getString("run_id"), (JsonObject) o));
      assertThat(byId.keySet()).containsAll(answers.keySet());
      assertThat(byId.get(viaHttp).getString("state")).isEqualTo("cancelled");
      assertThat(byId.get(viaWs).getString("state")).isEqualTo("cancelled");
      assertThat(byId.get(viaWs).getString("worker")).isIn(worker1.name(), worker2.name());
      for (String runId : answers.keySet()) {
        // (HTTP answers name their worker; WebSocket answer frames do not)
        String worker = answers.get(runId).getString("worker");
        if (worker != null) assertThat(byId.get(runId).getString("worker")).as(runId).isEqualTo(worker);
      }
      assertThat(runs.stream().map(o -> ((JsonObject) o).getString("worker")).collect(Collectors.toSet()))
          .containsExactlyInAnyOrder(worker1.name(), worker2.name());
      assertThat(runs.getJsonObject(0).getString("run_id")).isEqualTo(viaWs);
      assertThat(listed.bodyAsJsonObject().containsKey("unreachable")).isFalse();
    } finally {
      thinkMs = 0;
      asker.close();
    }
  }

  @Test
  @Order(6)
  void aSchemaRefreshOnTheEdgeRefreshesEveryWorkersRetrievalGateAndStoredValues() throws Exception {
    java.time.Instant asked = java.time.Instant.now();
    JsonObject added;
    JsonObject removed;
    try {
      admin("CREATE TABLE cluster_probe (probe_id int PRIMARY KEY, label text)",
          "INSERT INTO cluster_probe VALUES (1, 'first probe'), (2, 'second probe')");
      added = refresh();
    } finally {
      admin("DROP TABLE IF EXISTS cluster_probe");
    }
    removed = refresh();
    assertThat(added.getInteger("tables")).isEqualTo(removed.getInteger("tables") + 1);
    Map<String, JsonObject> before = byNode(added);
    Map<String, JsonObject> after = byNode(removed);
    assertThat(before.keySet()).containsExactlyInAnyOrder(worker1.name(), worker2.name());
    assertThat(after.keySet()).containsExactlyInAnyOrder(worker1.name(), worker2.name());
    for (String node : before.keySet()) {
      JsonObject b = before.get(node);
      JsonObject a = after.get(node);
      assertThat(b.getBoolean("ok")).as(b.encode()).isTrue();
      // Each worker's own index, gate and stored values followed: the probe table in, then out.
      assertThat(b.getInteger("tables")).as(node).isEqualTo(a.getInteger("tables") + 1);
      assertThat(b.getInteger("gate_tables")).as(node).isEqualTo(a.getInteger("gate_tables") + 1);
      assertThat(java.time.Instant.parse(b.getString("built_at"))).as(node).isAfter(asked);
      assertThat(java.time.Instant.parse(b.getJsonObject("stored_values").getString("read_at"))).as(node).isAfter(asked);
      assertThat(java.time.Instant.parse(a.getJsonObject("stored_values").getString("read_at")))
          .isAfter(java.time.Instant.parse(b.getJsonObject("stored_values").getString("read_at")));
    }
  }

  @Test
  @Order(7)
  void aWorkerKilledMidLoadLeavesEveryQuestionAnsweredOrHonestlyGivenUp() throws Exception {
    thinkMs = 1_500;
    ExecutorService pool = Executors.newFixedThreadPool(12);
    List<Future<HttpResponse<Buffer>>> asked = new ArrayList<>();
    try {
      int before = model.requestCount();
      for (int i = 0; i < 12; i++) {
        String q = "How many bills during the fault? " + i;
        asked.add(pool.submit(() -> post(q)));
      }
      // Both workers hold runs (each waits on the model), then one dies without a word.
      long deadline = System.currentTimeMillis() + 20_000;
      while (model.requestCount() < before + 6 && System.currentTimeMillis() < deadline) Thread.sleep(50);
      // The model's count alone cannot tell the workers apart: the edge's list says which one runs what.
      while (!runningOn(worker2.name(), "How many bills during the fault?") && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      long killedAt = System.currentTimeMillis();
      worker2.kill();
      List<JsonObject> outcomes = new ArrayList<>();
      for (Future<HttpResponse<Buffer>> f : asked) {
        HttpResponse<Buffer> r = f.get(60, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
        outcomes.add(r.bodyAsJsonObject());
      }
      long endedWithin = System.currentTimeMillis() - killedAt;
      Map<String, Long> kinds = outcomes.stream().collect(Collectors.groupingBy(
          a -> a.getBoolean("gave_up") ? a.getString("error_type", "gave_up") : "answered", TreeMap::new, Collectors.counting()));
      System.err.println("kill -9 of a worker mid-load: " + kinds + ", every question ended within " + endedWithin + " ms");
      assertThat(kinds.keySet()).isSubsetOf("answered", "worker_lost");
      assertThat(kinds.get("worker_lost")).as("the killed worker held runs; answered by " + outcomes.stream()
          .collect(Collectors.groupingBy(a -> String.valueOf(a.getString("worker")), Collectors.counting()))).isPositive();
      outcomes.forEach(a -> answers.put(a.getString("run_id"), a));
    } finally {
      pool.shutdownNow();
      thinkMs = 0;
    }
    // Health: the members left, their roles, and the log writer taken over by the oldest survivor.
    JsonObject cluster = awaitCluster(2);
    long deadline = System.currentTimeMillis() + 60_000;
    while (!cluster.getJsonObject("log_writer").getBoolean("ready") && System.currentTimeMillis() < deadline) {
      Thread.sleep(250);
      cluster = awaitCluster(2);
    }
    JsonArray members = cluster.getJsonArray("members");
    assertThat(members.stream().map(m -> ((JsonObject) m).getString("name")).toList())
        .containsExactlyInAnyOrder(edge.name(), worker1.name());
    assertThat(members.stream().map(m -> ((JsonObject) m).getString("role")).sorted().toList()).containsExactly("edge", "worker");
    JsonObject writer = cluster.getJsonObject("log_writer");
    assertThat(writer.getString("name")).isEqualTo(members.getJsonObject(0).getString("name")).isNotEqualTo(worker2.name());
    assertThat(writer.getBoolean("ready")).as(cluster.encode()).isTrue();
    assertThat(members.stream().map(m -> (JsonObject) m).filter(m -> m.getBoolean("holds_singletons")).map(m -> m.getString("name")).toList())
        .containsExactly(writer.getString("name"));
    // New questions go to the surviving worker.
    for (int i = 0; i < 3; i++) {
      JsonObject a = askHttp("after the fault " + i);
      assertThat(a.getBoolean("gave_up")).isFalse();
      assertThat(a.getString("worker")).isEqualTo(worker1.name());
    }
  }

  @Test
  @Order(8)
  void theQueryLogHoldsExactlyOneRowPerAnsweredQuestion() throws Exception {
    // Every answer a client received, of either worker (the killed one's too, given before or lost with it), over
    // HTTP or WebSocket, cancelled or not: its row was committed before the edge delivered it (the worker that
    // produced it asked for the same row: one row by run id), even while the writer moved from the killed worker
    // to another node. (An answer that waited past the edge's limit for the
    // writer would go out first, its row following: so the rows are awaited, briefly.)
    Map<String, Integer> rows = ClusterNodes.logRows(answers.keySet());
    long deadline = System.currentTimeMillis() + 15_000;
    while (!rows.keySet().containsAll(answers.keySet()) && System.currentTimeMillis() < deadline) {
      Thread.sleep(250);
      rows = ClusterNodes.logRows(answers.keySet());
    }
    System.err.println("query log: " + rows.size() + " row(s) for " + answers.size() + " answered question(s)");
    assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(answers.keySet());
    assertThat(rows.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
  }

  // --- helpers ------------------------------------------------------------------------------------

  /** Graph-event deliveries that reached any of the three nodes over the clustered bus, from another node, so far. */
  static long eventsFromOtherNodes() throws Exception {
    long n = 0;
    for (Object m : awaitCluster(3).getJsonArray("members")) n += ((JsonObject) m).getLong("events_from_other_nodes", 0L);
    return n;
  }

  /** Asks until the watcher sees a run's answer: the edge's subscription is known to the workers. */
  static void awaitEventsReach(ClusterWs watcher) throws Exception {
    long before = eventsFromOtherNodes();
    boolean seen = false;
    for (int i = 0; i < 40 && !seen; i++) seen = watcher.answered(askHttp("watched " + i).getString("run_id"), 5);
    assertThat(seen).isTrue();
    assertThat(eventsFromOtherNodes()).isGreaterThan(before);
  }

  /** With no watcher anywhere, runs on both workers copy no event to another node: the count stays put. */
  static void assertNoEventCrossesTheBus(String when, ClusterWs former) throws Exception {
    // The workers learn that the subscription is gone asynchronously: first a run that crosses nothing.
    boolean quiet = false;
    for (int i = 0; i < 40 && !quiet; i++) {
      long before = eventsFromOtherNodes();
      askHttp("settling " + when + " " + i);
      Thread.sleep(100);
      quiet = eventsFromOtherNodes() == before;
    }
    assertThat(quiet).as("a run whose events stayed on its worker " + when).isTrue();
    long before = eventsFromOtherNodes();
    List<JsonObject> asked = askConcurrently(8, when);
    Thread.sleep(500);
    long crossed = eventsFromOtherNodes() - before;
    System.err.println("events sent over the clustered bus to a node with no watcher, " + when + ": " + crossed
        + " (" + asked.size() + " runs on " + asked.stream().map(a -> a.getString("worker")).collect(Collectors.toSet()) + ")");
    assertThat(crossed).isZero();
    if (former != null) {
      for (JsonObject a : asked) assertThat(former.seqs(a.getString("run_id"))).isEmpty();
    }
  }

  /** Asks over the socket and waits until the run is waiting on the model (on a worker): its run id. */
  static String askAndAwaitTheModel(ClusterWs ws, String question) throws Exception {
    int before = model.requestCount();
    ws.send(new JsonObject().put("type", "ask").put("question", question));
    String runId = ws.until(f -> "accepted".equals(f.getString("type")), 10).get(0).getString("run_id");
    long deadline = System.currentTimeMillis() + 20_000;
    while (model.requestCount() == before && System.currentTimeMillis() < deadline) Thread.sleep(50);
    assertThat(model.requestCount()).as("the run reached the model").isGreaterThan(before);
    return runId;
  }

  static JsonObject answerOf(ClusterWs ws, String runId, long seconds) throws Exception {
    List<JsonObject> frames = ws.until(f -> "answer".equals(f.getString("type")) && runId.equals(f.getString("run_id")), seconds);
    JsonObject answer = frames.get(frames.size() - 1);
    answers.put(runId, answer);
    return answer;
  }

  static HttpResponse<Buffer> delete(String path) throws Exception {
    return http.delete(edge.httpPort, "127.0.0.1", path).timeout(20_000).send().await(25, TimeUnit.SECONDS);
  }

  static JsonObject refresh() throws Exception {
    HttpResponse<Buffer> r = http.post(edge.httpPort, "127.0.0.1", "/api/schema/refresh").timeout(240_000)
        .sendJsonObject(new JsonObject()).await(245, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  static Map<String, JsonObject> byNode(JsonObject refreshed) {
    Map<String, JsonObject> out = new HashMap<>();
    refreshed.getJsonArray("workers").forEach(o -> out.put(((JsonObject) o).getString("node"), (JsonObject) o));
    return out;
  }

  static void admin(String... statements) throws Exception {
    try (Connection c = TestDatabase.get().shopAdmin(); java.sql.Statement st = c.createStatement()) {
      for (String q : statements) st.execute(q);
    }
  }

  static List<JsonObject> askConcurrently(int n, String tag) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<JsonObject>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String q = "How many bills are there? (" + tag + " " + i + ")";
        fs.add(pool.submit(() -> askHttp(q)));
      }
      List<JsonObject> out = new ArrayList<>();
      for (Future<JsonObject> f : fs) out.add(f.get(60, TimeUnit.SECONDS));
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  static JsonObject askHttp(String question) throws Exception {
    HttpResponse<Buffer> r = post(question);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject a = r.bodyAsJsonObject();
    answers.put(a.getString("run_id"), a);
    return a;
  }

  static HttpResponse<Buffer> post(String question) throws Exception {
    return post(new JsonObject().put("question", question));
  }

  static HttpResponse<Buffer> post(JsonObject body) throws Exception {
    return http.post(edge.httpPort, "127.0.0.1", "/api/ask").timeout(50_000).sendJsonObject(body).await(55, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(String path) throws Exception {
    return http.get(edge.httpPort, "127.0.0.1", path).timeout(20_000).send().await(25, TimeUnit.SECONDS);
  }

  /** Whether the edge lists a run of {@code worker} still running whose question starts with {@code prefix}. */
  static boolean runningOn(String worker, String prefix) throws Exception {
    HttpResponse<Buffer> listed = get("/api/runs");
    if (listed.statusCode() != 200) return false;
    return listed.bodyAsJsonObject().getJsonArray("runs").stream().map(o -> (JsonObject) o)
        .anyMatch(r -> worker.equals(r.getString("worker")) && "running".equals(r.getString("state"))
            && r.getString("question", "").startsWith(prefix));
  }

  static JsonObject cluster() throws Exception {
    return get("/api/health").bodyAsJsonObject().getJsonObject("cluster");
  }

  /** The edge's view once it counts {@code size} members, every one answering. */
  static JsonObject awaitCluster(int size) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    JsonObject c = null;
    while (System.currentTimeMillis() < deadline) {
      c = cluster();
      if (c != null && c.getInteger("size", 0) == size
          && c.getJsonArray("members").stream().allMatch(m -> ((JsonObject) m).getBoolean("reachable", false))) {
        return c;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("the cluster never showed " + size + " members: " + c);
  }

}
