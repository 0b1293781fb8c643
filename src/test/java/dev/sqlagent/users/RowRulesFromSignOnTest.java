package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.OidcServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.StoredValuesReady;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row rules from the sign-on, on a multi-tenant target built for the test: table {@code tickets} with row-level
 * security forced on, its policy reading the session setting {@code app.tenant_id}, and an agent role that neither
 * owns it nor bypasses RLS. {@code SQLAGENT_OIDC_SETTINGS=app.tenant_id=org.tenant} takes the tenant from each token's
 * nested claim (the users file gives a service account its own). Two tenants asking the same thing get only their
 * rows through {@code /api/query}, ask (a scripted model writes the SQL, or a verified query answers), export and MCP;
 * a statement that sets or
 * resets the tenant, however spelt, is refused; a token without the claim (and a users-file user without the
 * setting) is refused with 403 naming what is missing.
 *
 * <p>A second table, {@code announcements}, lets a session with no tenant read every row, as an operator might allow
 * for the service's own reads: its sample rows and stored values are then read across tenants, so they must not reach
 * a tenant's prompt.
 */
class RowRulesFromSignOnTest {

  static final String TICKETS = "SELECT id, tenant_id, subject FROM tickets ORDER BY id";
  static final String SERVICE_TOKEN = "svc-token-" + UUID.randomUUID();
  static final String NOSETTING_TOKEN = "plain-token-" + UUID.randomUUID();
  static final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static final String database = "rowrules_" + suffix;
  static final String agent = "rowrules_agent_" + suffix;
  static final String agentPassword = GrantScript.generatePassword();
  /** Tenant 1's subjects, then tenant 2's. */
  static final List<String> ONE = List.of("Printer jam on floor two", "Badge reader offline");
  static final List<String> TWO = List.of("VPN drops every hour", "Mailbox over quota");
  /** Announcements of tenant 1 and of tenant 2: readable by a session that set no tenant (the service's own reads). */
  static final String NEWS_ONE = "Office closed Friday";
  static final String NEWS_TWO = "New coffee machine";

  static Vertx idpVertx;
  static OidcServer idp;
  static OidcServer.Key key = OidcServer.newKey("k-" + UUID.randomUUID());
  static FakeModelServer model;
  static Databases dbs;
  static RunningService service;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
      s.execute("CREATE ROLE " + agent + " LOGIN NOBYPASSRLS PASSWORD '" + agentPassword + "'");
    }
    try (Connection c = TestDatabase.get().adminConnection(database); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "REVOKE ALL ON DATABASE " + database + " FROM PUBLIC",
          "GRANT CONNECT ON DATABASE " + database + " TO " + agent,
          "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
          "CREATE TABLE tickets (id int PRIMARY KEY, tenant_id int NOT NULL, subject text NOT NULL)",
          "COMMENT ON TABLE tickets IS 'Support tickets, one tenant each'",
          "INSERT INTO tickets VALUES (1, 1, '" + ONE.get(0) + "'), (2, 2, '" + TWO.get(0) + "'), (3, 1, '" + ONE.get(1)
              + "'), (4, 2, '" + TWO.get(1) + "')",
          "ALTER TABLE tickets ENABLE ROW LEVEL SECURITY",
          "ALTER TABLE tickets FORCE ROW LEVEL SECURITY",
          "CREATE POLICY tenant_rows ON tickets USING (tenant_id = current_setting('app.tenant_id')::int)",
          "CREATE TABLE announcements (id int PRIMARY KEY, tenant_id int NOT NULL, title text NOT NULL)",
          "INSERT INTO announcements VALUES (1, 1, '" + NEWS_ONE + "'), (2, 2, '" + NEWS_TWO + "')",
          "ALTER TABLE announcements ENABLE ROW LEVEL SECURITY",
          "ALTER TABLE announcements FORCE ROW LEVEL SECURITY",
          "CREATE POLICY tenant_or_service ON announcements USING (CASE WHEN coalesce(current_setting('app.tenant_id', true), '') = '' "
              + "THEN true ELSE tenant_id = current_setting('app.tenant_id')::int END)",
          "GRANT USAGE ON SCHEMA public TO " + agent,
          "GRANT SELECT ON tickets, announcements TO " + agent,
          "ANALYZE tickets",
          "ANALYZE announcements")) {
        s.execute(sql);
      }
    }
    usersFile = Files.createTempFile("sqlagent-users", ".yaml");
    Files.writeString(usersFile, """
        users:
          - name: svc
            token_sha256: %s
            settings:
              app.tenant_id: 2
          - name: plain
            token_sha256: %s
        """.formatted(Users.sha256Hex(SERVICE_TOKEN), Users.sha256Hex(NOSETTING_TOKEN)));
    idpVertx = Vertx.vertx();
    idp = OidcServer.start(idpVertx).publish(key);
    ANN = token("ann", 1);
    BOB = token("bob", "2");
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql(TICKETS));
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.putAll(idp.env(null));
    env.put("SQLAGENT_OIDC_SETTINGS", "app.tenant_id=org.tenant");
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_DB_URL", agentUrl().withSecret());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    AppConfig config = AppConfig.load(env);
    dbs = Databases.open(config);
    service = RunningService.start(config, dbs.target(), dbs.state());
  }

  static PgUrl agentUrl() {
    return TestDatabase.get().adminUrl().withDatabase(database).withUser(agent, agentPassword);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (dbs != null) dbs.close();
      if (model != null) model.close();
      if (idp != null) idp.close();
      if (idpVertx != null) idpVertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        s.execute("DROP ROLE IF EXISTS " + agent);
      }
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  /** A sign-on token for {@code user} of {@code tenant} (null: a token without the tenant claim). */
  static String token(String user, Object tenant) {
    JsonObject claims = idp.claims(user);
    if (tenant != null) claims.put("org", new JsonObject().put("tenant", tenant).put("name", "Org " + tenant));
    return OidcServer.sign(key, claims);
  }

  static String ANN;
  static String BOB;

  static HttpResponse<Buffer> post(String token, String path, JsonObject body) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json, text/event-stream")
        .sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  static List<String> subjects(JsonArray rows) {
    return rows.stream().map(r -> ((JsonArray) r).getString(2)).toList();
  }

  @Test
  void twoTenantsGetOnlyTheirRowsThroughTheSqlConsole() throws Exception {
    HttpResponse<Buffer> a = post(ANN, "/api/query", new JsonObject().put("sql", TICKETS));
    assertThat(a.statusCode()).as(a.bodyAsString()).isEqualTo(200);
    assertThat(subjects(a.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(ONE);
    // The settings come from the token, never from the body.
    HttpResponse<Buffer> b = post(BOB, "/api/query", new JsonObject().put("sql", TICKETS)
        .put("settings", new JsonObject().put("app.tenant_id", "1")));
    assertThat(b.statusCode()).as(b.bodyAsString()).isEqualTo(200);
    assertThat(subjects(b.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(TWO);
    // An aggregate counts only the tenant's rows too.
    HttpResponse<Buffer> n = post(ANN, "/api/query", new JsonObject().put("sql", "SELECT count(*) FROM tickets"));
    assertThat(n.bodyAsJsonObject().getJsonArray("rows").getJsonArray(0).getValue(0)).isEqualTo(2);
  }

  @Test
  void aUsersFileUserGetsTheRowsOfTheTenantTheFileGivesThem() throws Exception {
    HttpResponse<Buffer> s = post(SERVICE_TOKEN, "/api/query", new JsonObject().put("sql", TICKETS));
    assertThat(s.statusCode()).as(s.bodyAsString()).isEqualTo(200);
    assertThat(subjects(s.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(TWO);
  }

  @Test
  void askGivesEachTenantTheirRowsAndThePromptNoOtherTenantsValues() throws Exception {
    StoredValuesReady.await(service.vertx);
    HttpResponse<Buffer> a = post(ANN, "/api/ask", new JsonObject().put("question", "Which tickets and announcements about the office are there?"));
    assertThat(a.statusCode()).as(a.bodyAsString()).isEqualTo(200);
    assertThat(subjects(a.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(ONE);
    assertThat(a.bodyAsString()).doesNotContain(TWO.get(0)).doesNotContain(TWO.get(1));
    // The stored values and sample rows are read without the tenant's setting: none reaches the model.
    String prompt = model.lastRequest().systemMessage();
    assertThat(prompt).contains("announcements").doesNotContain(NEWS_ONE).doesNotContain(NEWS_TWO);
    for (String subject : TWO) assertThat(prompt).doesNotContain(subject);
    HttpResponse<Buffer> b = post(BOB, "/api/ask", new JsonObject().put("question", "Which tickets about the VPN are open?"));
    assertThat(b.statusCode()).as(b.bodyAsString()).isEqualTo(200);
    assertThat(subjects(b.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(TWO);
    assertThat(b.bodyAsString()).doesNotContain(ONE.get(0)).doesNotContain(ONE.get(1));
  }

  @Test
  void aVerifiedQueryAnswersEachTenantWithTheirOwnRows() throws Exception {
    // Verified queries are checked for nobody in particular, without settings: on announcements, whose policy lets
    // such a session plan (and read), rather than on tickets, whose policy fails without the setting.
    String question = "List every announcement with its title";
    HttpResponse<Buffer> added = post(ANN, "/api/verified", new JsonObject().put("question", question)
        .put("sql", "SELECT id, tenant_id, title FROM announcements ORDER BY id"));
    assertThat(added.statusCode()).as(added.bodyAsString()).isEqualTo(200);
    int calls = model.requestCount();
    for (Map.Entry<String, List<String>> tenant : Map.of(ANN, List.of(NEWS_ONE), BOB, List.of(NEWS_TWO)).entrySet()) {
      HttpResponse<Buffer> r = post(tenant.getKey(), "/api/ask", new JsonObject().put("question", question));
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
      assertThat(r.bodyAsJsonObject().getString("answer_source")).as(r.bodyAsString()).isEqualTo("verified");
      assertThat(subjects(r.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(tenant.getValue());
    }
    assertThat(model.requestCount()).as("model calls").isEqualTo(calls);
  }

  @Test
  void anExportHoldsOnlyTheTenantsRows() throws Exception {
    HttpResponse<Buffer> a = post(ANN, "/api/query/export", new JsonObject().put("sql", TICKETS).put("format", "csv"));
    assertThat(a.statusCode()).as(a.bodyAsString()).isEqualTo(200);
    assertThat(a.bodyAsString()).contains(ONE.get(0)).contains(ONE.get(1)).doesNotContain(TWO.get(0)).doesNotContain(TWO.get(1));
    HttpResponse<Buffer> b = post(BOB, "/api/query/export", new JsonObject().put("sql", TICKETS).put("format", "csv"));
    assertThat(b.bodyAsString()).contains(TWO.get(0)).contains(TWO.get(1)).doesNotContain(ONE.get(0)).doesNotContain(ONE.get(1));
    // An answer's export runs its SQL again, as the asker.
    HttpResponse<Buffer> asked = post(BOB, "/api/ask", new JsonObject().put("question", "Which tickets are there?"));
    String runId = asked.bodyAsJsonObject().getString("run_id");
    HttpResponse<Buffer> again = service.client.get(service.port(), "127.0.0.1", "/api/runs/" + runId + "/export?format=csv")
        .bearerTokenAuthentication(BOB).send().await(60, TimeUnit.SECONDS);
    assertThat(again.statusCode()).as(again.bodyAsString()).isEqualTo(200);
    assertThat(again.bodyAsString()).contains(TWO.get(0)).doesNotContain(ONE.get(0)).doesNotContain(ONE.get(1));
  }

  @Test
  void mcpToolsRunWithTheCallersTenant() throws Exception {
    for (Map.Entry<String, List<String>> tenant : Map.of(ANN, ONE, BOB, TWO).entrySet()) {
      HttpResponse<Buffer> init = post(tenant.getKey(), "/mcp", new JsonObject().put("jsonrpc", "2.0").put("id", 1)
          .put("method", "initialize").put("params", new JsonObject().put("protocolVersion", "2025-06-18")
              .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1"))));
      String session = init.getHeader("Mcp-Session-Id");
      assertThat(session).as(init.bodyAsString()).isNotNull();
      List<String> others = tenant.getValue() == ONE ? TWO : ONE;
      String run = call(tenant.getKey(), session, "run_query", new JsonObject().put("sql", TICKETS));
      assertThat(run).contains(tenant.getValue().get(0)).contains(tenant.getValue().get(1))
          .doesNotContain(others.get(0)).doesNotContain(others.get(1));
      String asked = call(tenant.getKey(), session, "ask", new JsonObject().put("question", "Which tickets?"));
      assertThat(asked).contains(tenant.getValue().get(0)).doesNotContain(others.get(0)).doesNotContain(others.get(1));
      // Sample rows would be read without the tenant's setting: refused, pointing to run_query.
      String sampled = call(tenant.getKey(), session, "sample_rows", new JsonObject().put("name", "tickets"));
      assertThat(sampled).contains("run_query").doesNotContain(others.get(0)).doesNotContain(tenant.getValue().get(0));
    }
  }

  static String call(String token, String session, String tool, JsonObject arguments) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json")
        .putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/call")
            .put("params", new JsonObject().put("name", tool).put("arguments", arguments)))
        .await(60, TimeUnit.SECONDS).bodyAsString();
  }

  @Test
  void aStatementMayNotSetOrResetTheTenantHoweverSpelt() throws Exception {
    List<String> attempts = List.of(
        "SELECT set_config('app.tenant_id', '2', true)",
        "SELECT * FROM tickets WHERE set_config('app.tenant_id', '2', true) IS NOT NULL",
        "SELECT t.* FROM (SELECT set_config('app.tenant_id', '2', true)) s, tickets t",
        "WITH s AS (SELECT pg_catalog.set_config('app.tenant_id', '2', true)) SELECT * FROM tickets, s",
        "SELECT PG_CATALOG.\"set_config\"('APP.TENANT_ID', '2', false)",
        "SELECT U&\"set\\005fconfig\"('app.tenant_id', '2', true)",
        "SET app.tenant_id = 2",
        "SET LOCAL app.tenant_id TO '2'",
        "SET SESSION \"app\".\"tenant_id\" = 2",
        "set App.Tenant_Id = 2",
        "RESET app.tenant_id",
        "RESET ALL",
        "SELECT 1; SET app.tenant_id = 2",
        "/* comment */ SET app.tenant_id = 2");
    for (String sql : attempts) {
      HttpResponse<Buffer> r = post(ANN, "/api/query", new JsonObject().put("sql", sql));
      assertThat(r.statusCode()).as(sql + " → " + r.bodyAsString()).isEqualTo(422);
      assertThat(r.bodyAsJsonObject().getString("error_type")).as(sql).isIn("rejected", "permission_denied");
      assertThat(r.bodyAsString()).as(sql).doesNotContain(TWO.get(0));
    }
    // Nothing of it lasted: the next statement still sees tenant 1's rows only.
    HttpResponse<Buffer> after = post(ANN, "/api/query", new JsonObject().put("sql", TICKETS));
    assertThat(subjects(after.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyElementsOf(ONE);
  }

  @Test
  void aTokenWithoutTheClaimIsRefusedNamingIt() throws Exception {
    String noTenant = token("carol", null);
    int before = model.requestCount();
    for (String path : List.of("/api/query", "/api/ask")) {
      HttpResponse<Buffer> r = post(noTenant, path, new JsonObject().put("sql", TICKETS).put("question", "Which tickets?"));
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(403);
      JsonObject body = r.bodyAsJsonObject();
      assertThat(body.getString("reason")).isEqualTo("missing_claim");
      assertThat(body.getString("claim")).isEqualTo("org.tenant");
      assertThat(body.getString("setting")).isEqualTo("app.tenant_id");
      assertThat(body.getString("message")).contains("\"org.tenant\" claim").contains("app.tenant_id");
      assertThat(r.bodyAsString()).doesNotContain(ONE.get(0)).doesNotContain(TWO.get(0));
    }
    // A claim that is not a single value (a list) is no tenant either.
    String listed = OidcServer.sign(key, idp.claims("dan").put("org", new JsonObject().put("tenant", new JsonArray().add(1).add(2))));
    assertThat(post(listed, "/api/query", new JsonObject().put("sql", TICKETS)).statusCode()).isEqualTo(403);
    // A users-file user without the setting.
    HttpResponse<Buffer> plain = post(NOSETTING_TOKEN, "/api/query", new JsonObject().put("sql", TICKETS));
    assertThat(plain.statusCode()).as(plain.bodyAsString()).isEqualTo(403);
    assertThat(plain.bodyAsJsonObject().getString("reason")).isEqualTo("missing_setting");
    assertThat(plain.bodyAsJsonObject().getString("message")).contains("plain").contains("app.tenant_id");
    assertThat(model.requestCount()).isEqualTo(before);
  }
}
