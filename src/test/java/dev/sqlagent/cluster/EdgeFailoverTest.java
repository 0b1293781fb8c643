package dev.sqlagent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FreePorts;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * An edge killed with kill -9 mid-run. Three JVMs on loopback: edge B (started first, so the oldest member: it
 * holds the query-log writer, and the node killed is only an edge), one worker, edge A; the suite's PostgreSQL
 * as target and state store; the fake model slow enough (4 s a call) that runs are in flight when edge A dies.
 * On edge A at that moment: a WebSocket client with three runs, an HTTP client waiting for its answer, and the
 * page in headless Chromium, which reaches the edges through a small TCP load balancer (A while it lives, then
 * B: the same origin). After the kill: the WebSocket client reconnects to B and replays each run from the last
 * sequence number it saw; it ends with every event of every run once, in order, with its answer, the same as
 * the stored events. The HTTP client's connection fails, and its run's outcome is read from B by the run id it
 * chose. The page reconnects by itself, catches up and shows its answer. New questions on B are answered, and
 * the query log holds exactly one row per answered question.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EdgeFailoverTest {

  static final long THINK_MS = 4_000;
  static final Set<String> FINAL_NODES = Set.of("answer", "give_up", "cancelled");

  static Vertx vertx;
  static FakeModelServer model;
  static WebClient http;
  static ClusterNodes nodes;
  static ClusterNodes.Node edgeA;
  static ClusterNodes.Node edgeB;
  static ClusterNodes.Node worker;
  static NetServer balancer;
  static int balancerPort;
  static HeadlessChromium browser;
  /** How long the model thinks: slow while edge A dies, so runs are in flight. */
  static volatile long thinkMs = 0;
  /** Every question answered (its run id), by any client: each must have exactly one log row. */
  static final Set<String> answered = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
    model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills", "counted the bills").delayed(thinkMs));
    http = WebClient.create(vertx);
    balancerPort = FreePorts.next();
    Map<String, String> env = new HashMap<>(db.env(model.env()));
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_ASK_PER_CLIENT", "50");
    env.put("SQLAGENT_HEALTH_TIMEOUT_MS", "3000");
    env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "60000");
    // Behind a load balancer the page's origin is the balancer's, not an edge's own: it is allowed by name.
    env.put("SQLAGENT_ALLOWED_ORIGIN", "http://127.0.0.1:" + balancerPort);
    nodes = new ClusterNodes(env, 3);
    edgeB = nodes.start("edge");
    edgeB.awaitReady(240);
    worker = nodes.start("worker");
    edgeA = nodes.start("edge");
    worker.awaitReady(300);
    edgeA.awaitReady(300);
    balancer = LoadBalancer.listen(vertx, balancerPort, List.of(edgeA.httpPort, edgeB.httpPort));
    awaitCluster(edgeA, 3);
    awaitCluster(edgeB, 3);
    // Both edges answer through the worker (its index built, its subscriptions known to both).
    for (ClusterNodes.Node edge : List.of(edgeA, edgeB)) {
      long deadline = System.currentTimeMillis() + 120_000;
      while (true) {
        HttpResponse<Buffer> r = post(edge, "How many bills are there? (warm-up)", null);
        if (r.statusCode() == 200 && !r.bodyAsJsonObject().getBoolean("gave_up")) {
          answered.add(r.bodyAsJsonObject().getString("run_id"));
          break;
        }
        assertThat(System.currentTimeMillis()).as("warm-up on " + edge.name() + ": " + r.bodyAsString()).isLessThan(deadline);
        Thread.sleep(500);
      }
    }
    browser = HeadlessChromium.start(1200, 900);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) browser.close();
    if (nodes != null) nodes.close();
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  @Order(1)
  void clientsOfAKilledEdgeReconnectToAnotherAndMissNothing() throws Exception {
    thinkMs = THINK_MS;
    int modelCallsBefore = model.requestCount();

    // The page, through the balancer (edge A): one question in flight.
    WebDriver d = browser.driver;
    d.get("http://127.0.0.1:" + balancerPort + "/");
    ((JavascriptExecutor) d).executeScript("localStorage.clear();");
    d.navigate().refresh();
    HeadlessChromium.waiting(d, 30).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    HeadlessChromium.ask(d, "How many bills are there, page?");
    String pageRun = HeadlessChromium.waiting(d, 30).until(x -> {
      List<WebElement> r = x.findElements(By.cssSelector("#runs > details.run[data-run-id]"));
      return r.isEmpty() ? null : r.get(0).getAttribute("data-run-id");
    });

    // A WebSocket client on edge A: three runs.
    ClusterWs onA = ClusterWs.connect(vertx, edgeA.httpPort);
    List<String> wsRuns = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      onA.send(new JsonObject().put("type", "ask").put("question", "How many bills are there over ws? " + i));
      wsRuns.add(last(onA.until(f -> "accepted".equals(f.getString("type")), 30)).getString("run_id"));
    }

    // An HTTP client on edge A, naming its run so it can find it again.
    String httpRun = UUID.randomUUID().toString();
    CompletableFuture<HttpResponse<Buffer>> httpAsked = CompletableFuture.supplyAsync(() -> {
      try {
        return post(edgeA, "How many bills are there over http?", httpRun);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });

    // Every run waits on the model, and the WebSocket client has seen its first events: then edge A dies.
    long deadline = System.currentTimeMillis() + 30_000;
    while ((model.requestCount() < modelCallsBefore + 5 || !wsRuns.stream().allMatch(r -> onA.events(r).size() >= 2))
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(model.requestCount()).as("five runs wait on the model").isGreaterThanOrEqualTo(modelCallsBefore + 5);
    Map<String, Integer> seenBeforeTheKill = new LinkedHashMap<>();
    for (String r : wsRuns) seenBeforeTheKill.put(r, onA.events(r).size());
    edgeA.kill();
    long killedAt = System.currentTimeMillis();

    // Its clients lose their connections; that is fine.
    assertThat(onA.closed.get(15, TimeUnit.SECONDS)).isTrue();
    Throwable httpFailure = null;
    try {
      HttpResponse<Buffer> r = httpAsked.get(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as("no answer can come from a killed edge: " + r.bodyAsString()).isNotEqualTo(200);
    } catch (Exception e) {
      httpFailure = e;
    }
    assertThat(httpFailure).as("the HTTP client's connection to the killed edge failed").isNotNull();
    for (String r : wsRuns) {
      assertThat(onA.events(r)).as("nothing of " + r + " came after the kill").hasSize(seenBeforeTheKill.get(r));
      assertThat(onA.answers.get(r)).as("the runs were in flight").isNull();
    }

    // The WebSocket client reconnects to edge B and replays each run from the last seq it saw, until its end.
    ClusterWs onB = ClusterWs.connect(vertx, edgeB.httpPort);
    Map<String, List<JsonObject>> seen = new LinkedHashMap<>();
    for (String r : wsRuns) seen.put(r, new ArrayList<>(onA.events(r)));
    deadline = System.currentTimeMillis() + 90_000;
    for (String r : wsRuns) {
      List<JsonObject> events = seen.get(r);
      while (!ended(events)) {
        assertThat(System.currentTimeMillis()).as("run " + r + " ends, seen on B: " + events).isLessThan(deadline);
        long last = events.isEmpty() ? 0 : events.get(events.size() - 1).getLong("seq");
        onB.send(new JsonObject().put("type", "replay").put("run_id", r).put("after_seq", last));
        List<JsonObject> frames = onB.until(f -> r.equals(f.getString("run_id"))
            && ("replay_end".equals(f.getString("type")) || "error".equals(f.getString("type"))), 15);
        for (JsonObject f : frames) {
          assertThat(f.getString("type")).as("replayed on B: " + f.encode()).isIn("event", "replay_end");
          if ("event".equals(f.getString("type"))) events.add(f);
        }
        if (!ended(events)) Thread.sleep(300);
      }
    }
    long caughtUpAfter = System.currentTimeMillis() - killedAt;
    for (String r : wsRuns) {
      List<JsonObject> events = seen.get(r);
      assertThat(events.stream().map(e -> e.getLong("seq")).toList()).as("every event of " + r + " once, in order")
          .isEqualTo(ClusterNodes.range(events.size()));
      assertThat(events.size()).as("events of " + r + " came after the kill").isGreaterThan(seenBeforeTheKill.get(r));
      JsonObject last = last(events);
      assertThat(last.getString("node")).as("the run went on and answered after its edge died").isEqualTo("answer");
      JsonObject answer = last.getJsonObject("data");
      assertThat(answer.getBoolean("gave_up")).as(answer.encode()).isFalse();
      assertThat(answer.getString("run_id")).isEqualTo(r);
      answered.add(r);
      // What the client holds is what any edge keeps.
      JsonArray kept = events(edgeB, r);
      assertThat(upToTheEnd(events).stream().map(EdgeFailoverTest::withoutType).toList())
          .isEqualTo(upToTheEnd(kept.stream().map(o -> (JsonObject) o).toList()));
    }

    // The HTTP client reads its run's outcome from edge B by the run id it chose.
    JsonArray httpEvents = new JsonArray();
    deadline = System.currentTimeMillis() + 60_000;
    while (!ended(httpEvents.stream().map(o -> (JsonObject) o).toList()) && System.currentTimeMillis() < deadline) {
      HttpResponse<Buffer> r = get(edgeB, "/api/runs/" + httpRun + "/events");
      if (r.statusCode() == 200) httpEvents = r.bodyAsJsonObject().getJsonArray("events");
      Thread.sleep(300);
    }
    List<JsonObject> httpList = httpEvents.stream().map(o -> (JsonObject) o).toList();
    assertThat(ended(httpList)).as("the HTTP client's run ended: " + httpEvents.encode()).isTrue();
    assertThat(httpList.stream().map(e -> e.getLong("seq")).toList()).isEqualTo(ClusterNodes.range(httpList.size()));
    assertThat(last(httpList).getString("node")).isEqualTo("answer");
    assertThat(last(httpList).getJsonObject("data").getBoolean("gave_up")).isFalse();
    answered.add(httpRun);

    // The page reconnected by itself (through the balancer, now to edge B), caught up and shows its answer.
    WebElement pageRunEl = d.findElement(By.cssSelector("#runs > details.run[data-run-id='" + pageRun + "']"));
    HeadlessChromium.waiting(d, 60).until(x -> pageRunEl.findElement(By.cssSelector(".run-state")).getText().equals("Answered"));
    HeadlessChromium.waiting(d, 30).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    List<String> steps = pageRunEl.findElements(By.cssSelector(".timeline > li")).stream()
        .map(li -> li.getAttribute("class") + ":" + li.getAttribute("data-state")).toList();
    assertThat(steps).as("each step once").containsExactly("step-card schema-card:ok", "step-card attempt:ok",
        "step-card end-card:ok");
    answered.add(pageRun);
    browser.screenshot(Path.of("target", "screenshots", "page-edge-failover.png"));
    System.err.println("edge A killed with 5 runs in flight: the WebSocket client had replayed them all from edge B "
        + caughtUpAfter + " ms after the kill; seen on A before it: " + seenBeforeTheKill.values());

    // New questions on edge B are answered: on the reconnected socket, over HTTP, and on the page.
    thinkMs = 0;
    onB.send(new JsonObject().put("type", "ask").put("question", "How many bills are there on B?"));
    List<JsonObject> frames = onB.until(f -> "answer".equals(f.getString("type")), 60);
    JsonObject wsAnswer = last(frames);
    assertThat(wsAnswer.getBoolean("gave_up")).isFalse();
    assertThat(frames.stream().filter(f -> "event".equals(f.getString("type"))).map(f -> f.getLong("seq")).toList())
        .isEqualTo(ClusterNodes.range((int) frames.stream().filter(f -> "event".equals(f.getString("type"))).count()));
    answered.add(wsAnswer.getString("run_id"));
    HttpResponse<Buffer> onBHttp = post(edgeB, "How many bills are there over http on B?", null);
    assertThat(onBHttp.statusCode()).as(onBHttp.bodyAsString()).isEqualTo(200);
    assertThat(onBHttp.bodyAsJsonObject().getBoolean("gave_up")).isFalse();
    answered.add(onBHttp.bodyAsJsonObject().getString("run_id"));
    HeadlessChromium.ask(d, "How many bills are there, page, again?");
    WebElement again = HeadlessChromium.waiting(d, 60).until(x -> {
      List<WebElement> r = x.findElements(By.cssSelector("#runs > details.run"));
      return r.size() == 2 && r.get(1).findElement(By.cssSelector(".run-state")).getText().equals("Answered") ? r.get(1) : null;
    });
    assertThat(again.getAttribute("data-run-id")).isNotEqualTo(pageRun);
    answered.add(again.getAttribute("data-run-id"));
    onB.close();

    // The cluster knows edge A is gone.
    assertThat(awaitCluster(edgeB, 2).getJsonArray("members").stream()
        .map(m -> ((JsonObject) m).getString("name")).toList()).doesNotContain(edgeA.name());
  }

  @Test
  @Order(2)
  void theQueryLogHoldsExactlyOneRowPerAnsweredQuestion() throws Exception {
    // Two warm-ups, five runs in flight on the killed edge, three questions on edge B.
    assertThat(answered).hasSize(10);
    Map<String, Integer> rows = Map.of();
    long deadline = System.currentTimeMillis() + 20_000;
    while (System.currentTimeMillis() < deadline) {
      rows = ClusterNodes.logRows(answered);
      if (rows.keySet().containsAll(answered)) break;
      Thread.sleep(250);
    }
    assertThat(rows.keySet()).as("every answered question is logged").containsExactlyInAnyOrderElementsOf(answered);
    assertThat(rows.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
  }

  // --- helpers ------------------------------------------------------------------------------------

  static boolean ended(List<JsonObject> events) {
    if (events.isEmpty()) return false;
    JsonObject last = last(events);
    return FINAL_NODES.contains(last.getString("node")) && "finished".equals(last.getString("status"));
  }

  /** The run's last step: explain_sql, which comes after the answer, is not one. */
  static JsonObject last(List<JsonObject> list) {
    List<JsonObject> steps = upToTheEnd(list);
    return steps.get(steps.size() - 1);
  }

  /** The events without explain_sql (it follows the answer, and may or may not have come yet). */
  static List<JsonObject> upToTheEnd(List<JsonObject> list) {
    List<JsonObject> steps = list.stream().filter(e -> !"explain_sql".equals(e.getString("node"))).toList();
    return steps.isEmpty() ? list : steps;
  }

  static JsonObject withoutType(JsonObject frame) {
    JsonObject e = frame.copy();
    e.remove("type");
    return e;
  }

  static HttpResponse<Buffer> post(ClusterNodes.Node edge, String question, String runId) throws Exception {
    JsonObject body = new JsonObject().put("question", question);
    if (runId != null) body.put("run_id", runId);
    return http.post(edge.httpPort, "127.0.0.1", "/api/ask").timeout(70_000).sendJsonObject(body).await(75, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(ClusterNodes.Node edge, String path) throws Exception {
    return http.get(edge.httpPort, "127.0.0.1", path).timeout(20_000).send().await(25, TimeUnit.SECONDS);
  }

  static JsonArray events(ClusterNodes.Node edge, String runId) throws Exception {
    HttpResponse<Buffer> r = get(edge, "/api/runs/" + runId + "/events");
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject().getJsonArray("events");
  }

  /** The edge's view of the cluster once it counts {@code size} members, every one answering. */
  static JsonObject awaitCluster(ClusterNodes.Node edge, int size) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    JsonObject c = null;
    while (System.currentTimeMillis() < deadline) {
      c = get(edge, "/api/health").bodyAsJsonObject().getJsonObject("cluster");
      if (c != null && c.getInteger("size", 0) == size
          && c.getJsonArray("members").stream().allMatch(m -> ((JsonObject) m).getBoolean("reachable", false))) {
        return c;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("edge " + edge.name() + " never showed " + size + " members: " + c);
  }

  /**
   * A TCP load balancer on loopback: each connection goes to the first backend that accepts it, so to edge A
   * while it lives, then to edge B. A backend that dies closes its connections; the clients reconnect.
   */
  static final class LoadBalancer {
    static NetServer listen(Vertx vertx, int port, List<Integer> backends) throws Exception {
      NetClient client = vertx.createNetClient(new NetClientOptions().setConnectTimeout(2_000));
      return vertx.createNetServer().connectHandler(front -> {
        front.pause();
        connect(client, backends, 0).onSuccess(back -> {
          front.pipeTo(back);
          back.pipeTo(front);
          front.resume();
        }).onFailure(e -> front.close());
      }).listen(port, "127.0.0.1").await(10, TimeUnit.SECONDS);
    }

    private static Future<NetSocket> connect(NetClient client, List<Integer> backends, int i) {
      if (i >= backends.size()) return Future.failedFuture("no backend accepts connections");
      return client.connect(backends.get(i), "127.0.0.1").recover(e -> connect(client, backends, i + 1));
    }
  }

}
