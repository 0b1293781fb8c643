package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.StandbyPair;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The whole service on a hot standby of a user's own database, as its read-only role (made on the primary,
 * replicated like everything else): the start-up proofs hold, discovery, health and drift read it, {@code /api/query}
 * and {@code /api/ask} answer, and the standby is exactly as it was. Then real recovery conflicts: the primary takes
 * an ACCESS EXCLUSIVE lock (ALTER TABLE) on the table a long query on the standby reads, and the standby, set to wait
 * for no query, cancels that query to replay it. One conflict: the gate runs the same statement again and answers.
 * Two in a row: an honest give-up as {@code recovery_conflict}, after one model call and one attempt.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandbyTest {

  /** Seconds of work on the standby reading customers (3 rows × ten million), that the gate lets run. */
  static final String LONG_COUNT = "SELECT count(*) AS n FROM customers c CROSS JOIN generate_series(1, 10000000) g";
  static final long LONG_COUNT_ROWS = 30_000_000L;

  static StandbyPair pair;
  static OwnDatabase primary;
  static OwnDatabase standby;
  static TreeSet<String> before;
  static FakeModelServer model;
  static OwnService service;

  @BeforeAll
  static void start() throws Exception {
    pair = StandbyPair.start();
    primary = OwnDatabase.create(pair.primaryAdmin());
    pair.awaitReplayed();
    standby = primary.on(pair.standbyAdmin());
    before = standby.fingerprint();
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req);
      if (q.contains("How many customers")) return Reply.sql(OwnDatabase.COUNT_CUSTOMERS);
      if (q.contains("order 1")) return Reply.sql(OwnDatabase.ORDER_ONE_LINES);
      if (q.contains("every customer ten million times")) return Reply.sql(LONG_COUNT);
      return Reply.refusal("not in this database");
    });
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_MAX_PLAN_COST", "1000000000");
    env.put("SQLAGENT_STATEMENT_TIMEOUT_MS", "120000");
    service = OwnService.start(standby.config(standby.roUrl(), env));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (pair != null) pair.close();
    }
  }

  @Test
  @Order(1)
  void theServiceStartsOnTheStandbyWithItsProofsDiscoveryAndHealth() throws Exception {
    assertThat(scalar(standby.adminUrl(), "SELECT pg_is_in_recovery()")).isEqualTo("t");
    service.awaitIndex();
    JsonObject health = service.get("/api/health").bodyAsJsonObject();
    assertThat(health.getBoolean("db_reachable")).as(health.encode()).isTrue();
    assertThat(health.getBoolean("read_only_confirmed")).as(health.encode()).isTrue();
    assertThat(health.getBoolean("schema_index_built")).as(health.encode()).isTrue();
    // The write tried inside BEGIN READ ONLY: a standby refuses it with the same 25006 as a primary.
    JsonObject probe = health.getJsonArray("read_only_proofs").stream().map(JsonObject.class::cast)
        .filter(p -> p.getString("name").equals("read_only_transaction")).findFirst().orElseThrow();
    assertThat(probe.getBoolean("ok")).as(probe.encode()).isTrue();
    assertThat(probe.getString("detail")).contains("25006");
    JsonArray tables = service.get("/api/schema").bodyAsJsonObject().getJsonArray("tables");
    assertThat(tables.stream().map(t -> ((JsonObject) t).getString("name")).toList()).containsExactlyInAnyOrder("customers",
        "sales.orders", "sales.order_totals", "sales.\"LineItems\"", "\"Reporting\".\"MonthlyRevenue\"");
  }

  @Test
  @Order(2)
  void queriesAndQuestionsAreAnsweredFromTheStandby() throws Exception {
    HttpResponse<Buffer> q = service.post("/api/query", new JsonObject().put("sql", OwnDatabase.COUNT_CUSTOMERS));
    assertThat(q.statusCode()).as(q.bodyAsString()).isEqualTo(200);
    assertThat(q.bodyAsJsonObject().getJsonArray("rows")).containsExactly(new JsonArray().add(3));

    JsonObject count = service.ask("How many customers do we have?");
    assertThat(count.getBoolean("gave_up")).as(count.encode()).isFalse();
    assertThat(count.getJsonArray("rows")).containsExactly(new JsonArray().add(3));
    JsonObject lines = service.ask("What are the lines of order 1?");
    assertThat(lines.getJsonArray("rows").stream().map(Object::toString).toList()).as(lines.encode())
        .containsExactly("[\"Analytical Engine\",1,\"1200.00\"]", "[\"Punched cards\",100,\"0.50\"]");
  }

  @Test
  @Order(3)
  void theStandbyIsExactlyAsItWas() throws Exception {
    service.awaitIndex();
    standby.assertUnchanged(before);
  }

  @Test
  @Order(4)
  void oneRecoveryConflictIsRunAgainAndAnswered() throws Exception {
    long conflictsBefore = lockConflicts();
    Future<HttpResponse<Buffer>> reply = service.client.post(service.port(), "127.0.0.1", "/api/query").timeout(300_000)
        .sendJsonObject(new JsonObject().put("sql", LONG_COUNT));
    String first = awaitRunningOnCustomers(null);
    primary.exec("ALTER TABLE public.customers ADD COLUMN note_one text");

    HttpResponse<Buffer> r = reply.await(300, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getJsonArray("rows")).containsExactly(new JsonArray().add(LONG_COUNT_ROWS));
    assertThat(body.getJsonObject("stages").getJsonObject("execution").getString("rerun_after"))
        .as(body.getJsonObject("stages").encode()).isEqualTo("recovery_conflict");
    assertThat(awaitLockConflicts(conflictsBefore + 1)).as("queries the standby cancelled (first: %s)", first)
        .isEqualTo(conflictsBefore + 1);
  }

  @Test
  @Order(5)
  void aSecondConflictInARowIsAnHonestGiveUpAfterOneModelCall() throws Exception {
    long conflictsBefore = lockConflicts();
    int modelCallsBefore = model.requestCount();
    String question = "Count every customer ten million times";
    Future<HttpResponse<Buffer>> reply = service.client.post(service.port(), "127.0.0.1", "/api/ask").timeout(300_000)
        .sendJsonObject(new JsonObject().put("question", question));
    String first = awaitRunningOnCustomers(null);
    primary.exec("ALTER TABLE public.customers ADD COLUMN note_two text");
    String second = awaitRunningOnCustomers(first);  // the gate's rerun, in a transaction of its own
    primary.exec("ALTER TABLE public.customers ADD COLUMN note_three text");

    HttpResponse<Buffer> r = reply.await(300, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject answer = r.bodyAsJsonObject();
    assertThat(answer.getBoolean("gave_up")).as(answer.encode()).isTrue();
    assertThat(answer.getInteger("attempts")).as(answer.encode()).isEqualTo(1);
    assertThat(answer.getString("answer")).as(answer.encode())
        .contains("recovery_conflict", "The standby cancelled the query twice", "conflict with recovery");
    JsonObject last = answer.getJsonArray("history").getJsonObject(answer.getJsonArray("history").size() - 1);
    assertThat(last.getString("error_type")).isEqualTo("recovery_conflict");
    assertThat(last.getString("hint")).contains("hot_standby_feedback", "max_standby_streaming_delay");
    assertThat(model.requestCount() - modelCallsBefore).as("model calls: the rerun is the gate's, not a new attempt")
        .isEqualTo(1);
    assertThat(awaitLockConflicts(conflictsBefore + 2)).as("cancelled on the standby: %s then %s", first, second)
        .isEqualTo(conflictsBefore + 2);
  }

  /**
   * Waits until the agent's role reads customers on the standby in a transaction other than {@code other} (its
   * virtual transaction id) and the statement has run a moment, and returns that transaction's id.
   */
  static String awaitRunningOnCustomers(String other) throws Exception {
    String sql = "SELECT l.virtualtransaction FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        + " WHERE l.relation = 'public.customers'::regclass AND l.granted AND a.usename = '" + standby.ro + "'"
        + " AND a.state = 'active' AND now() - a.query_start > interval '300 milliseconds'"
        + (other == null ? "" : " AND l.virtualtransaction <> '" + other + "'");
    for (int i = 0; i < 600; i++) {
      String vxid = scalar(standby.adminUrl(), sql);
      if (vxid != null) return vxid;
      Thread.sleep(20);
    }
    throw new AssertionError("the long query did not start on the standby within 12 s");
  }

  /** Statements the standby cancelled for a lock its replay needed, in this database. */
  static long lockConflicts() throws Exception {
    return Long.parseLong(scalar(standby.adminUrl(),
        "SELECT confl_lock FROM pg_stat_database_conflicts WHERE datname = current_database()"));
  }

  /** The count once it reached {@code expected} (statistics come a moment after the cancel), or as it is after 10 s. */
  static long awaitLockConflicts(long expected) throws Exception {
    long n = lockConflicts();
    for (int i = 0; i < 100 && n < expected; i++) {
      Thread.sleep(100);
      n = lockConflicts();
    }
    Thread.sleep(300);  // and no more than that
    return lockConflicts();
  }

  static String scalar(PgUrl url, String sql) throws Exception {
    try (Connection c = url.connect("sql-agent-test"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
