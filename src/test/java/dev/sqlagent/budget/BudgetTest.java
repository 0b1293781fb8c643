package dev.sqlagent.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.OidcServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.WsClients;
import dev.sqlagent.users.Users;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Daily budgets over real HTTP, /ws, MCP and the SockJS bridge, counted in the real state store (the embedded
 * PostgreSQL): the third question of a user allowed two is 429 with the budget, what was used, the limit and when it
 * resets; the count holds across a restart and across two instances on one state store; a group's budget applies
 * through the users file and through a sign-on claim; tokens are counted from the model server's usage; and
 * {@code /api/usage} shows a user their own day, an admin everyone's, and refuses another user's to a non-admin.
 */
class BudgetTest {

  static final String SQL = "SELECT count(*) AS n FROM customers";
  /** Names of this run only: the state store outlives it, and the counts are per name and day. */
  static final String RUN = Long.toString(System.nanoTime(), 36);
  static final Map<String, String> TOKENS = new HashMap<>();

  static Vertx idpVertx;
  static OidcServer idp;
  static OidcServer.Key key = OidcServer.newKey("k-" + UUID.randomUUID());
  static FakeModelServer model;
  static Path usersFile;
  static Map<String, String> env;
  static RunningService service;

  static String name(String who) {
    return who + "-" + RUN;
  }

  @BeforeAll
  static void start() throws Exception {
    StringBuilder users = new StringBuilder("users:\n");
    Map<String, String> extra = Map.of(
        "alice", "    budget: {questions_per_day: 2}\n",
        "sam", "    budget: {questions_per_day: 2}\n",
        "pat", "    budget: {questions_per_day: 2}\n",
        "quinn", "    budget: {questions_per_day: 2}\n",
        "bob", "    groups: [analysts]\n",
        "carol", "    budget: {tokens_per_day: 100}\n",
        "dave", "",
        "frank", "    groups: [analysts, wide]\n",
        "root", "    admin: true\n    budget: {questions_per_day: unlimited}\n");
    for (Map.Entry<String, String> u : extra.entrySet()) {
      String token = u.getKey() + "-token-" + UUID.randomUUID();
      TOKENS.put(u.getKey(), token);
      users.append("  - name: ").append(name(u.getKey())).append("\n    token_sha256: ").append(Users.sha256Hex(token))
          .append("\n").append(u.getValue());
    }
    users.append("""
        groups:
          analysts: {budget: {questions_per_day: 1}}
          wide: {budget: {questions_per_day: 3}}
          signon-team: {budget: {questions_per_day: 1}}
        default_budget: {questions_per_day: 5}
        """);
    usersFile = Files.createTempFile("sqlagent-budgets", ".yaml");
    Files.writeString(usersFile, users.toString());
    idpVertx = Vertx.vertx();
    idp = OidcServer.start(idpVertx).publish(key);
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql(SQL).usage(70, 40));
    env = new HashMap<>(model.env());
    env.putAll(idp.env("name=preferred_username,groups=groups"));
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    service = RunningService.start(env);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
      if (idp != null) idp.close();
      if (idpVertx != null) idpVertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static HttpResponse<Buffer> ask(RunningService on, String token) throws Exception {
    return on.client.post(on.port(), "127.0.0.1", "/api/ask").bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").sendJsonObject(new JsonObject().put("question", "How many customers?"))
        .await(60, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(String path, String token) throws Exception {
    return service.client.get(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token).send()
        .await(30, TimeUnit.SECONDS);
  }

  static void answered(HttpResponse<Buffer> r) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
  }

  /** The refusal of a question past {@code budget}, as every door gives it. */
  static void overBudget(JsonObject body, String user, String budget, Object used, Object limit, String from) {
    assertThat(body.getBoolean("ok", false)).as(body.encode()).isFalse();
    assertThat(body.getString("error_type")).as(body.encode()).isEqualTo("over_budget");
    assertThat(body.getString("budget")).isEqualTo(budget);
    assertThat(num(body.getValue("used"))).isEqualTo(num(used));
    assertThat(num(body.getValue("limit"))).isEqualTo(num(limit));
    assertThat(body.getString("from")).isEqualTo(from);
    String tomorrow = LocalDate.now(ZoneOffset.UTC).plusDays(1) + "T00:00:00Z";
    assertThat(body.getString("resets_at")).isEqualTo(tomorrow);
    assertThat(body.getString("message")).contains(user).contains(budget).contains(tomorrow);
  }

  static void refusedOverHttp(HttpResponse<Buffer> r, String user, String budget, Object used, Object limit, String from) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(429);
    overBudget(r.bodyAsJsonObject(), user, budget, used, limit, from);
    long untilMidnight = LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().getEpochSecond()
        - Instant.now().getEpochSecond();
    assertThat(Long.parseLong(r.getHeader("Retry-After"))).isBetween(Math.max(1, untilMidnight - 60), untilMidnight + 1);
  }

  @Test
  void theThirdQuestionOfTwoIsRefusedWith429OnEveryDoor() throws Exception {
    String alice = TOKENS.get("alice");
    answered(ask(service, alice));
    answered(ask(service, alice));
    int calls = model.requestCount();
    refusedOverHttp(ask(service, alice), name("alice"), "questions_per_day", 2L, 2L, "user " + name("alice"));

    WebSocketClient wsc = WsClients.of(service.vertx);
    // /ws: an error frame with the same body.
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = wsc.connect(options("/ws?access_token=" + alice)).await(30, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "How many customers?").encode());
    JsonObject error = waitFor(frames, f -> "error".equals(f.getString("type")));
    overBudget(error.containsKey("error") ? error.getJsonObject("error") : error, name("alice"), "questions_per_day", 2L, 2L,
        "user " + name("alice"));
    ws.close();

    // The SockJS bridge: a failed reply, its code the budget's and its message the same body.
    List<JsonObject> bridged = new CopyOnWriteArrayList<>();
    WebSocket sock = wsc.connect(options("/eventbus/websocket?access_token=" + alice)).await(30, TimeUnit.SECONDS);
    sock.binaryMessageHandler(b -> bridged.add(new JsonObject(b)));
    sock.textMessageHandler(t -> bridged.add(new JsonObject(t)));
    String reply = UUID.randomUUID().toString();
    sock.writeTextMessage(new JsonObject().put("type", "send").put("address", "sqlagent.agent.ask").put("replyAddress", reply)
        .put("body", new JsonObject().put("question", "How many customers?")).encode());
    JsonObject failed = waitFor(bridged, f -> "err".equals(f.getString("type")) || reply.equals(f.getString("address")));
    assertThat(failed.getInteger("failureCode")).as(failed.encode()).isEqualTo(430);
    overBudget(new JsonObject(failed.getString("message")), name("alice"), "questions_per_day", 2L, 2L, "user " + name("alice"));
    sock.close();

    // MCP's ask tool: a tool error with the same body.
    JsonObject mcpError = mcpAsk(alice);
    assertThat(mcpError.getBoolean("isError")).as(mcpError.encode()).isTrue();
    JsonObject text = new JsonObject(mcpError.getJsonArray("content").getJsonObject(0).getString("text"));
    overBudget(text, name("alice"), "questions_per_day", 2L, 2L, "user " + name("alice"));

    assertThat(model.requestCount()).as("no refused question reached the model").isEqualTo(calls);
    String metrics = service.client.get(service.port(), "127.0.0.1", "/metrics").send().await(30, TimeUnit.SECONDS).bodyAsString();
    assertThat(metrics).containsPattern("sqlagent_budget_refusals_total\\{budget=\"questions_per_day\"[^}]*} [4-9]")
        .containsPattern("sqlagent_budget_used_total\\{budget=\"questions_per_day\"[^}]*} \\d");
  }

  /**
   * Two instances on one state store count together, at once too (two asks on each, three allowed in all); the
   * count survives a restart.
   */
  @Test
  void twoInstancesCountTogetherAndTheCountSurvivesARestart() throws Exception {
    RunningService other = RunningService.start(env);
    try {
      String sam = TOKENS.get("sam");
      answered(ask(service, sam));
      answered(ask(other, sam));
      refusedOverHttp(ask(service, sam), name("sam"), "questions_per_day", 2L, 2L, "user " + name("sam"));
      refusedOverHttp(ask(other, sam), name("sam"), "questions_per_day", 2L, 2L, "user " + name("sam"));
      // At once: four questions on two instances, two allowed; exactly two are answered.
      String pat = TOKENS.get("pat");
      List<Future<HttpResponse<Buffer>>> asked = new ArrayList<>();
      for (RunningService s : List.of(service, other, service, other)) {
        asked.add(s.client.post(s.port(), "127.0.0.1", "/api/ask").bearerTokenAuthentication(pat)
            .sendJsonObject(new JsonObject().put("question", "How many customers?")));
      }
      Future.join(asked).await(60, TimeUnit.SECONDS);
      assertThat(asked.stream().map(f -> f.result().statusCode()).sorted().toList()).containsExactly(200, 200, 429, 429);
    } finally {
      other.close();
    }
    RunningService restarted = RunningService.start(env);
    try {
      refusedOverHttp(ask(restarted, TOKENS.get("sam")), name("sam"), "questions_per_day", 2L, 2L, "user " + name("sam"));
    } finally {
      restarted.close();
    }
    // The counts are the state store's: the target has no such table, and nothing of the count was written there.
    try (java.sql.Connection state = TestDatabase.get().adminConnection(dev.sqlagent.state.StateStore.EMBEDDED_DATABASE);
        java.sql.PreparedStatement q = state.prepareStatement("SELECT questions FROM budget_usage WHERE user_name = ?")) {
      q.setString(1, name("sam"));
      try (java.sql.ResultSet rs = q.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(2L);
      }
    }
    try (java.sql.Connection target = TestDatabase.get().shopAdmin();
        java.sql.ResultSet rs = target.createStatement().executeQuery("SELECT to_regclass('budget_usage') IS NULL")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getBoolean(1)).as("a budget table in the target").isTrue();
    }
  }

  /** A question counted but refused as busy (no slot, no queue) never started: it is given back. */
  @Test
  void aQuestionTheServiceWasTooBusyToStartIsGivenBack() throws Exception {
    try (FakeModelServer slow = FakeModelServer.start()) {
      slow.respondWith(req -> Reply.sql(SQL).delayed(2_000));
      Map<String, String> busy = new HashMap<>(env);
      busy.putAll(slow.env());
      busy.put("SQLAGENT_ASK_IN_FLIGHT", "1");
      busy.put("SQLAGENT_ASK_QUEUE", "0");
      RunningService one = RunningService.start(busy);
      try {
        String quinn = TOKENS.get("quinn");
        List<Future<HttpResponse<Buffer>>> asked = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          asked.add(one.client.post(one.port(), "127.0.0.1", "/api/ask").bearerTokenAuthentication(quinn)
              .sendJsonObject(new JsonObject().put("question", "How many customers?")));
        }
        Future.join(asked).await(60, TimeUnit.SECONDS);
        assertThat(asked.stream().map(f -> f.result().statusCode()).sorted().toList()).containsExactly(200, 503);
        long until = System.currentTimeMillis() + 10_000;
        long used;
        while ((used = num(budget(get("/api/usage", quinn).bodyAsJsonObject(), "questions_per_day").getValue("used"))) != 1) {
          assertThat(System.currentTimeMillis()).as("the busy question given back; used " + used).isLessThan(until);
          Thread.sleep(50);
        }
        answered(ask(service, quinn));
      } finally {
        one.close();
      }
    }
  }

  @Test
  void aGroupsBudgetAppliesThroughTheUsersFileAndThroughASignOnClaim() throws Exception {
    answered(ask(service, TOKENS.get("bob")));
    refusedOverHttp(ask(service, TOKENS.get("bob")), name("bob"), "questions_per_day", 1L, 1L, "group analysts");
    String erin = OidcServer.sign(key, idp.claims(name("erin")).put("groups", new JsonArray().add("staff").add("signon-team")));
    answered(ask(service, erin));
    refusedOverHttp(ask(service, erin), name("erin"), "questions_per_day", 1L, 1L, "group signon-team");
    // The same user signed on without the group claim: the default.
    String erinAlone = OidcServer.sign(key, idp.claims(name("erin")));
    JsonObject own = budget(get("/api/usage", erinAlone).bodyAsJsonObject(), "questions_per_day");
    assertThat(own.getValue("limit")).isEqualTo(5);
    assertThat(own.getString("from")).isEqualTo("default");
    // In two groups, the more generous one.
    JsonObject frank = budget(get("/api/usage", TOKENS.get("frank")).bodyAsJsonObject(), "questions_per_day");
    assertThat(frank.getValue("limit")).isEqualTo(3);
    assertThat(frank.getString("from")).isEqualTo("group wide");
  }

  @Test
  void tokensPerDayIsCountedFromTheModelsUsage() throws Exception {
    String carol = TOKENS.get("carol");
    HttpResponse<Buffer> first = ask(service, carol);
    answered(first);
    JsonObject tokens = first.bodyAsJsonObject().getJsonObject("tokens");
    long used = tokens.getLong("prompt") + tokens.getLong("completion");
    assertThat(used).as("the model server's usage: 70 + 40 per call").isPositive().isEqualTo(110L * (used / 110));
    // The answer's model use is added as it is published: wait until the day shows it.
    long until = System.currentTimeMillis() + 10_000;
    while (budget(get("/api/usage", carol).bodyAsJsonObject(), "tokens_per_day").getLong("used") < used) {
      assertThat(System.currentTimeMillis()).as("the answer's tokens counted").isLessThan(until);
      Thread.sleep(50);
    }
    refusedOverHttp(ask(service, carol), name("carol"), "tokens_per_day", used, 100L, "user " + name("carol"));
  }

  @Test
  void usageIsEachUsersOwnAndEveryonesForAnAdmin() throws Exception {
    String dave = TOKENS.get("dave");
    answered(ask(service, dave));
    HttpResponse<Buffer> own = get("/api/usage", dave);
    assertThat(own.statusCode()).as(own.bodyAsString()).isEqualTo(200);
    JsonObject day = own.bodyAsJsonObject();
    assertThat(day.getString("user")).isEqualTo(name("dave"));
    assertThat(day.getString("day")).isEqualTo(LocalDate.now(ZoneOffset.UTC).toString());
    assertThat(day.getString("resets_at")).isEqualTo(LocalDate.now(ZoneOffset.UTC).plusDays(1) + "T00:00:00Z");
    JsonObject questions = budget(day, "questions_per_day");
    assertThat(questions.getValue("used")).isEqualTo(1);
    assertThat(questions.getValue("limit")).isEqualTo(5);
    assertThat(budget(day, "cost_usd_per_day").getValue("limit")).as("unlimited").isNull();

    HttpResponse<Buffer> another = get("/api/usage?user=" + name("bob"), dave);
    assertThat(another.statusCode()).as(another.bodyAsString()).isEqualTo(403);
    assertThat(another.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden");

    HttpResponse<Buffer> all = get("/api/usage", TOKENS.get("root"));
    assertThat(all.statusCode()).as(all.bodyAsString()).isEqualTo(200);
    JsonArray users = all.bodyAsJsonObject().getJsonArray("users");
    List<String> names = users.stream().map(u -> ((JsonObject) u).getString("user")).toList();
    assertThat(names).contains(name("dave"), name("bob"), name("root"));
    JsonObject daveSeen = users.stream().map(u -> (JsonObject) u).filter(u -> u.getString("user").equals(name("dave")))
        .findFirst().orElseThrow();
    assertThat(budget(daveSeen, "questions_per_day").getValue("used")).isEqualTo(1);
    HttpResponse<Buffer> one = get("/api/usage?user=" + name("dave"), TOKENS.get("root"));
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(one.bodyAsJsonObject().getString("user")).isEqualTo(name("dave"));
  }

  /** A JSON number as a whole number (JSON reads small ones as Integer). */
  static long num(Object n) {
    return ((Number) n).longValue();
  }

  static JsonObject budget(JsonObject day, String budget) {
    return day.getJsonArray("budgets").stream().map(b -> (JsonObject) b).filter(b -> budget.equals(b.getString("budget")))
        .findFirst().orElseThrow(() -> new AssertionError("no " + budget + " in " + day.encode()));
  }

  static JsonObject mcpAsk(String token) throws Exception {
    JsonObject init = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize").put("params",
        new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "t").put("version", "1")));
    HttpResponse<Buffer> ok = mcp(token, null).sendJsonObject(init).await(30, TimeUnit.SECONDS);
    String session = ok.getHeader("Mcp-Session-Id");
    assertThat(session).as(ok.bodyAsString()).isNotNull();
    HttpResponse<Buffer> ask = mcp(token, session).sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 2)
        .put("method", "tools/call").put("params", new JsonObject().put("name", "ask")
            .put("arguments", new JsonObject().put("question", "How many customers?")))).await(60, TimeUnit.SECONDS);
    assertThat(ask.statusCode()).as(ask.bodyAsString()).isEqualTo(200);
    String body = ask.bodyAsString();
    // A JSON reply, or one SSE event holding it.
    String json = body.trim().startsWith("{") ? body : body.lines().filter(l -> l.startsWith("data:"))
        .map(l -> l.substring(5).trim()).filter(l -> l.contains("\"id\":2")).findFirst().orElseThrow();
    return new JsonObject(json).getJsonObject("result");
  }

  static io.vertx.ext.web.client.HttpRequest<Buffer> mcp(String token, String session) {
    var r = service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json, text/event-stream");
    return session == null ? r : r.putHeader("Mcp-Session-Id", session);
  }

  static WebSocketConnectOptions options(String uri) {
    return new WebSocketConnectOptions().setHost("127.0.0.1").setPort(service.port()).setURI(uri);
  }

  static JsonObject waitFor(List<JsonObject> frames, Predicate<JsonObject> match) throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < until) {
      for (JsonObject f : frames) {
        if (match.test(f)) return f;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no matching frame within 30 s; got " + frames);
  }
}
