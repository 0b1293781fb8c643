package dev.sqlagent.export;

import dev.sqlagent.contract.GateRequest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.execution.ReadOnlyExecutor;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.UsersFiles;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No door lets one user take what others need, and a database whose connections are all in use is said to be busy,
 * never blamed on a query: the MCP export tool counts against the same per-user bound as HTTP exports; an ask whose
 * statement finds every connection in use gives up as {@code busy} without a repair; a user's role's view that cannot
 * get a connection makes the gate busy, not {@code unknown}.
 */
class BusyDatabaseTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();

  static ExportDatabase database;
  static Databases databases;
  static RunningService service;
  static FakeModelServer model;
  static AppConfig config;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    database = new ExportDatabase();
    usersFile = UsersFiles.aliceBobAndAdmin(ALICE, BOB, ROOT);
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT 1 AS one"));
    Map<String, String> env = new HashMap<>(model.env());
    env.putAll(Map.of("SQLAGENT_USERS", usersFile.toString(), "SQLAGENT_EXPORTS_PER_USER", "1",
        "SQLAGENT_EXPORT_STALL_MS", "120000", "SQLAGENT_ANSWER_SUMMARY", "plain",
        "SQLAGENT_LOCK_TIMEOUT_MS", "20000", "SQLAGENT_STATEMENT_TIMEOUT_MS", "20000"));
    config = database.config(env);
    databases = database.open(config);
    service = RunningService.start(config, databases.target(), databases.state());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (databases != null) databases.close();
      if (database != null) database.close();
      if (model != null) model.close();
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static Future<HttpResponse<Buffer>> post(String token, String path, JsonObject body) {
    return service.client.post(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("content-type", "application/json").putHeader("Accept", "application/json").sendJsonObject(body);
  }

  /** The MCP {@code export} tool's reply to {@code token}'s new session, as text. */
  static String mcpExport(String token, String sql) throws Exception {
    JsonObject init = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
        .put("params", new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "test").put("version", "1")));
    HttpResponse<Buffer> opened = post(token, "/mcp", init).await(30, TimeUnit.SECONDS);
    assertThat(opened.statusCode()).as(opened.bodyAsString()).isEqualTo(200);
    String session = opened.getHeader("Mcp-Session-Id");
    var initialized = service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("Accept", "application/json").putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/initialized"))
        .await(30, TimeUnit.SECONDS);
    assertThat(initialized.statusCode()).isEqualTo(202);
    HttpResponse<Buffer> called = service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("Accept", "application/json").putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/call")
            .put("params", new JsonObject().put("name", "export").put("arguments", new JsonObject().put("sql", sql))))
        .await(60, TimeUnit.SECONDS);
    assertThat(called.statusCode()).as(called.bodyAsString()).isEqualTo(200);
    return called.bodyAsString();
  }

  @Test
  void theMcpExportToolCountsAgainstTheSameBoundAsHttpExports() throws Exception {
    try (RawExport unread = RawExport.post(service.port(), ALICE, ExportDatabase.ALL, "csv")) {
      assertThat(unread.status).isEqualTo(200);
      String refused = mcpExport(ALICE, "SELECT 1 AS one");
      assertThat(refused).contains("too_many_requests").contains("SQLAGENT_EXPORTS_PER_USER")
          .doesNotContain("one\\r\\n1");
      // The bound is per user: Bob's export runs meanwhile.
      assertThat(mcpExport(BOB, "SELECT 1 AS one")).doesNotContain("too_many_requests").contains("one\\r\\n1");
    }
    // Once Alice's HTTP export has ended, her slot is free for the tool.
    String after = null;
    for (long until = System.nanoTime() + 30_000_000_000L; System.nanoTime() < until; Thread.sleep(200)) {
      after = mcpExport(ALICE, "SELECT 1 AS one");
      if (!after.contains("too_many_requests")) break;
    }
    assertThat(after).contains("one\\r\\n1");
  }

  @Test
  void anAskWhoseStatementFindsEveryConnectionInUseGivesUpAsBusyWithoutARepair() throws Exception {
    // A first ask reads what retrieval keeps (the sample rows), so the second needs only the gate's connections.
    HttpResponse<Buffer> first = post(BOB, "/api/ask", new JsonObject().put("question", "How many sensors are there?"))
        .await(60, TimeUnit.SECONDS);
    assertThat(first.statusCode()).as(first.bodyAsString()).isEqualTo(200);
    assertThat(first.bodyAsJsonObject().getBoolean("gave_up")).as(first.bodyAsString()).isFalse();

    List<Future<HttpResponse<Buffer>>> waiting = new ArrayList<>();
    HttpResponse<Buffer> asked;
    int calls;
    try (Connection admin = database.adminConnection(); Statement s = admin.createStatement()) {
      admin.setAutoCommit(false);
      s.execute("LOCK TABLE readings IN ACCESS EXCLUSIVE MODE");
      // Every connection the questions have waits for the lock (up to the 20 s lock timeout).
      for (int i = 0; i < Gate.Settings.from(config).poolSize(); i++) waiting.add(post(ROOT, "/api/query", new JsonObject().put("sql", "SELECT count(*) FROM readings")));
      Thread.sleep(1_000);
      calls = model.requestCount();
      asked = post(BOB, "/api/ask", new JsonObject().put("question", "How many sensors are there?"))
          .await(60, TimeUnit.SECONDS);
      calls = model.requestCount() - calls;
      admin.rollback();
    }
    for (Future<HttpResponse<Buffer>> w : waiting) assertThat(w.await(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

    assertThat(asked.statusCode()).as("a give-up is an answer").isEqualTo(200);
    JsonObject answer = asked.bodyAsJsonObject();
    assertThat(answer.getBoolean("gave_up")).as(asked.bodyAsString()).isTrue();
    JsonArray history = answer.getJsonArray("history");
    JsonObject last = history.getJsonObject(history.size() - 1);
    assertThat(last.getString("error_type")).as(asked.bodyAsString()).isEqualTo("busy");
    assertThat(answer.getString("answer")).contains("connections were all in use").doesNotContain("gate did not answer");
    assertThat(answer.getInteger("attempts")).as("never repaired").isEqualTo(1);
    assertThat(calls).as("no repair asked of the model").isEqualTo(1);
  }

  @Test
  void aRoleViewThatFindsNoFreeConnectionMakesTheGateBusy() throws Exception {
    Pool small = PgBuilder.pool().with(new PoolOptions().setMaxSize(1).setConnectionTimeout(1))
        .connectingTo(databases.target().roOptions()).using(service.vertx).build();
    CatalogueHolder catalogue = CatalogueHolder.over(service.vertx, small, config.schemas());
    Gate gate = Gate.start(service.vertx, Gate.Database.of(databases.target()).sharing(catalogue), Gate.Settings.from(config))
        .await(60, TimeUnit.SECONDS);
    try {
      assertThat(gate.submit(GateRequest.run("SELECT 1 AS one")).await(30, TimeUnit.SECONDS).ok()).isTrue();
      SqlConnection held = small.getConnection().await(30, TimeUnit.SECONDS);
      try {
        Future<GateReply> asRole = gate.submit(GateRequest.run("SELECT 1 AS one").asRole(database.reader));
        Throwable failed = asRole.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause() : null))
            .await(30, TimeUnit.SECONDS);
        assertThat(failed).as("the role's view could not be read: " + (asRole.succeeded()
            ? asRole.result().toJson().encode() : "")).isInstanceOf(ReadOnlyExecutor.Busy.class);
      } finally {
        held.close().await(10, TimeUnit.SECONDS);
      }
      GateReply later = gate.submit(GateRequest.run("SELECT 1 AS one").asRole(database.reader)).await(30, TimeUnit.SECONDS);
      assertThat(later.ok()).as("read again once a connection is free: " + later.toJson().encode()).isTrue();
    } finally {
      gate.close().await(30, TimeUnit.SECONDS);
      small.close().await(10, TimeUnit.SECONDS);
    }
  }
}
