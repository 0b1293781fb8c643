package dev.sqlagent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
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
 * node without a watcher; any run replays from the state store; a worker killed with kill -9 mid-load leaves
 * every question answered or honestly given up ({@code worker_lost}), no 5xx, and one log row per question.
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
    // The edge first: the oldest member, so it holds the query-log writer.
    edge = nodes.start("edge");
    edge.awaitReady(240);
    worker1 = nodes.start("worker");
    worker2 = nodes.start("worker");
    worker1.awaitReady(300);
    worker2.awaitReady(300);
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
    assertThat(cluster.getJsonObject("log_writer").getString("name")).isEqualTo(edge.name());
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
  }

  @Test
  @Order(3)
  void aWatcherOnTheEdgeSeesEveryEventOfRunsOnEitherWorkerInOrderAndReplayMatches() throws Exception {
    Ws watcher = Ws.connect(edge.httpPort);
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
    Ws asker = Ws.connect(edge.httpPort);
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
      assertThat(seqs).as("events of " + runId + " in order, no gap").isEqualTo(range(kept.size()));
      assertThat(kept.getJsonObject(kept.size() - 1).getString("node")).isEqualTo("answer");
    }
    // WebSocket replay on the edge, of a run that ran on a worker: every event, then replay_end.
    String runId = viaHttp.get(0).getString("run_id");
    asker.send(new JsonObject().put("type", "replay").put("run_id", runId).put("after_seq", 2));
    List<JsonObject> replayed = asker.until(f -> "replay_end".equals(f.getString("type")), 10);
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
      assertThat(kinds.get("worker_lost")).as("the killed worker held runs").isPositive();
      outcomes.forEach(a -> answers.put(a.getString("run_id"), a));
    } finally {
      pool.shutdownNow();
      thinkMs = 0;
    }
    // New questions go to the surviving worker.
    awaitCluster(2);
    for (int i = 0; i < 3; i++) {
      JsonObject a = askHttp("after the fault " + i);
      assertThat(a.getBoolean("gave_up")).isFalse();
      assertThat(a.getString("worker")).isEqualTo(worker1.name());
    }
  }

  @Test
  @Order(5)
  void theQueryLogHoldsExactlyOneRowPerQuestion() throws Exception {
    // A known gap, not hidden: a worker killed between replying and publishing its answer leaves that answer out
    // of the log. So answers the killed worker gave count at most once; every other answer exactly once.
    String killed = worker2.name();
    Set<String> mustBeLogged = answers.entrySet().stream()
        .filter(e -> !killed.equals(e.getValue().getString("worker"))).map(Map.Entry::getKey)
        .collect(Collectors.toSet());
    Map<String, Integer> rows = new HashMap<>();
    long deadline = System.currentTimeMillis() + 15_000;
    while (System.currentTimeMillis() < deadline) {
      rows = logRows(answers.keySet());
      if (rows.keySet().containsAll(mustBeLogged)) break;
      Thread.sleep(250);
    }
    assertThat(rows.keySet()).containsAll(mustBeLogged);
    assertThat(answers.keySet()).containsAll(rows.keySet());
    assertThat(rows.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
  }

  // --- helpers ------------------------------------------------------------------------------------

  static Map<String, Integer> logRows(Set<String> runIds) throws Exception {
    Map<String, Integer> rows = new HashMap<>();
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("SELECT run_id, count(*) FROM agent_query_log WHERE run_id = ANY (?) GROUP BY 1")) {
      ps.setArray(1, c.createArrayOf("text", runIds.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) rows.put(rs.getString(1), rs.getInt(2));
      }
    }
    return rows;
  }

  static List<Long> range(int n) {
    List<Long> out = new ArrayList<>();
    for (long i = 1; i <= n; i++) out.add(i);
    return out;
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
    return http.post(edge.httpPort, "127.0.0.1", "/api/ask").timeout(50_000)
        .sendJsonObject(new JsonObject().put("question", question)).await(55, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(String path) throws Exception {
    return http.get(edge.httpPort, "127.0.0.1", path).timeout(20_000).send().await(25, TimeUnit.SECONDS);
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

  /** A /ws client: frames queue as they arrive. */
  static final class Ws {
    final WebSocket ws;
    final LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
    final Map<String, List<Long>> seqsByRun = new ConcurrentHashMap<>();
    final Set<String> answeredRuns = ConcurrentHashMap.newKeySet();

    private Ws(WebSocket ws) {
      this.ws = ws;
    }

    static Ws connect(int port) throws Exception {
      for (int attempt = 1; ; attempt++) {
        try {
          return connectOnce(port);
        } catch (Exception e) {
          System.err.println("DEBUG ws connect attempt " + attempt + " failed: " + e);
          if (attempt == 3) throw e;
          Thread.sleep(500);
        }
      }
    }

    static Ws connectOnce(int port) throws Exception {
      CompletableFuture<Ws> made = new CompletableFuture<>();
      vertx.createWebSocketClient().connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws"))
          .onSuccess(ws -> {
            Ws c = new Ws(ws);
            ws.textMessageHandler(t -> {
              JsonObject f = new JsonObject(t);
              if ("event".equals(f.getString("type"))) {
                c.seqsByRun.computeIfAbsent(f.getString("run_id"), k -> new ArrayList<>()).add(f.getLong("seq"));
              }
              if ("answer".equals(f.getString("type"))) c.answeredRuns.add(f.getString("run_id"));
              c.frames.add(f);
            });
            made.complete(c);
          })
          .onFailure(made::completeExceptionally);
      return made.get(10, TimeUnit.SECONDS);
    }

    void send(JsonObject msg) {
      ws.writeTextMessage(msg.encode());
    }

    List<JsonObject> until(java.util.function.Predicate<JsonObject> last, long seconds) throws InterruptedException {
      List<JsonObject> out = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (true) {
        JsonObject f = frames.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (f == null) throw new AssertionError("no matching frame within " + seconds + " s; got " + out);
        out.add(f);
        if (last.test(f)) return out;
      }
    }

    boolean answered(String runId, long seconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (!answeredRuns.contains(runId) && System.nanoTime() < deadline) Thread.sleep(20);
      return answeredRuns.contains(runId);
    }

    List<Long> seqs(String runId) {
      return seqsByRun.getOrDefault(runId, List.of());
    }

    void close() {
      if (!ws.isClosed()) ws.close();
    }
  }
}
