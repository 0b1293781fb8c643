package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.LogCapture;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.StoredValuesReady;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.WsClients;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Users and the database's own rights, on a target built for the test (never the shared demo): table
 * {@code deals} with row-level security, one policy per region role, and an agent role that is a member of
 * both. Alice (role east) and Bob (role west) each get only their region's rows through ask, query and MCP;
 * neither can watch, replay or cancel the other's run (403, or the socket closed with 4403), and nothing Alice
 * receives holds a row of Bob's; an admin sees and stops every run; tokens appear in no log line and no event.
 */
class UsersAndRowSecurityTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();
  static final String DEALS = "SELECT customer, region, amount FROM deals ORDER BY id";

  static final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static final String database = "rls_" + suffix;
  static final String agent = "rls_agent_" + suffix;
  static final String east = "rls_east_" + suffix;
  static final String west = "rls_west_" + suffix;
  static final String agentPassword = GrantScript.generatePassword();

  static FakeModelServer model;
  static Databases dbs;
  static Vertx vertx;
  static MainVerticle main;
  static RunningService service;
  static WebClient web;
  static Path usersFile;
  static LogCapture logs;

  @BeforeAll
  static void start() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
      s.execute("CREATE ROLE " + agent + " LOGIN PASSWORD '" + agentPassword + "'");
      s.execute("CREATE ROLE " + east + " NOLOGIN");
      s.execute("CREATE ROLE " + west + " NOLOGIN");
      s.execute("GRANT " + east + ", " + west + " TO " + agent);
    }
    try (Connection c = TestDatabase.get().adminConnection(database); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "REVOKE ALL ON DATABASE " + database + " FROM PUBLIC",
          "GRANT CONNECT ON DATABASE " + database + " TO " + agent,
          "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
          "CREATE TABLE deals (id int PRIMARY KEY, customer text NOT NULL, region text NOT NULL, amount numeric(10,2) NOT NULL)",
          "COMMENT ON TABLE deals IS 'Deals, one region each'",
          "INSERT INTO deals VALUES (1, 'Eastwind Ltd', 'east', 100), (2, 'Westfield Inc', 'west', 200),"
              + " (3, 'Orient Co', 'east', 300), (4, 'Sunset LLC', 'west', 400)",
          "ALTER TABLE deals ENABLE ROW LEVEL SECURITY",
          "CREATE POLICY east_deals ON deals FOR SELECT TO " + east + " USING (region = 'east')",
          "CREATE POLICY west_deals ON deals FOR SELECT TO " + west + " USING (region = 'west')",
          "GRANT USAGE ON SCHEMA public TO " + agent + ", " + east + ", " + west,
          "GRANT SELECT ON deals TO " + agent + ", " + east + ", " + west,
          "CREATE TABLE east_targets (quarter text PRIMARY KEY, target numeric(10,2) NOT NULL)",
          "INSERT INTO east_targets VALUES ('Q1', 1000), ('Q2', 1200)",
          "GRANT SELECT ON east_targets TO " + east,
          // Many names (more than 30): stored values go into the index and are matched by the question's words.
          "CREATE TABLE contacts (id int PRIMARY KEY, name text NOT NULL, region text NOT NULL)",
          "INSERT INTO contacts SELECT i, CASE WHEN i % 2 = 0 THEN 'East Contact ' ELSE 'West Contact ' END || i,"
              + " CASE WHEN i % 2 = 0 THEN 'east' ELSE 'west' END FROM generate_series(1, 80) i",
          "INSERT INTO contacts VALUES (81, 'Ellen Eastbrook', 'east'), (82, 'Wendy Westbrook', 'west')",
          "ALTER TABLE contacts ENABLE ROW LEVEL SECURITY",
          "CREATE POLICY east_contacts ON contacts FOR SELECT TO " + east + " USING (region = 'east')",
          "CREATE POLICY west_contacts ON contacts FOR SELECT TO " + west + " USING (region = 'west')",
          "GRANT SELECT ON contacts TO " + agent + ", " + east + ", " + west,
          "ANALYZE deals",
          "ANALYZE contacts")) {
        s.execute(sql);
      }
    }
    usersFile = Files.createTempFile("sqlagent-users", ".yaml");
    Files.writeString(usersFile, """
        users:
          - name: alice
            display_name: Alice East
            token_sha256: %s
            db_role: %s
          - name: bob
            display_name: Bob West
            token_sha256: %s
            db_role: %s
          - name: root
            display_name: The Admin
            token_sha256: %s
            admin: true
        """.formatted(Users.sha256Hex(ALICE), east, Users.sha256Hex(BOB), west, Users.sha256Hex(ROOT)));
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req);
      if (q.contains("slowly")) return Reply.sql(DEALS).delayed(60_000);
      return Reply.sql(DEALS);
    });
    logs = LogCapture.root();
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_DB_URL", agentUrl().withSecret());
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    AppConfig config = AppConfig.load(env);
    dbs = Databases.open(config);
    service = RunningService.start(config, dbs.target(), dbs.state());
    vertx = service.vertx;
    main = service.main;
    web = service.client;
  }

  static PgUrl agentUrl() {
    return TestDatabase.get().adminUrl().withDatabase(database).withUser(agent, agentPassword);
  }

  @AfterAll
  static void stop() throws Exception {
    if (logs != null) logs.close();
    try {
      if (service != null) service.close();
      if (dbs != null) dbs.close();
      if (model != null) model.close();
    } finally {
      try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        for (String r : List.of(agent, east, west)) s.execute("DROP ROLE IF EXISTS " + r);
      }
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static HttpResponse<Buffer> post(String token, String path, JsonObject body) throws Exception {
    return web.post(main.httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(String token, String path) throws Exception {
    return web.get(main.httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token).send().await(60, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> delete(String token, String path) throws Exception {
    return web.delete(main.httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token).send().await(60, TimeUnit.SECONDS);
  }

  static List<String> regions(JsonArray rows) {
    return rows.stream().map(r -> ((JsonArray) r).getString(1)).distinct().toList();
  }

  @Test
  void eachUserGetsOnlyTheirRowsThroughAskAndQuery() throws Exception {
    HttpResponse<Buffer> a = post(ALICE, "/api/ask", new JsonObject().put("question", "Which deals are there?"));
    assertThat(a.statusCode()).as(a.bodyAsString()).isEqualTo(200);
    assertThat(regions(a.bodyAsJsonObject().getJsonArray("rows"))).containsExactly("east");
    assertThat(a.bodyAsString()).doesNotContain("Westfield").doesNotContain("Sunset");
    assertThat(a.bodyAsJsonObject().getString("user")).isEqualTo("alice");
    // The prompt's sample rows are read as the user's role too.
    assertThat(samples(model.lastRequest().systemMessage())).contains("Eastwind").doesNotContain("Westfield").doesNotContain("Sunset");
    HttpResponse<Buffer> b = post(BOB, "/api/ask", new JsonObject().put("question", "Which deals are there?"));
    assertThat(regions(b.bodyAsJsonObject().getJsonArray("rows"))).containsExactly("west");
    assertThat(b.bodyAsString()).doesNotContain("Eastwind").doesNotContain("Orient");
    assertThat(samples(model.lastRequest().systemMessage())).contains("Westfield").doesNotContain("Eastwind").doesNotContain("Orient");
    // The SQL console: the role comes from the token, whatever the body says.
    HttpResponse<Buffer> q = post(ALICE, "/api/query", new JsonObject().put("sql", DEALS).put("db_role", west));
    assertThat(q.statusCode()).as(q.bodyAsString()).isEqualTo(200);
    assertThat(regions(q.bodyAsJsonObject().getJsonArray("rows"))).containsExactly("east");
    // The admin has no role: the agent role's own rights, which hold both regions' (it is a member of both).
    HttpResponse<Buffer> r = post(ROOT, "/api/query", new JsonObject().put("sql", DEALS));
    assertThat(regions(r.bodyAsJsonObject().getJsonArray("rows"))).containsExactlyInAnyOrder("east", "west");
  }

  @Test
  void discoveryShowsEachUserOnlyWhatTheirRoleMayRead() throws Exception {
    assertThat(tableNames(get(ALICE, "/api/schema").bodyAsJsonObject())).contains("deals", "east_targets");
    assertThat(tableNames(get(BOB, "/api/schema").bodyAsJsonObject())).contains("deals").doesNotContain("east_targets");
    HttpResponse<Buffer> q = post(BOB, "/api/query", new JsonObject().put("sql", "SELECT quarter, target FROM east_targets"));
    assertThat(q.statusCode()).isEqualTo(422);
    assertThat(q.bodyAsJsonObject().getString("error_type")).isEqualTo("unknown_table");
    assertThat(q.bodyAsString()).doesNotContain("Q1");
    HttpResponse<Buffer> a = post(ALICE, "/api/query", new JsonObject().put("sql", "SELECT quarter, target FROM east_targets"));
    assertThat(a.statusCode()).as(a.bodyAsString()).isEqualTo(200);
  }

  @Test
  void storedValuesInThePromptAndEventsAreOnlyThoseTheRoleCanSee() throws Exception {
    StoredValuesReady.await(vertx);
    String question = "What do we know about Ellen Eastbrook and Wendy Westbrook, and the Westfield Inc deal?";
    // The admin (the agent role's own rights) is shown every value: the values are there to be shown.
    HttpResponse<Buffer> r = post(ROOT, "/api/ask", new JsonObject().put("question", question));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    String rootPrompt = model.lastRequest().systemMessage();
    assertThat(rootPrompt).contains("'Ellen Eastbrook'").contains("'Wendy Westbrook'").contains("'Westfield Inc'")
        .contains("'west'");
    // Alice (east) is shown only the values she can find herself: in the schema text's lists, in the question's
    // matches and in the select_schema event she watches.
    HttpResponse<Buffer> a = post(ALICE, "/api/ask", new JsonObject().put("question", question));
    assertThat(a.statusCode()).as(a.bodyAsString()).isEqualTo(200);
    String alicePrompt = model.lastRequest().systemMessage();
    // (Quoted: the question itself names them, bare.)
    assertThat(alicePrompt).contains("'Ellen Eastbrook'").contains("'Eastwind Ltd'").contains("'east'")
        .doesNotContain("'Wendy Westbrook'").doesNotContain("'Westfield Inc'").doesNotContain("'Sunset LLC'")
        .doesNotContain("'west'");
    String runId = a.bodyAsJsonObject().getString("run_id");
    HttpResponse<Buffer> events = get(ALICE, "/api/runs/" + runId + "/events");
    assertThat(events.statusCode()).as(events.bodyAsString()).isEqualTo(200);
    assertThat(events.bodyAsString()).contains("'Ellen Eastbrook'").doesNotContain("'Wendy Westbrook'")
        .doesNotContain("\"Wendy Westbrook\"").doesNotContain("'Westfield Inc'");
    // Bob (west), the other way round, asked after Alice: what was found is kept per role, not shared.
    HttpResponse<Buffer> b = post(BOB, "/api/ask", new JsonObject().put("question", question));
    assertThat(b.statusCode()).as(b.bodyAsString()).isEqualTo(200);
    assertThat(model.lastRequest().systemMessage()).contains("'Wendy Westbrook'").contains("'Westfield Inc'")
        .doesNotContain("'Ellen Eastbrook'").doesNotContain("'Eastwind Ltd'").doesNotContain("'east'");
  }

  /** The sample rows block of a prompt. */
  static String samples(String prompt) {
    return prompt.substring(prompt.lastIndexOf("<<<SAMPLES"), prompt.lastIndexOf("SAMPLES>>>"));
  }

  static List<String> tableNames(JsonObject schema) {
    return schema.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name")).toList();
  }

  @Test
  void mcpOverHttpAppliesTheCallersRole() throws Exception {
    HttpResponse<Buffer> init = web.post(main.httpPort(), "127.0.0.1", "/mcp").bearerTokenAuthentication(BOB)
        .putHeader("Accept", "application/json").sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 1)
            .put("method", "initialize").put("params", new JsonObject().put("protocolVersion", "2025-06-18")
                .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1"))))
        .await(30, TimeUnit.SECONDS);
    String session = init.getHeader("Mcp-Session-Id");
    assertThat(session).as(init.bodyAsString()).isNotNull();
    HttpResponse<Buffer> call = web.post(main.httpPort(), "127.0.0.1", "/mcp").bearerTokenAuthentication(BOB)
        .putHeader("Accept", "application/json").putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/call")
            .put("params", new JsonObject().put("name", "run_query").put("arguments", new JsonObject().put("sql", DEALS))))
        .await(60, TimeUnit.SECONDS);
    String text = call.bodyAsString();
    assertThat(text).contains("Westfield").contains("Sunset").doesNotContain("Eastwind").doesNotContain("Orient");
    HttpResponse<Buffer> ask = web.post(main.httpPort(), "127.0.0.1", "/mcp").bearerTokenAuthentication(BOB)
        .putHeader("Accept", "application/json").putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 3).put("method", "tools/call")
            .put("params", new JsonObject().put("name", "ask").put("arguments", new JsonObject().put("question", "Which deals?"))))
        .await(60, TimeUnit.SECONDS);
    assertThat(ask.bodyAsString()).contains("Westfield").doesNotContain("Eastwind").doesNotContain("Orient");
  }

  @Test
  void oneUserCannotWatchReplayOrCancelAnothersRun() throws Exception {
    WebSocketClient wsc = WsClients.of(vertx);
    List<JsonObject> bobFrames = new CopyOnWriteArrayList<>();
    WebSocket bobWs = wsc.connect(wsOptions(BOB)).await(10, TimeUnit.SECONDS);
    bobWs.textMessageHandler(t -> bobFrames.add(new JsonObject(t)));
    // Alice watches: she may, but only her own runs reach her.
    List<String> aliceFrames = new CopyOnWriteArrayList<>();
    WebSocket aliceWatch = wsc.connect(wsOptions(ALICE)).await(10, TimeUnit.SECONDS);
    aliceWatch.textMessageHandler(aliceFrames::add);
    aliceWatch.writeTextMessage(new JsonObject().put("type", "watch").encode());
    bobWs.writeTextMessage(new JsonObject().put("type", "ask").put("question", "Deals, slowly").encode());
    String runId = frame(bobFrames, "accepted").getString("run_id");
    long until = System.currentTimeMillis() + 10_000;
    while (bobFrames.stream().noneMatch(f -> "generate_sql".equals(f.getString("node"))) && System.currentTimeMillis() < until) {
      Thread.sleep(10);
    }
    assertThat(delete(ALICE, "/api/runs/" + runId).statusCode()).isEqualTo(403);
    assertThat(get(ALICE, "/api/runs/" + runId + "/events").statusCode()).isEqualTo(403);
    assertThat(get(ALICE, "/api/runs").bodyAsString()).doesNotContain(runId);
    assertThat(get(BOB, "/api/runs").bodyAsString()).contains(runId);
    assertThat(get(ROOT, "/api/runs").bodyAsString()).contains(runId);
    // A replay of Bob's run on Alice's socket closes it with 4403.
    WebSocket aliceReplay = wsc.connect(wsOptions(ALICE)).await(10, TimeUnit.SECONDS);
    AtomicInteger closeCode = new AtomicInteger();
    aliceReplay.closeHandler(v -> closeCode.set(aliceReplay.closeStatusCode() == null ? -1 : aliceReplay.closeStatusCode()));
    aliceReplay.writeTextMessage(new JsonObject().put("type", "replay").put("run_id", runId).encode());
    until = System.currentTimeMillis() + 10_000;
    while (closeCode.get() == 0 && System.currentTimeMillis() < until) Thread.sleep(10);
    assertThat(closeCode.get()).isEqualTo(4403);
    // So does a cancel.
    WebSocket aliceCancel = wsc.connect(wsOptions(ALICE)).await(10, TimeUnit.SECONDS);
    AtomicInteger cancelClose = new AtomicInteger();
    aliceCancel.closeHandler(v -> cancelClose.set(aliceCancel.closeStatusCode() == null ? -1 : aliceCancel.closeStatusCode()));
    aliceCancel.writeTextMessage(new JsonObject().put("type", "cancel").put("run_id", runId).encode());
    until = System.currentTimeMillis() + 10_000;
    while (cancelClose.get() == 0 && System.currentTimeMillis() < until) Thread.sleep(10);
    assertThat(cancelClose.get()).isEqualTo(4403);
    // The admin stops it; Bob sees it end.
    HttpResponse<Buffer> stopped = delete(ROOT, "/api/runs/" + runId);
    assertThat(stopped.statusCode()).as(stopped.bodyAsString()).isEqualTo(200);
    JsonObject answer = frame(bobFrames, "answer");
    assertThat(answer.getBoolean("cancelled")).isTrue();
    assertThat(answer.getString("user")).isEqualTo("bob");
    Thread.sleep(200);
    assertThat(aliceFrames).noneMatch(f -> f.contains(runId));
    assertThat(String.join("\n", aliceFrames)).doesNotContain("Westfield").doesNotContain("Sunset");
    // Everything Bob received names him, and carries no token.
    assertThat(bobFrames).allMatch(f -> !"event".equals(f.getString("type")) || "bob".equals(f.getString("user")));
    String all = bobFrames.toString() + aliceFrames;
    assertThat(all).doesNotContain(ALICE).doesNotContain(BOB).doesNotContain(ROOT);
    bobWs.close();
    aliceWatch.close();
  }

  /**
   * The SockJS bridge lets a user register for a run that has not started (it may be the one that client is about to
   * ask), so it cannot tell at registration whose run it will be: each event is checked as it goes out. Alice and the
   * admin register for a run id before Bob asks with it; the admin sees Bob's run, Alice nothing of it.
   */
  @Test
  void theBridgeSendsARunsEventsToItsOwnerAndAdminsOnly() throws Exception {
    String runId = "chosen-" + UUID.randomUUID();
    WebSocketClient wsc = WsClients.of(vertx);
    List<JsonObject> aliceFrames = new CopyOnWriteArrayList<>();
    List<JsonObject> rootFrames = new CopyOnWriteArrayList<>();
    List<WebSocket> sockets = new java.util.ArrayList<>();
    for (var watcher : List.of(Map.entry(ALICE, aliceFrames), Map.entry(ROOT, rootFrames))) {
      WebSocket ws = wsc.connect(new WebSocketConnectOptions().setPort(main.httpPort()).setHost("127.0.0.1")
          .setURI("/eventbus/websocket?access_token=" + watcher.getKey())).await(10, TimeUnit.SECONDS);
      ws.binaryMessageHandler(b -> watcher.getValue().add(new JsonObject(b)));  // the SockJS raw transport's frames
      ws.writeTextMessage(new JsonObject().put("type", "register").put("address", "sqlagent.events." + runId).encode());
      // The bridge handles a socket's frames in order: the refusal of an empty ask comes once the registration is done.
      String ack = UUID.randomUUID().toString();
      ws.writeTextMessage(new JsonObject().put("type", "send").put("address", "sqlagent.agent.ask").put("replyAddress", ack)
          .put("body", new JsonObject()).encode());
      long until = System.currentTimeMillis() + 10_000;
      while (watcher.getValue().stream().noneMatch(f -> ack.equals(f.getString("address"))) && System.currentTimeMillis() < until) {
        Thread.sleep(10);
      }
      assertThat(watcher.getValue()).as("the registration was handled").anyMatch(f -> ack.equals(f.getString("address")));
      sockets.add(ws);
    }
    HttpResponse<Buffer> asked = post(BOB, "/api/ask", new JsonObject().put("question", "Deals").put("run_id", runId));
    assertThat(asked.statusCode()).as(asked.bodyAsString()).isEqualTo(200);
    assertThat(asked.bodyAsJsonObject().getString("user")).isEqualTo("bob");
    long until = System.currentTimeMillis() + 10_000;
    while (rootFrames.stream().noneMatch(f -> runId.equals(bodyOf(f).getString("run_id")) && "answer".equals(bodyOf(f).getString("node")))
        && System.currentTimeMillis() < until) {
      Thread.sleep(10);
    }
    assertThat(rootFrames).as("the admin watches every run").anyMatch(f -> runId.equals(bodyOf(f).getString("run_id")));
    Thread.sleep(200);
    assertThat(aliceFrames).as("Alice sees nothing of Bob's run").noneMatch(f -> f.encode().contains(runId))
        .noneMatch(f -> f.encode().contains("Westfield"));
    sockets.forEach(WebSocket::close);
  }

  private static JsonObject bodyOf(JsonObject frame) {
    return frame.getValue("body") instanceof JsonObject b ? b : new JsonObject();
  }

  @Test
  void withoutAValidTokenNothingIsServedAndTokensAreNeverLogged() throws Exception {
    assertThat(web.get(main.httpPort(), "127.0.0.1", "/api/runs").send().await(10, TimeUnit.SECONDS).statusCode()).isEqualTo(401);
    assertThat(get("not-a-token", "/api/runs").statusCode()).isEqualTo(401);
    JsonObject access = get(ALICE, "/api/access").bodyAsJsonObject();
    assertThat(access.getJsonObject("user").getString("name")).isEqualTo("alice");
    assertThat(access.getBoolean("watch_all")).isFalse();
    post(ALICE, "/api/ask", new JsonObject().put("question", "Which deals are there?"));
    String logged = String.join("\n", logs.messages());
    assertThat(logged).doesNotContain(ALICE).doesNotContain(BOB).doesNotContain(ROOT);
  }

  @Test
  void aRoleTheAgentIsNotAMemberOfStopsTheGateWithTheGrantThatFixesIt() throws Exception {
    String stranger = "rls_stranger_" + suffix;
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + stranger + " NOLOGIN");
    }
    Vertx own = Vertx.vertx();
    try {
      // A users file whose user switches to a role the agent role may not take.
      Throwable failure = own.deployVerticle(new ExecutionVerticle(new Target(agentUrl(), false),
              dev.sqlagent.execution.Gate.Settings.from(dev.sqlagent.config.AppConfig.load(java.util.Map.of())), List.of(stranger)))
          .transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause()))
          .await(60, TimeUnit.SECONDS);
      assertThat(failure).isNotNull();
      assertThat(failure.getMessage()).contains("not a member of " + stranger).contains("GRANT \"" + stranger + "\" TO \"" + agent + "\"");
    } finally {
      own.close().await(30, TimeUnit.SECONDS);
      try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP ROLE IF EXISTS " + stranger);
      }
    }
  }

  @Test
  void thePageShowsAUserOnlyTheirRows() throws Exception {
    try (dev.sqlagent.testing.HeadlessChromium browser = dev.sqlagent.testing.HeadlessChromium.start(1200, 900)) {
      org.openqa.selenium.WebDriver d = browser.driver;
      var wait = new org.openqa.selenium.support.ui.WebDriverWait(d, java.time.Duration.ofSeconds(30));
      wait.pollingEvery(java.time.Duration.ofMillis(50));
      String page = "http://127.0.0.1:" + main.httpPort() + "/";
      d.get(page);
      ((org.openqa.selenium.JavascriptExecutor) d).executeScript("sessionStorage.setItem('sqlagent.apiToken', arguments[0])", ALICE);
      d.get(page);
      wait.until(x -> x.findElement(org.openqa.selenium.By.id("connection")).getText().equals("Live"));
      d.findElement(org.openqa.selenium.By.id("question")).sendKeys("Which deals are there?", org.openqa.selenium.Keys.ENTER);
      var run = wait.until(x -> x.findElement(org.openqa.selenium.By.cssSelector("#runs > details.run")));
      wait.until(x -> run.findElement(org.openqa.selenium.By.cssSelector(".run-state")).getText().equals("Answered"));
      String shown = run.getText();
      assertThat(shown).contains("Eastwind").contains("Orient").doesNotContain("Westfield").doesNotContain("Sunset");
    }
  }

  static WebSocketConnectOptions wsOptions(String token) {
    return new WebSocketConnectOptions().setPort(main.httpPort()).setHost("127.0.0.1").setURI("/ws?access_token=" + token);
  }

  static JsonObject frame(List<JsonObject> frames, String type) throws Exception {
    long until = System.currentTimeMillis() + 15_000;
    while (System.currentTimeMillis() < until) {
      for (JsonObject f : frames) if (type.equals(f.getString("type"))) return f;
      Thread.sleep(10);
    }
    throw new AssertionError("no " + type + " frame in " + frames);
  }
}
