package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.OidcServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.WsClients;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The service with a sign-on: a local issuer serves discovery and keys, tokens are signed in the test. Every edge —
 * HTTP, /ws, the SockJS bridge, MCP over HTTP — takes the same identity from a valid token and refuses an expired,
 * wrongly addressed or forged one with 401 (and, where the edge can carry a body, the reason as JSON); the page signs
 * in through the authorization-code flow with PKCE against the issuer's authorize and token endpoints.
 */
class SignOnTest {

  static final String CLAIMS = "name=preferred_username,display_name=name,admin=groups:sql-admins,role=db_role,"
      + "see_sensitive=groups:pii";
  static final String SQL = "SELECT count(*) AS n FROM customers";

  static Vertx idpVertx;
  static OidcServer idp;
  static OidcServer.Key key = OidcServer.newKey("k-" + UUID.randomUUID());
  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    idpVertx = Vertx.vertx();
    idp = OidcServer.start(idpVertx).publish(key);
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql(SQL));
    Map<String, String> env = new HashMap<>(idp.env(CLAIMS));
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    service = RunningService.start(model, env);
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    if (model != null) model.close();
    if (idp != null) idp.close();
    if (idpVertx != null) idpVertx.close().await(30, TimeUnit.SECONDS);
  }

  static String token(String user, String... groups) {
    JsonArray g = new JsonArray();
    for (String x : groups) g.add(x);
    return OidcServer.sign(key, idp.claims(user).put("name", user.toUpperCase()).put("groups", g));
  }

  /** The bad tokens, each with the reason the service gives. */
  static Map<String, String> badTokens() {
    long now = System.currentTimeMillis() / 1000;
    return Map.of(
        OidcServer.sign(key, idp.claims("ann").put("exp", now - 3600)), "expired",
        OidcServer.sign(key, idp.claims("ann").put("aud", "another-app")), "wrong_audience",
        OidcServer.sign(new OidcServer.Key(key.kid(), OidcServer.newKey("x").pair()), idp.claims("ann")), "bad_signature",
        OidcServer.sign(OidcServer.newKey("never-published"), idp.claims("ann")), "unknown_key");
  }

  static HttpRequest<Buffer> get(String path, String token) {
    HttpRequest<Buffer> r = service.client.get(service.port(), "127.0.0.1", path);
    return token == null ? r : r.bearerTokenAuthentication(token);
  }

  static HttpRequest<Buffer> post(String path, String token) {
    return service.client.post(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json, text/event-stream");
  }

  @Test
  void httpTakesTheUserAndGrantsFromTheToken() throws Exception {
    HttpResponse<Buffer> access = get("/api/access", token("ann", "staff", "sql-admins", "pii")).send().await(30, TimeUnit.SECONDS);
    assertThat(access.statusCode()).as(access.bodyAsString()).isEqualTo(200);
    JsonObject ann = access.bodyAsJsonObject().getJsonObject("user");
    assertThat(ann.getString("name")).isEqualTo("ann");
    assertThat(ann.getString("display_name")).isEqualTo("ANN");
    assertThat(ann.getBoolean("admin")).isTrue();
    assertThat(ann.getBoolean("see_sensitive")).isTrue();
    JsonObject bob = get("/api/access", token("bob", "staff")).send().await(30, TimeUnit.SECONDS).bodyAsJsonObject().getJsonObject("user");
    assertThat(bob.getBoolean("admin")).isFalse();
    assertThat(bob.getBoolean("see_sensitive")).isFalse();
    HttpResponse<Buffer> asked = post("/api/ask", token("bob", "staff")).sendJsonObject(new JsonObject().put("question", "How many customers?"))
        .await(60, TimeUnit.SECONDS);
    assertThat(asked.statusCode()).as(asked.bodyAsString()).isEqualTo(200);
    assertThat(asked.bodyAsJsonObject().getString("user")).isEqualTo("bob");
    // A run is its asker's: another non-admin user may not read its events; an admin may.
    String runId = asked.bodyAsJsonObject().getString("run_id");
    assertThat(get("/api/runs/" + runId + "/events", token("carol")).send().await(30, TimeUnit.SECONDS).statusCode()).isEqualTo(403);
    assertThat(get("/api/runs/" + runId + "/events", token("ann", "sql-admins")).send().await(30, TimeUnit.SECONDS).statusCode())
        .isEqualTo(200);
  }

  @Test
  void withoutATokenOrWithABadOneHttpIs401WithTheReason() throws Exception {
    HttpResponse<Buffer> none = get("/api/access", null).send().await(30, TimeUnit.SECONDS);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.bodyAsJsonObject().getString("reason")).isEqualTo("no_token");
    assertThat(none.bodyAsJsonObject().getString("message")).contains("sign in").contains(idp.issuer());
    for (Map.Entry<String, String> bad : badTokens().entrySet()) {
      HttpResponse<Buffer> r = get("/api/access", bad.getKey()).send().await(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(bad.getValue()).isEqualTo(401);
      assertThat(r.getHeader("content-type")).startsWith("application/json");
      assertThat(r.getHeader("WWW-Authenticate")).contains("invalid_token");
      JsonObject body = r.bodyAsJsonObject();
      assertThat(body.getString("reason")).isEqualTo(bad.getValue());
      assertThat(body.getString("message")).isNotBlank().doesNotContain("Exception").doesNotContain("\tat ");
      // A POST with a body is refused the same way, and nothing reaches the model.
      int before = model.requestCount();
      HttpResponse<Buffer> ask = post("/api/ask", bad.getKey()).sendJsonObject(new JsonObject().put("question", "How many customers?"))
          .await(30, TimeUnit.SECONDS);
      assertThat(ask.statusCode()).isEqualTo(401);
      assertThat(ask.bodyAsJsonObject().getString("reason")).isEqualTo(bad.getValue());
      assertThat(model.requestCount()).isEqualTo(before);
    }
  }

  @Test
  void theWebSocketTakesTheTokenAndRefusesABadOne() throws Exception {
    WebSocketClient wsc = WsClients.of(service.vertx);
    for (Map.Entry<String, String> bad : badTokens().entrySet()) {
      assertThat(rejection(wsc, "/ws?access_token=" + bad.getKey())).as(bad.getValue()).isEqualTo(401);
    }
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = wsc.connect(options("/ws?access_token=" + URLEncoder.encode(token("bob"), StandardCharsets.UTF_8)))
        .await(30, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "How many customers?").encode());
    JsonObject answer = waitFor(frames, f -> "answer".equals(f.getString("node")) || "answer".equals(f.getString("type")));
    assertThat(answer.encode()).contains("\"user\":\"bob\"");
    ws.close();
  }

  @Test
  void theSockJsBridgeTakesTheTokenAndRefusesABadOne() throws Exception {
    WebSocketClient wsc = WsClients.of(service.vertx);
    for (Map.Entry<String, String> bad : badTokens().entrySet()) {
      assertThat(rejection(wsc, "/eventbus/websocket?access_token=" + bad.getKey())).as(bad.getValue()).isEqualTo(401);
    }
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = wsc.connect(options("/eventbus/websocket?access_token=" + token("bob"))).await(30, TimeUnit.SECONDS);
    ws.binaryMessageHandler(b -> frames.add(new JsonObject(b)));
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    String reply = UUID.randomUUID().toString();
    ws.writeTextMessage(new JsonObject().put("type", "send").put("address", "sqlagent.agent.ask").put("replyAddress", reply)
        .put("body", new JsonObject().put("question", "How many customers?")).encode());
    JsonObject answer = waitFor(frames, f -> reply.equals(f.getString("address")));
    assertThat(answer.getJsonObject("body").getString("user")).as(answer.encode()).isEqualTo("bob");
    ws.close();
  }

  /**
   * A socket lasts no longer than its token: one whose token is accepted for 3 s more (its exp 57 s ago, within the
   * 60 s clock skew) is closed then with 4401 and the reason, on /ws and on the bridge's raw WebSocket; reconnecting
   * with the same token is refused.
   */
  @Test
  void aLiveSocketIsClosedWhenItsTokenExpires() throws Exception {
    WebSocketClient wsc = WsClients.of(service.vertx);
    for (String path : List.of("/ws", "/eventbus/websocket")) {
      long now = System.currentTimeMillis() / 1000;
      String expiring = OidcServer.sign(key, idp.claims("bob").put("exp", now - 57));
      long opened = System.currentTimeMillis();
      WebSocket ws = wsc.connect(options(path + "?access_token=" + expiring)).await(30, TimeUnit.SECONDS);
      java.util.concurrent.CompletableFuture<Long> closedAt = new java.util.concurrent.CompletableFuture<>();
      ws.closeHandler(v -> closedAt.complete(System.currentTimeMillis()));
      long closed = closedAt.get(30, TimeUnit.SECONDS);
      assertThat(closed - opened).as(path + ": open until the token's end, then closed").isBetween(1_000L, 10_000L);
      assertThat(ws.closeStatusCode()).as(path).isEqualTo((short) 4401);
      assertThat(ws.closeReason()).as(path).contains("token expired");
      Thread.sleep(Math.max(0, (now + 4) * 1000 - System.currentTimeMillis()));
      assertThat(rejection(wsc, path + "?access_token=" + expiring)).as(path + ": the same token again").isEqualTo(401);
    }
  }

  /** MCP's event stream (GET /mcp) ends when its sign-on token does, with the reason as its last comment. */
  @Test
  void anMcpEventStreamEndsWhenItsTokenExpires() throws Exception {
    long now = System.currentTimeMillis() / 1000;
    String expiring = OidcServer.sign(key, idp.claims("bob").put("exp", now - 57));
    JsonObject init = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize").put("params",
        new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "t").put("version", "1")));
    String session = post("/mcp", expiring).sendJsonObject(init).await(30, TimeUnit.SECONDS).getHeader("Mcp-Session-Id");
    assertThat(session).isNotNull();
    long opened = System.currentTimeMillis();
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    var response = client.sendAsync(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                + service.port() + "/mcp"))
            .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
            .header("Authorization", "Bearer " + expiring).GET().build(),
        java.net.http.HttpResponse.BodyHandlers.ofLines()).get(30, TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(200);
    try (var lines = response.body()) {
      // Read to the stream's end: it ends only if the service ends it.
      List<String> all = java.util.concurrent.CompletableFuture.supplyAsync(() -> lines.toList()).get(30, TimeUnit.SECONDS);
      assertThat(System.currentTimeMillis() - opened).as("open until the token's end").isBetween(1_000L, 10_000L);
      assertThat(all).anyMatch(l -> l.contains("token expired"));
    }
  }

  @Test
  void mcpOverHttpTakesTheTokenAndRefusesABadOne() throws Exception {
    JsonObject init = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize").put("params",
        new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "t").put("version", "1")));
    for (Map.Entry<String, String> bad : badTokens().entrySet()) {
      HttpResponse<Buffer> r = post("/mcp", bad.getKey()).sendJsonObject(init).await(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(bad.getValue()).isEqualTo(401);
      assertThat(r.bodyAsJsonObject().getString("reason")).isEqualTo(bad.getValue());
    }
    String bob = token("bob");
    HttpResponse<Buffer> ok = post("/mcp", bob).sendJsonObject(init).await(30, TimeUnit.SECONDS);
    String session = ok.getHeader("Mcp-Session-Id");
    assertThat(session).as(ok.bodyAsString()).isNotNull();
    HttpResponse<Buffer> ask = post("/mcp", bob).putHeader("Mcp-Session-Id", session)
        .sendJsonObject(new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/call").put("params",
            new JsonObject().put("name", "ask").put("arguments", new JsonObject().put("question", "How many customers?"))))
        .await(60, TimeUnit.SECONDS);
    assertThat(ask.statusCode()).as(ask.bodyAsString()).isEqualTo(200);
    assertThat(ask.bodyAsString()).contains("bob");
  }

  /**
   * The page, opened without a token, goes to the issuer's authorize endpoint with a PKCE challenge, comes back with a
   * code, exchanges it with its verifier at the token endpoint (which checks it) and then asks as the signed-in user.
   */
  @Test
  void thePageSignsInWithTheAuthorizationCodeFlowAndPkce() throws Exception {
    idp.signInAs(key, idp.claims("dora").put("name", "Dora Explorer"));
    int tokenRequests = idp.tokenRequests.size();
    try (HeadlessChromium browser = HeadlessChromium.start(1200, 900)) {
      WebDriver d = browser.driver;
      WebDriverWait wait = new WebDriverWait(d, Duration.ofSeconds(60));
      wait.pollingEvery(Duration.ofMillis(100)).ignoring(org.openqa.selenium.StaleElementReferenceException.class);
      String page = "http://127.0.0.1:" + service.port() + "/";
      d.get(page);
      wait.until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
      assertThat(idp.authorizeRequests).as("the page went to the sign-on").isNotEmpty();
      String authorize = idp.authorizeRequests.get(idp.authorizeRequests.size() - 1);
      assertThat(authorize).contains("code_challenge=").contains("code_challenge_method=S256")
          .contains("client_id=" + OidcServer.CLIENT_ID).contains("state=");
      assertThat(idp.tokenRequests.size()).isEqualTo(tokenRequests + 1);
      OidcServer.TokenRequest exchange = idp.tokenRequests.get(tokenRequests);
      assertThat(exchange.verifierMatched()).as("the token endpoint saw the verifier of the challenge").isTrue();
      assertThat(d.getCurrentUrl()).as("the code is not left in the address bar").doesNotContain("code=");
      String held = (String) ((JavascriptExecutor) d).executeScript("return sessionStorage.getItem('sqlagent.apiToken')");
      assertThat(held).as("the tab holds the token").isNotBlank();
      d.findElement(By.id("question")).sendKeys("How many customers?", Keys.ENTER);
      wait.until(x -> x.findElement(By.cssSelector("#runs > details.run .run-state")).getText().equals("Answered"));
      // The run was asked as the signed-in person.
      HttpResponse<Buffer> runs = get("/api/runs", held).send().await(30, TimeUnit.SECONDS);
      assertThat(runs.statusCode()).isEqualTo(200);
      assertThat(runs.bodyAsString()).contains("\"dora\"");
    }
  }

  /**
   * The page's token runs out while it is open: its socket is closed (4401), the page says so, its reconnect is
   * refused, it goes back through the sign-on by itself and is live again with a fresh token, and asks as before.
   */
  @Test
  void thePageSignsInAgainWhenItsTokenExpires() throws Exception {
    idp.signInAs(key, idp.claims("erin").put("name", "Erin"));
    // Accepted for 33 s more, within the service's 60 s clock skew: longer than the page's guard against a sign-in
    // loop (a token refused within 30 s of signing in is shown as refused, not signed in again).
    idp.tokenLifetime(-27);
    int tokenRequests = idp.tokenRequests.size();
    try (HeadlessChromium browser = HeadlessChromium.start(1200, 900)) {
      WebDriver d = browser.driver;
      WebDriverWait wait = new WebDriverWait(d, Duration.ofSeconds(60));
      wait.pollingEvery(Duration.ofMillis(50)).ignoring(org.openqa.selenium.StaleElementReferenceException.class);
      d.get("http://127.0.0.1:" + service.port() + "/");
      wait.until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
      assertThat(idp.tokenRequests.size()).isEqualTo(tokenRequests + 1);
      String first = (String) ((JavascriptExecutor) d).executeScript("return sessionStorage.getItem('sqlagent.apiToken')");
      idp.tokenLifetime(300);
      // What the connection line says, every change of it, until the page leaves for the sign-on.
      ((JavascriptExecutor) d).executeScript("const c = document.getElementById('connection');"
          + "sessionStorage.setItem('seen', '');"
          + "new MutationObserver(() => sessionStorage.setItem('seen', sessionStorage.getItem('seen') + '|' + c.textContent))"
          + ".observe(c, {childList: true, characterData: true, subtree: true});");
      try {
        wait.until(x -> idp.tokenRequests.size() == tokenRequests + 2
            && x.findElement(By.id("connection")).getText().equals("Live"));
      } catch (org.openqa.selenium.TimeoutException e) {
        throw new AssertionError("not live again: token requests " + (idp.tokenRequests.size() - tokenRequests)
            + ", authorize " + idp.authorizeRequests.size() + ", at " + d.getCurrentUrl() + ", connection '"
            + d.findElement(By.id("connection")).getText() + "', seen "
            + ((JavascriptExecutor) d).executeScript("return sessionStorage.getItem('seen')") + ", banner '"
            + d.findElement(By.id("banner")).getText() + "'", e);
      }
      assertThat((String) ((JavascriptExecutor) d).executeScript("return sessionStorage.getItem('seen')"))
          .contains("Sign-in expired");
      String second = (String) ((JavascriptExecutor) d).executeScript("return sessionStorage.getItem('sqlagent.apiToken')");
      assertThat(second).as("a fresh token").isNotBlank().isNotEqualTo(first);
      d.findElement(By.id("question")).sendKeys("How many customers?", Keys.ENTER);
      wait.until(x -> x.findElement(By.cssSelector("#runs > details.run .run-state")).getText().equals("Answered"));
      assertThat(get("/api/runs", second).send().await(30, TimeUnit.SECONDS).bodyAsString()).contains("\"erin\"");
    } finally {
      idp.tokenLifetime(300);
    }
  }

  static WebSocketConnectOptions options(String uri) {
    return new WebSocketConnectOptions().setHost("127.0.0.1").setPort(service.port()).setURI(uri);
  }

  static int rejection(WebSocketClient wsc, String uri) throws Exception {
    try {
      wsc.connect(options(uri)).await(30, TimeUnit.SECONDS).close();
      return 101;
    } catch (UpgradeRejectedException e) {
      return e.getStatus();
    }
  }

  static JsonObject waitFor(List<JsonObject> frames, java.util.function.Predicate<JsonObject> match) throws Exception {
    long until = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < until) {
      for (JsonObject f : frames) {
        if (match.test(f)) return f;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no matching frame within 60 s; got " + frames);
  }
}
