package dev.sqlagent.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.LogCapture;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.StoredValuesReady;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.WsClients;
import dev.sqlagent.users.Users;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sensitive columns on a database built for the test: the notes file marks customers.email (hash) and salary (redact),
 * and every phone by a pattern (last4). Through ask, /api/query, MCP and /ws their values reach no prompt, no event, no
 * log line and no row of the state store, and results show them masked, computed columns that read them too; only a
 * user granted see_sensitive sees them, and the model still gets them masked.
 */
class SensitiveColumnsTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String HR = "hr-token-" + UUID.randomUUID();
  static final String SQL = "SELECT c.name, c.tier, c.email, c.phone, c.salary FROM customers c ORDER BY c.id";
  static final String WORDING = "You state the answer";

  static PolicyDatabase db;
  static FakeModelServer model;
  static Databases dbs;
  static RunningService service;
  static LogCapture logs;
  static Path usersFile;
  static AppConfig config;
  static final long started = System.currentTimeMillis() - 5_000;

  @BeforeAll
  static void start() throws Exception {
    db = new PolicyDatabase();
    usersFile = Files.createTempFile("sqlagent-policy-users", ".yaml");
    Files.writeString(usersFile, """
        users:
          - name: alice
            token_sha256: %s
          - name: hr
            token_sha256: %s
            see_sensitive: true
        """.formatted(Users.sha256Hex(ALICE), Users.sha256Hex(HR)));
    model = FakeModelServer.start();
    model.respondWith(req -> FakeModelServer.allText(req).contains(WORDING)
        ? Reply.content("There are eighty customers.") : Reply.sql(SQL));
    logs = LogCapture.root();
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
    env.put("SQLAGENT_NOTES", db.notes.toString());
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "model");
    config = AppConfig.load(env);
    dbs = Databases.open(config);
    service = RunningService.start(config, dbs.target(), dbs.state());
    StoredValuesReady.await(service.vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      // Nothing any test did left a sensitive value in a log line or in the state store.
      if (logs != null) {
        assertThat(PolicyDatabase.leaked(String.join("\n", logs.messages()))).as("sensitive values in log lines").isEmpty();
        logs.close();
      }
      if (dbs != null) {
        try (Connection c = dbs.state().ownerConnection(); Statement s = c.createStatement()) {
          // This class's rows: its users' log rows, its question's turns, its database's stored values.
          Map<String, String> mine = Map.of(
              "agent_query_log", "user_name IN ('alice', 'hr') AND asked_at >= to_timestamp(" + started / 1000 + ")",
              "conversation_turns", "question = 'Who are our customers?' AND asked_at >= to_timestamp(" + started / 1000 + ")",
              "stored_values", "target LIKE '%" + db.database + "%'");
          for (Map.Entry<String, String> table : mine.entrySet()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE t::text LIKE '%secretmail%'"
                + " OR t::text LIKE '%7700 900%' OR t::text LIKE '%98765%') FROM " + table.getKey() + " t WHERE "
                + table.getValue())) {
              rs.next();
              assertThat(rs.getLong(1)).as("rows of " + table.getKey() + " this test made").isPositive();
              assertThat(rs.getLong(2)).as("rows of " + table.getKey() + " holding a sensitive value").isZero();
            }
          }
        }
      }
    } finally {
      if (service != null) service.close();
      if (dbs != null) dbs.close();
      if (model != null) model.close();
      if (db != null) db.close();
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static HttpResponse<Buffer> post(String token, String path, JsonObject body) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(String token, String path) throws Exception {
    return service.client.get(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token).send()
        .await(60, TimeUnit.SECONDS);
  }

  static JsonObject column(JsonObject result, String name) {
    return result.getJsonArray("columns").stream().map(c -> (JsonObject) c).filter(c -> name.equals(c.getString("name")))
        .findFirst().orElseThrow();
  }

  static JsonArray firstRow(JsonObject result) {
    return result.getJsonArray("rows").getJsonArray(0);
  }

  @Test
  void askShowsThemMaskedAndSendsThemNowhere() throws Exception {
    int before = model.requestCount();
    HttpResponse<Buffer> r = post(ALICE, "/api/ask", new JsonObject().put("question", "Who are our customers?"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject answer = r.bodyAsJsonObject();
    assertThat(PolicyDatabase.leaked(r.bodyAsString())).as("sensitive values in the answer").isEmpty();
    JsonArray row = firstRow(answer);
    assertThat(row.getString(0)).isEqualTo(PolicyDatabase.NAMES.get(0));
    assertThat(row.getString(2)).matches("#[0-9a-f]{12}");
    assertThat(row.getString(3)).isEqualTo("****0123");
    assertThat(row.getValue(4)).isEqualTo("[redacted]");
    assertThat(column(answer, "email").getString("mask")).isEqualTo("hash");
    assertThat(column(answer, "email").getBoolean("masked")).isTrue();
    // The model worded the answer from masked rows; no prompt of this run held a value.
    List<FakeModelServer.Recorded> asked = model.requests().subList(before, model.requestCount());
    assertThat(asked).anyMatch(q -> q.body().encode().contains(WORDING));
    assertThat(PolicyDatabase.leaked(String.join("\n", asked.stream().map(q -> q.body().encode()).toList()))).isEmpty();
    HttpResponse<Buffer> events = get(ALICE, "/api/runs/" + answer.getString("run_id") + "/events");
    assertThat(events.statusCode()).as(events.bodyAsString()).isEqualTo(200);
    assertThat(events.bodyAsString()).contains("[redacted]");
    assertThat(PolicyDatabase.leaked(events.bodyAsString())).as("sensitive values in the run's events").isEmpty();
  }

  @Test
  void aUserGrantedSeeSensitiveSeesThemButTheModelDoesNot() throws Exception {
    int before = model.requestCount();
    HttpResponse<Buffer> r = post(HR, "/api/ask", new JsonObject().put("question", "Who are our customers?"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonArray row = firstRow(r.bodyAsJsonObject());
    assertThat(row.getString(2)).isEqualTo(PolicyDatabase.EMAILS.get(0));
    assertThat(row.getValue(4)).isEqualTo(PolicyDatabase.SALARIES.get(0));
    assertThat(column(r.bodyAsJsonObject(), "email").getBoolean("masked")).isFalse();
    List<FakeModelServer.Recorded> asked = model.requests().subList(before, model.requestCount());
    assertThat(asked).anyMatch(q -> q.body().encode().contains(WORDING));
    assertThat(PolicyDatabase.leaked(String.join("\n", asked.stream().map(q -> q.body().encode()).toList())))
        .as("sensitive values sent to the model for a granted user").isEmpty();
    HttpResponse<Buffer> q = post(HR, "/api/query", new JsonObject().put("sql", "SELECT email, salary FROM customers ORDER BY id"));
    assertThat(firstRow(q.bodyAsJsonObject()).getString(0)).isEqualTo(PolicyDatabase.EMAILS.get(0));
  }

  @Test
  void anExportMasksThemAsTheResultDoes() throws Exception {
    JsonObject body = new JsonObject().put("sql", "SELECT name, email, salary FROM customers ORDER BY id").put("format", "csv");
    HttpResponse<Buffer> masked = post(ALICE, "/api/query/export", body);
    assertThat(masked.statusCode()).as(masked.bodyAsString()).isEqualTo(200);
    String csv = masked.bodyAsString();
    assertThat(csv.lines().count()).as(csv).isGreaterThan(1);
    assertThat(PolicyDatabase.leaked(csv)).as("sensitive values in an export for a user not granted them").isEmpty();
    HttpResponse<Buffer> shown = post(HR, "/api/query/export", body);
    assertThat(shown.statusCode()).as(shown.bodyAsString()).isEqualTo(200);
    assertThat(shown.bodyAsString()).contains(PolicyDatabase.EMAILS.get(0));
  }

  @Test
  void theQueryConsoleMasksColumnsTakenAsTheyAreAndComputedFromThem() throws Exception {
    JsonObject star = post(ALICE, "/api/query", new JsonObject().put("sql", "SELECT * FROM customers ORDER BY id")).bodyAsJsonObject();
    assertThat(PolicyDatabase.leaked(star.encode())).as(star.encode()).isEmpty();
    assertThat(firstRow(star).getString(1)).isEqualTo(PolicyDatabase.NAMES.get(0));
    for (String sql : List.of(
        "SELECT upper(email) FROM customers ORDER BY id",
        "SELECT c::text FROM customers c ORDER BY id",
        "SELECT row_to_json(x) FROM (SELECT * FROM customers) x ORDER BY x.id",
        "SELECT e FROM (SELECT email AS e FROM customers) s",
        "SELECT salary + 1 FROM customers",
        "SELECT string_agg(phone, ',') FROM customers",
        "WITH w AS (SELECT email FROM customers) SELECT email FROM w")) {
      HttpResponse<Buffer> r = post(ALICE, "/api/query", new JsonObject().put("sql", sql));
      assertThat(r.statusCode()).as(sql + ": " + r.bodyAsString()).isEqualTo(200);
      assertThat(PolicyDatabase.leaked(r.bodyAsString())).as(sql + ": " + r.bodyAsString()).isEmpty();
      assertThat(column(r.bodyAsJsonObject(), r.bodyAsJsonObject().getJsonArray("columns").getJsonObject(0).getString("name"))
          .getString("mask")).as(sql).isNotNull();
    }
    // A data error quotes the value it failed on: not a sensitive one.
    HttpResponse<Buffer> cast = post(ALICE, "/api/query", new JsonObject().put("sql", "SELECT email::int FROM customers"));
    assertThat(cast.statusCode()).as(cast.bodyAsString()).isEqualTo(422);
    assertThat(cast.bodyAsString()).contains("[redacted]");
    assertThat(PolicyDatabase.leaked(cast.bodyAsString())).as(cast.bodyAsString()).isEmpty();
    // What reads no sensitive value is shown as it is: a count, the other columns, a filter's outcome.
    JsonObject count = post(ALICE, "/api/query", new JsonObject().put("sql", "SELECT count(*) FROM customers")).bodyAsJsonObject();
    assertThat(firstRow(count).getValue(0)).isEqualTo(80);
    JsonObject names = post(ALICE, "/api/query", new JsonObject().put("sql",
        "SELECT name FROM customers WHERE email LIKE 'zelda%'")).bodyAsJsonObject();
    assertThat(firstRow(names).getString(0)).isEqualTo(PolicyDatabase.NAMES.get(0));
  }

  @Test
  void mcpToolsNeitherSampleNorShowThem() throws Exception {
    HttpResponse<Buffer> init = service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(ALICE)
        .putHeader("Accept", "application/json").sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 1)
            .put("method", "initialize").put("params", new JsonObject().put("protocolVersion", "2025-06-18")
                .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1"))))
        .await(30, TimeUnit.SECONDS);
    String session = init.getHeader("Mcp-Session-Id");
    assertThat(session).as(init.bodyAsString()).isNotNull();
    int id = 2;
    for (JsonObject call : List.of(
        new JsonObject().put("name", "sample_rows").put("arguments", new JsonObject().put("name", "customers").put("n", 5)),
        new JsonObject().put("name", "run_query").put("arguments", new JsonObject().put("sql", SQL)),
        new JsonObject().put("name", "ask").put("arguments", new JsonObject().put("question", "Who are our customers?")))) {
      HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(ALICE)
          .putHeader("Accept", "application/json").putHeader("Mcp-Session-Id", session)
          .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", id++).put("method", "tools/call").put("params", call))
          .await(60, TimeUnit.SECONDS);
      assertThat(r.bodyAsString()).as(call.encode()).contains(PolicyDatabase.NAMES.get(0));
      assertThat(PolicyDatabase.leaked(r.bodyAsString())).as(call.getString("name") + ": " + r.bodyAsString()).isEmpty();
    }
  }

  @Test
  void statusListsTheMarkedColumnsAndSuggestsTheOnesThatLookSensitive() throws Exception {
    String marked = dev.sqlagent.cli.Status.table(dev.sqlagent.cli.Status.policy(dbs.target(), config));
    assertThat(marked).containsPattern("data policy\\s+ok\\s+SQLAGENT_MODEL_SEES=results")
        .containsPattern("sensitive columns\\s+ok\\s+3: customers.email \\(hash\\), customers.phone \\(last4\\), "
            + "customers.salary \\(redact\\)")
        .doesNotContain("looks sensitive: customers.email").doesNotContain("FAIL");
    // Without the notes file: the same columns are suggested, by name and by their values, and nothing is marked.
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
    String bare = dev.sqlagent.cli.Status.table(dev.sqlagent.cli.Status.policy(dbs.target(), AppConfig.load(env)));
    assertThat(bare).containsPattern("sensitive columns\\s+ok\\s+none marked")
        .containsPattern("looks sensitive: customers.email\\s+ok\\s+its name says email; 20 of 20 values read look like e-mail")
        .containsPattern("looks sensitive: customers.phone\\s+ok\\s+its name says phone; 20 of 20 values read look like phone")
        .contains("looks sensitive: customers.salary").doesNotContain("looks sensitive: customers.tier")
        .doesNotContain("looks sensitive: customers.name");
    assertThat(PolicyDatabase.leaked(bare)).isEmpty();
  }

  @Test
  void theLiveSocketCarriesNoneOfThem() throws Exception {
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = WsClients.of(service.vertx).connect(new WebSocketConnectOptions().setPort(service.port())
        .setHost("127.0.0.1").setURI("/ws?access_token=" + ALICE)).await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "Who are our customers?").encode());
    long until = System.currentTimeMillis() + 60_000;
    while (frames.stream().noneMatch(f -> "answer".equals(f.getString("type"))) && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
    assertThat(frames).anyMatch(f -> "answer".equals(f.getString("type")));
    String all = String.join("\n", frames.stream().map(JsonObject::encode).toList());
    assertThat(all).contains(PolicyDatabase.NAMES.get(0));
    assertThat(PolicyDatabase.leaked(all)).as("sensitive values in /ws frames").isEmpty();
    ws.close();
  }
}
