package dev.sqlagent.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.ServiceProcess;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.WsClients;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketConnectOptions;
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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A rolling restart as an orchestrator does it: the service runs as a child JVM ({@code serve}), three questions
 * are in flight — one whose model reply comes 2 s later, one whose statement never ends by itself, one whose model
 * never replies — and the process gets SIGTERM. Readiness must turn 503 at once and stay so, new questions be
 * refused with 503 and Retry-After (HTTP) or a {@code stopping} error (/ws), the first question be answered, the
 * other two end as cancelled when the drain time runs out, each with its query-log row, the process exit, and no
 * statement of the agent role be left running in PostgreSQL.
 */
class DrainTest {

  /** Allowed by the gate and effectively endless: ten billion rows of a nested loop. */
  static final String ENDLESS = "SELECT count(*) AS drain_n FROM generate_series(1, 100000) a, generate_series(1, 100000) b";
  static final int DRAIN_SECONDS = 12;

  static FakeModelServer model;
  static Vertx vertx;
  static WebClient client;

  @BeforeAll
  static void start() {
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req);
      if (q.contains("slow reply")) return Reply.sql("SELECT count(*) AS n FROM customers").delayed(2_000);
      if (q.contains("never replies")) return Reply.hang();
      return Reply.sql(ENDLESS);
    });
    vertx = Vertx.vertx();
    client = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() {
    if (vertx != null) vertx.close().await();
    if (model != null) model.close();
  }

  @Test
  void sigtermDrainsTheQuestionsInFlightRefusesNewOnesAndLeavesNoStatementRunning() throws Exception {
    Map<String, String> settings = new HashMap<>(model.env());
    settings.put("SQLAGENT_MAX_PLAN_COST", "1000000000000");
    settings.put("SQLAGENT_STATEMENT_TIMEOUT_MS", "300000");
    settings.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    settings.put("SQLAGENT_LLM_TIMEOUT_MS", "300000");
    settings.put("SQLAGENT_QUESTION_TIMEOUT_MS", "600000");
    settings.put("SQLAGENT_DRAIN_SECONDS", String.valueOf(DRAIN_SECONDS));
    settings.put("SQLAGENT_ASK_PER_CLIENT", "8");  // every question of this test comes from one address
    Map<String, String> env = TestDatabase.get().env(settings);
    try (ServiceProcess service = ServiceProcess.start("drain", List.of("-Xmx512m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"), env)) {
      service.awaitReady(300);
      int port = service.httpPort;
      assertThat(readiness(port).getString("stopping")).isNull();

      String slow = UUID.randomUUID().toString();
      String endless = UUID.randomUUID().toString();
      String hung = UUID.randomUUID().toString();
      Future<HttpResponse<Buffer>> slowAnswer = ask(port, "Count the customers (slow reply)", slow);
      Future<HttpResponse<Buffer>> endlessAnswer = ask(port, "Count a very big cross join", endless);
      awaitEndlessActive(1, 120);
      Future<HttpResponse<Buffer>> hungAnswer = ask(port, "A question the model never replies to", hung);
      awaitModelAsked("never replies", 120);
      awaitModelAsked("slow reply", 120);

      long signalled = System.nanoTime();
      service.terminate();

      // Readiness: 503 at once (the first probe that gets through), and 503 until the process is gone.
      JsonObject down = null;
      while (down == null && System.nanoTime() - signalled < TimeUnit.SECONDS.toNanos(20)) {
        JsonObject r = readiness(port);
        if (Boolean.TRUE.equals(r.getBoolean("stopping"))) down = r;
        else Thread.sleep(50);
      }
      assertThat(down).as("readiness said it is stopping within 20 s of SIGTERM").isNotNull();
      assertThat(down.getInteger("http_status")).isEqualTo(503);
      long toReadiness = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);

      // A new question is refused on the HTTP edge (503, Retry-After) and on /ws (an error frame), nothing run.
      HttpResponse<Buffer> refused = ask(port, "Count the customers (slow reply)", UUID.randomUUID().toString())
          .await(30, TimeUnit.SECONDS);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.getHeader("Retry-After")).isNotBlank();
      assertThat(refused.bodyAsJsonObject().getString("error_type")).isEqualTo("stopping");
      assertThat(askOverWebSocket(port).getString("error_type")).isEqualTo("stopping");

      List<Integer> readinessDuringDrain = new ArrayList<>();
      CompletableFuture<Void> polling = CompletableFuture.runAsync(() -> {
        while (service.process.isAlive()) {
          try {
            readinessDuringDrain.add(readiness(port).getInteger("http_status"));
            Thread.sleep(200);
          } catch (Exception e) {
            return;  // the port closed: the process is going
          }
        }
      });

      JsonObject a = slowAnswer.await(60, TimeUnit.SECONDS).bodyAsJsonObject();
      JsonObject b = endlessAnswer.await(DRAIN_SECONDS + 60, TimeUnit.SECONDS).bodyAsJsonObject();
      JsonObject c = hungAnswer.await(DRAIN_SECONDS + 60, TimeUnit.SECONDS).bodyAsJsonObject();
      long toCancelled = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
      assertThat(a.getBoolean("cancelled")).as("the slow reply finished within the drain: %s", a).isFalse();
      assertThat(a.getString("sql")).contains("customers");
      assertThat(a.getJsonArray("rows")).isNotEmpty();
      for (JsonObject cancelled : List.of(b, c)) {
        assertThat(cancelled.getBoolean("cancelled")).as("cancelled at the drain's deadline: %s", cancelled).isTrue();
      }
      // Not before the drain time ran out: they were given it.
      assertThat(toCancelled).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toMillis(DRAIN_SECONDS) - 1_000);

      assertThat(service.process.waitFor(120, TimeUnit.SECONDS)).as("the process exited").isTrue();
      polling.get(30, TimeUnit.SECONDS);
      assertThat(readinessDuringDrain).as("readiness during the drain").isNotEmpty().containsOnly(503);
      assertThat(service.output()).contains("drained in").contains("1 question(s) finished, 2 cancelled")
          .contains("sql-agent stopped after");

      // Each question has its log row, the cancelled ones marked so.
      Map<String, Boolean> rows = logRows(List.of(slow, endless, hung));
      assertThat(rows).containsEntry(slow, false).containsEntry(endless, true).containsEntry(hung, true);
      // The endless statement was cancelled in PostgreSQL, not left running after its client went away.
      awaitEndlessActive(0, 10);
      System.out.printf("drain: readiness 503 %d ms after SIGTERM; cancelled answers %d ms after it; exit code %d%n",
          toReadiness, toCancelled, service.process.exitValue());
    }
  }

  static Future<HttpResponse<Buffer>> ask(int port, String question, String runId) {
    return client.post(port, "127.0.0.1", "/api/ask").putHeader("Content-Type", "application/json")
        .timeout(TimeUnit.SECONDS.toMillis(DRAIN_SECONDS + 120))
        .sendJsonObject(new JsonObject().put("question", question).put("run_id", runId));
  }

  /** The readiness body with its status as {@code http_status}. */
  static JsonObject readiness(int port) throws Exception {
    HttpResponse<Buffer> r = client.get(port, "127.0.0.1", "/api/health").timeout(30_000).send().await(40, TimeUnit.SECONDS);
    return r.bodyAsJsonObject().put("http_status", r.statusCode());
  }

  /** The first error frame a /ws ask gets. */
  static JsonObject askOverWebSocket(int port) throws Exception {
    CompletableFuture<JsonObject> error = new CompletableFuture<>();
    WsClients.of(vertx).connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/ws"))
        .onSuccess(ws -> {
          ws.textMessageHandler(t -> {
            JsonObject f = new JsonObject(t);
            if ("error".equals(f.getString("type"))) error.complete(f);
          });
          ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "How many customers are there?").encode());
        })
        .onFailure(error::completeExceptionally);
    return error.get(30, TimeUnit.SECONDS);
  }

  static void awaitModelAsked(String marker, long seconds) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (model.requests().stream().noneMatch(r -> r.lastUserMessage().contains(marker))) {
      if (System.nanoTime() > until) throw new AssertionError("the model was never asked about '" + marker + "'");
      Thread.sleep(50);
    }
  }

  /** Waits until exactly {@code n} statements of the agent role are active (only this test's service runs as it). */
  static void awaitEndlessActive(int n, long seconds) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    int seen;
    while ((seen = agentStatementsActive()) != n && System.nanoTime() < until) Thread.sleep(50);
    if (seen != n) {
      assertThat(seen).as("active statements of the agent role; the server's sessions:\n" + sessions()).isEqualTo(n);
    }
  }

  static int agentStatementsActive() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); PreparedStatement ps = c.prepareStatement(
        "SELECT count(*) FROM pg_stat_activity WHERE usename = ? AND state = 'active'")) {
      ps.setString(1, TestDatabase.get().target().role());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Every client session that is not idle, for a failure's message. */
  static String sessions() throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = TestDatabase.get().adminConnection("postgres"); PreparedStatement ps = c.prepareStatement(
        "SELECT usename, datname, application_name, state, wait_event, left(query, 160) FROM pg_stat_activity "
            + "WHERE state IS DISTINCT FROM 'idle' AND backend_type = 'client backend'");
         ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        for (int i = 1; i <= 6; i++) out.append(i > 1 ? " | " : "").append(rs.getString(i));
        out.append('\n');
      }
    }
    return out.toString();
  }

  static Map<String, Boolean> logRows(List<String> runIds) throws Exception {
    Map<String, Boolean> rows = new HashMap<>();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    do {
      rows.clear();
      try (Connection c = TestDatabase.get().state().ownerConnection(); PreparedStatement ps = c.prepareStatement(
          "SELECT run_id, cancelled FROM agent_query_log WHERE run_id = ANY (?)")) {
        ps.setArray(1, c.createArrayOf("text", runIds.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) rows.put(rs.getString(1), rs.getBoolean(2));
        }
      }
      if (rows.size() == runIds.size()) return rows;
      Thread.sleep(200);
    } while (System.nanoTime() < until);
    return rows;
  }
}
