package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.PgBouncer;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.ArrayList;
import java.util.List;
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
 * The whole service on a user's own database reached through PgBouncer in transaction pooling mode (four server
 * connections, no prepared-statement support in the pooler), with {@code SQLAGENT_DB_POOLER=transaction}: it starts
 * (discovery and the read-only proofs through the pooler), answers many questions at once through {@code /api/ask}
 * and {@code /api/query}, each with its own right rows and none lost, and the database is exactly as it was.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PoolerTest {

  static OwnDatabase own;
  static TreeSet<String> before;
  static PgBouncer bouncer;
  static FakeModelServer model;
  static OwnService service;

  /** Orders per customer in {@link OwnDatabase}: what each /api/query of {@link #ordersOf} must return. */
  static final Map<Integer, Integer> ORDERS = Map.of(1, 2, 2, 2, 3, 1);

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
    before = own.fingerprint();
    bouncer = PgBouncer.start(TestDatabase.get().adminUrl(), own.name, 4, List.of(own.roUrl()));
    model = FakeModelServer.start();
    model.respondWith(PoolerTest::answer);
    service = OwnService.start(own.config(bouncer.through(own.roUrl()), env(model)));
  }

  static Map<String, String> env(FakeModelServer model) {
    Map<String, String> env = new java.util.HashMap<>(model.env());
    env.put("SQLAGENT_DB_POOLER", "transaction");
    env.put("SQLAGENT_ASK_PER_CLIENT", "1000");
    env.put("SQLAGENT_ASK_IN_FLIGHT", "256");
    env.put("SQLAGENT_ASK_QUEUE", "1000");
    return env;
  }

  /** An HTTP client that really sends its requests at once (the default keeps five connections to a server). */
  static WebClient wideClient(io.vertx.core.Vertx vertx) {
    return WebClient.create(vertx, new io.vertx.ext.web.client.WebClientOptions(),
        new io.vertx.core.http.PoolOptions().setHttp1MaxSize(512));
  }

  /** The model: a customer's orders for "orders of customer N", the customer count otherwise. */
  static Reply answer(JsonObject request) {
    String q = FakeModelServer.lastUserMessage(request);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("orders of customer (\\d+)").matcher(q);
    if (m.find()) return Reply.sql(ordersOf(Integer.parseInt(m.group(1))));
    if (q.contains("How many customers")) return Reply.sql(OwnDatabase.COUNT_CUSTOMERS);
    return Reply.refusal("not in this database");
  }

  static String ordersOf(int customer) {
    return "SELECT count(*) AS n FROM sales.orders o WHERE o.customer_no = " + customer;
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
      if (bouncer != null) bouncer.close();
    } finally {
      if (own != null) own.close();
    }
  }

  @Test
  @Order(1)
  void startsThroughThePoolerAndReportsHealthy() throws Exception {
    service.awaitIndex();
    // The target's checks (the fake model has no model list to reach, so the whole status is not asserted).
    JsonObject health = service.get("/api/health").bodyAsJsonObject();
    assertThat(health.getBoolean("db_reachable")).as(health.encode()).isTrue();
    assertThat(health.getBoolean("read_only_confirmed")).as(health.encode()).isTrue();
    assertThat(health.getBoolean("schema_index_built")).as(health.encode()).isTrue();
    HttpResponse<Buffer> schema = service.get("/api/schema");
    assertThat(schema.statusCode()).as(schema.bodyAsString()).isEqualTo(200);
    assertThat(schema.bodyAsJsonObject().getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name")).toList())
        .contains("customers", "sales.orders", "sales.\"LineItems\"");
  }

  @Test
  @Order(2)
  void manyQuestionsAtOnceAreEachAnsweredRightAndNoneIsLost() throws Exception {
    int n = 60;
    WebClient client = wideClient(service.vertx);
    List<Future<String>> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int customer = 1 + i % 3;
      if (i % 2 == 0) {
        all.add(client.post(service.port(), "127.0.0.1", "/api/ask").timeout(120_000)
            .sendJsonObject(new JsonObject().put("question", "Count the orders of customer " + customer + " (#" + i + ")"))
            .map(r -> check(r, "answer", customer)));
      } else {
        all.add(client.post(service.port(), "127.0.0.1", "/api/query").timeout(120_000)
            .sendJsonObject(new JsonObject().put("sql", ordersOf(customer)))
            .map(r -> check(r, "query", customer)));
      }
    }
    Future.join(all).await(180, TimeUnit.SECONDS);
    List<String> failures = all.stream().filter(f -> f.failed() || f.result() != null)
        .map(f -> f.failed() ? String.valueOf(f.cause()) : f.result()).toList();
    assertThat(failures).as("questions not answered right (of %d)", n).isEmpty();
  }

  @Test
  @Order(2)
  void anExportStreamsThroughThePoolerWholeAndInOrder() throws Exception {
    // Many chunks, each a read of the export's portal in the one transaction the pooler keeps on a server connection.
    String sql = "SELECT g AS n, o.customer_no FROM generate_series(1, 30000) g CROSS JOIN sales.orders o "
        + "WHERE o.customer_no = 3 ORDER BY g";
    HttpResponse<Buffer> r = wideClient(service.vertx).post(service.port(), "127.0.0.1", "/api/query/export")
        .timeout(120_000).sendJsonObject(new JsonObject().put("sql", sql).put("format", "csv"))
        .await(120, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    String[] lines = r.bodyAsString().split("\r\n");
    assertThat(lines[0]).isEqualTo("n,customer_no");
    assertThat(lines).hasSize(30_001);
    for (int i = 1; i <= 30_000; i++) assertThat(lines[i]).isEqualTo(i + ",3");
  }

  /** Null when the reply is the customer's right count, else what was wrong. */
  static String check(HttpResponse<Buffer> r, String kind, int customer) {
    if (r.statusCode() != 200) return kind + " " + r.statusCode() + ": " + r.bodyAsString();
    JsonObject body = r.bodyAsJsonObject();
    JsonArray rows = body.getJsonArray("rows");
    JsonArray expected = new JsonArray().add(new JsonArray().add(ORDERS.get(customer)));
    if (rows == null || !rows.equals(expected)) return kind + " for customer " + customer + ": " + body.encode();
    return null;
  }

  @Test
  @Order(3)
  void noServerConnectionKeepsAPreparedStatementOrSetting() throws Exception {
    // Four transactions held open at once through the pooler occupy all four of its server connections: each one's
    // session is looked at where the service's transactions ran.
    List<java.sql.Connection> held = new ArrayList<>();
    try {
      List<String> found = new ArrayList<>();
      java.util.Set<Integer> servers = new java.util.HashSet<>();
      for (int i = 0; i < 4; i++) {
        java.sql.Connection c = bouncer.through(own.roUrl()).connect("sql-agent-test");
        held.add(c);
        c.setAutoCommit(false);
        try (java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT pg_backend_pid(), (SELECT string_agg(name || ': ' || statement, '; ')"
                 + " FROM pg_prepared_statements), (SELECT string_agg(name || '=' || setting, ', ') FROM pg_settings"
                 // What PgBouncer itself sets for each client, from the client's start-up parameters, aside.
                 + " WHERE source = 'session' AND name NOT IN ('application_name', 'DateStyle', 'TimeZone', 'client_encoding',"
                 + " 'IntervalStyle', 'standard_conforming_strings'))")) {
          rs.next();
          servers.add(rs.getInt(1));
          if (rs.getString(2) != null) found.add("prepared: " + rs.getString(2));
          if (rs.getString(3) != null) found.add("set: " + rs.getString(3));
        }
      }
      assertThat(servers).as("server connections seen").hasSize(4);
      assertThat(found).as("what the service left on the pooler's server connections").isEmpty();
    } finally {
      for (java.sql.Connection c : held) c.close();
    }
  }

  @Test
  @Order(4)
  void afterAllOfItTheDatabaseIsByteIdentical() throws Exception {
    service.awaitIndex();
    own.assertUnchanged(before);
  }
}
