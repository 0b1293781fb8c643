package dev.sqlagent.health;

import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.config.AppConfig;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import dev.sqlagent.drift.SchemaShape;
import dev.sqlagent.state.StateStore;
import dev.sqlagent.drift.SchemaSnapshotVerticle;
import dev.sqlagent.drift.SnapshotRepository;
import dev.sqlagent.querylog.QueryLogVerticle;
import dev.sqlagent.testing.TcpProxy;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * /api/health over real HTTP against the real database (through a TCP proxy the test can cut or stall),
 * a local stand-in for the model's /models, and a stand-in answering retrieval's status address.
 */
class HealthTest {

  static final long CHECK_TIMEOUT_MS = 1_000;
  static final String MODEL_KEY = "sk-health-test-secret";

  static Vertx vertx;
  static TcpProxy proxy;
  static HttpVerticle http;
  static HttpServer model;
  static WebClient client;
  static Path home;
  static Target viaProxy;
  static StateStore stateViaProxy;
  static final AtomicReference<IndexStatus> retrieval = new AtomicReference<>();
  static volatile boolean modelUp = true;
  static volatile String seenAuthorization;

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    home = Files.createTempDirectory("sql-agent-health");
    PgUrl a = db.adminUrl();
    proxy = TcpProxy.start(vertx, a.host(), a.port()).await(10, TimeUnit.SECONDS);
    // Not the demo's key: this test's snapshots are its own.
    viaProxy = new Target(new PgUrl("127.0.0.1", proxy.port(), db.target().role(), db.target().url().password(),
        db.target().database()), false);
    stateViaProxy = new StateStore(new PgUrl("127.0.0.1", proxy.port(), a.user(), a.password(),
        db.state().owner().database()), db.state().logPassword());

    model = vertx.createHttpServer().requestHandler(req -> {
      seenAuthorization = req.getHeader("Authorization");
      if (!modelUp) {
        req.response().setStatusCode(503).end();
      } else if (req.path().equals("/v1/models")) {
        req.response().putHeader("content-type", "application/json")
            .end(new JsonObject().put("data", new JsonArray().add(new JsonObject().put("id", "fake-model"))).encode());
      } else {
        req.response().setStatusCode(404).end();
      }
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);

    retrieval.set(built(15, "2025-01-01T00:00:00Z"));
    vertx.eventBus().<JsonObject>consumer(Addresses.RETRIEVAL_STATUS, m -> m.reply(retrieval.get().toJson()));

    AppConfig config = AppConfig.load(java.util.Map.of("SQLAGENT_HTTP_PORT", "0",
        "SQLAGENT_HEALTH_TIMEOUT_MS", String.valueOf(CHECK_TIMEOUT_MS), "SQLAGENT_LLM_MODEL", "fake-model",
        "SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:" + model.actualPort() + "/v1", "SQLAGENT_LLM_API_KEY", MODEL_KEY));
    StateDatabase stateDb = StateDatabase.open(vertx, stateViaProxy, config.statePoolSize());
    vertx.deployVerticle(new QueryLogVerticle(stateDb, QueryLogVerticle.Limits.from(config))).await(20, TimeUnit.SECONDS);
    vertx.deployVerticle(new SchemaSnapshotVerticle(viaProxy, stateDb, config.schemas())).await(20, TimeUnit.SECONDS);
    vertx.deployVerticle(new HealthVerticle(viaProxy, stateDb, config)).await(20, TimeUnit.SECONDS);
    http = new HttpVerticle(config);
    vertx.deployVerticle(http).await(20, TimeUnit.SECONDS);
    client = WebClient.create(vertx);
    awaitSnapshot("2025-01-01T00:00:00Z");
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void putBack() {
    proxy.restore();
    modelUp = true;
    retrieval.set(built(15, "2025-01-01T00:00:00Z"));
  }

  static HttpResponse<JsonObject> get(String path) throws Exception {
    return client.get(http.actualPort(), "127.0.0.1", path).as(BodyCodec.jsonObject()).send().await(15, TimeUnit.SECONDS);
  }

  static void awaitSnapshot(String builtAt) throws Exception {
    SnapshotRepository store = new SnapshotRepository(StateDatabase.open(vertx, TestDatabase.get().state(), 1));
    long deadline = System.currentTimeMillis() + 20_000;
    while (System.currentTimeMillis() < deadline) {
      var s = store.read(viaProxy.key()).await(10, TimeUnit.SECONDS);
      if (s.isPresent() && builtAt.equals(s.get().indexBuiltAt())) return;
      Thread.sleep(100);
    }
    throw new AssertionError("no snapshot for index built at " + builtAt);
  }

  @Test
  void readyWhenEveryFlagHasBeenCheckedAndHolds() throws Exception {
    HttpResponse<JsonObject> r = get("/api/health");
    JsonObject b = r.body();
    assertThat(r.statusCode()).as(b.encodePrettily()).isEqualTo(200);
    assertThat(b.getBoolean("ok")).isTrue();
    for (String flag : List.of("db_reachable", "read_only_confirmed", "state_store_reachable", "query_log_writable",
        "log_role_cannot_read", "schema_index_built")) {
      assertThat(b.getBoolean(flag)).as(flag).isTrue();
    }
    assertThat(b.getBoolean("schema_drifted")).isFalse();
    assertThat(b.getBoolean("model_reachable")).isTrue();
    assertThat(b.getInteger("tables")).isEqualTo(15);
    assertThat(b.getString("model")).isEqualTo("fake-model");
    assertThat(b.getJsonObject("query_log").getBoolean("running")).isTrue();
    // Tried, not assumed: each check says when it ran; the write was refused as the role, twice.
    for (Object o : b.getJsonArray("checks")) {
      assertThat(((JsonObject) o).getJsonObject("data").getString("tried_at")).as(o.toString()).isNotNull();
    }
    // Proven from the catalogue, each proof shown; the one statement tried was refused by the read-only transaction.
    JsonObject ro = check(b, "read_only_confirmed");
    assertThat(ro.getBoolean("read_only")).isTrue();
    assertThat(ro.getJsonArray("proofs").stream().map(p -> ((JsonObject) p).getString("name")))
        .contains("not_superuser", "no_table_writes", "no_create", "read_only_transaction");
    assertThat(b.getJsonArray("read_only_proofs")).hasSameSizeAs(ro.getJsonArray("proofs"));
    assertThat(ro.getJsonArray("proofs").stream().map(p -> (JsonObject) p)
        .filter(p -> p.getString("name").equals("read_only_transaction")).findFirst().orElseThrow().getString("detail"))
        .contains("25006");
    assertThat(b.getString("database")).isEqualTo("shop");
    assertThat(check(b, "query_log_writable").getBoolean("rolled_back")).isTrue();
    assertThat(check(b, "log_role_cannot_read").getJsonObject("schema_snapshots").getString("sqlstate")).isEqualTo("42501");
    assertThat(seenAuthorization).isEqualTo("Bearer " + MODEL_KEY);
    assertThat(b.encode()).doesNotContain(MODEL_KEY);
    // The probe row was rolled back: nothing is left in the log.
    try (Connection c = TestDatabase.get().state().ownerConnection();
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM agent_query_log WHERE run_id LIKE 'health-probe-%'")) {
      rs.next();
      assertThat(rs.getInt(1)).isZero();
    }
  }

  @Test
  void livenessStaysTrivialAndUpWhileReadinessIsDown() throws Exception {
    proxy.cut();
    assertThat(get("/health").statusCode()).isEqualTo(200);
    assertThat(get("/api/health").statusCode()).isEqualTo(503);
  }

  @Test
  void goesDownWhenTheDatabaseIsUnreachableAndUpWhenItIsBack() throws Exception {
    assertThat(get("/api/health").statusCode()).isEqualTo(200);
    proxy.cut();
    HttpResponse<JsonObject> down = get("/api/health");
    assertThat(down.statusCode()).isEqualTo(503);
    JsonObject b = down.body();
    assertThat(b.getBoolean("ok")).isFalse();
    for (String flag : List.of("db_reachable", "read_only_confirmed", "state_store_reachable", "query_log_writable",
        "log_role_cannot_read")) {
      assertThat(b.getBoolean(flag)).as(flag).isFalse();
      assertThat(check(b, flag).getString("error")).as(flag).isNotBlank();
    }
    assertThat(b.getValue("tables")).isNull();
    proxy.restore();
    assertThat(get("/api/health").statusCode()).isEqualTo(200);
  }

  @Test
  void aHangingDatabaseCannotMakeTheReportHang() throws Exception {
    proxy.stall();
    long t0 = System.nanoTime();
    HttpResponse<JsonObject> r = get("/api/health");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(ms).isLessThan(CHECK_TIMEOUT_MS + 1_500);
    assertThat(r.body().getBoolean("db_reachable")).isFalse();
  }

  @Test
  void anUnbuiltIndexOrAnAbsentRetrievalIsNotReady() throws Exception {
    retrieval.set(new IndexStatus(false, 0, null, null, null, null));
    HttpResponse<JsonObject> r = get("/api/health");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body().getBoolean("schema_index_built")).isFalse();
    assertThat(r.body().getBoolean("db_reachable")).isTrue();
  }

  @Test
  void aModelThatIsDownIsReportedButDoesNotGate() throws Exception {
    modelUp = false;
    HttpResponse<JsonObject> r = get("/api/health");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body().getBoolean("model_reachable")).isFalse();
    assertThat(check(r.body(), "model_reachable").getInteger("status_code")).isEqualTo(503);
  }

  @Test
  void aRebuiltIndexGetsAFreshSnapshotAndDriftIsReportedWithTheDifferences() throws Exception {
    String builtAt = Instant.now().toString();
    retrieval.set(built(15, builtAt));
    vertx.eventBus().publish(Addresses.RETRIEVAL_BUILT, retrieval.get().toJson());
    awaitSnapshot(builtAt);

    // Make the snapshot say bills.total_amt was called bill_total: the live schema then has drifted from it.
    SnapshotRepository store = new SnapshotRepository(StateDatabase.open(vertx, TestDatabase.get().state(), 1));
    SchemaShape original = store.read(viaProxy.key()).await(10, TimeUnit.SECONDS).orElseThrow();
    try {
      store.write(viaProxy.key(), SchemaShape.fromJson(new JsonObject(original.toJson().encode()
          .replace("\"total_amt\"", "\"bill_total\"")))).await(10, TimeUnit.SECONDS);
      HttpResponse<JsonObject> r = get("/api/health");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.body().getBoolean("schema_drifted")).isTrue();
      assertThat(r.body().getJsonArray("schema_differences").getJsonObject(0).getString("text"))
          .isEqualTo("column renamed: bills.bill_total -> total_amt");
    } finally {
      store.write(viaProxy.key(), original).await(10, TimeUnit.SECONDS);
    }
    assertThat(get("/api/health").statusCode()).isEqualTo(200);
  }

  static JsonObject check(JsonObject report, String id) {
    for (Object o : report.getJsonArray("checks")) {
      JsonObject c = (JsonObject) o;
      if (c.getString("id").equals(id)) return c.getJsonObject("data");
    }
    throw new AssertionError("no check " + id);
  }

  /** What retrieval reports once its index is built over {@code tables} tables at {@code builtAt}. */
  private static IndexStatus built(int tables, String builtAt) {
    return new IndexStatus(true, tables, builtAt, null, null, null);
  }
}
