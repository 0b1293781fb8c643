package dev.sqlagent.access;

import dev.sqlagent.config.AppConfig;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The access rules over real HTTP, on loopback only (no traffic leaves 127.0.0.0/8): a second client is a
 * client bound to 127.0.0.2; the rule for clients that are not local is checked on the policy itself with a
 * documentation address. The agent is a stand-in that holds questions until the test lets them go, so "in
 * flight" is under control.
 */
class AccessTest {

  static final String TOKEN = "s3cret-token";

  Vertx vertx;
  HttpVerticle http;
  WebClient client;
  final List<Message<JsonObject>> held = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    client = WebClient.create(vertx);
    vertx.eventBus().<JsonObject>consumer(Addresses.ASK, held::add);
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  void start(String token) throws Exception {
    java.util.Map<String, String> env = new java.util.HashMap<>(java.util.Map.of("SQLAGENT_HTTP_PORT", "0",
        "SQLAGENT_ASK_PER_CLIENT", "2", "SQLAGENT_MAX_BODY_BYTES", "65536"));
    if (token != null) env.put("SQLAGENT_API_TOKEN", token);
    http = new HttpVerticle(AppConfig.load(env));
    vertx.deployVerticle(http).await(20, TimeUnit.SECONDS);
  }

  /** A client that is not on this machine (TEST-NET-3: a documentation address, never contacted). */
  static final SocketAddress REMOTE = SocketAddress.inetSocketAddress(40_000, "203.0.113.7");

  HttpRequest<Buffer> req(HttpMethod method, String host, String path) {
    return client.request(method, http.actualPort(), host, path);
  }

  HttpResponse<Buffer> send(HttpRequest<Buffer> r) throws Exception {
    return r.send().await(10, TimeUnit.SECONDS);
  }

  static JsonObject question(String q) {
    return new JsonObject().put("question", q);
  }

  // --- token ---------------------------------------------------------------------------------------

  @Test
  void withATokenEveryGuardedPathNeedsItAndTheRestStaysOpen() throws Exception {
    start(TOKEN);
    for (String path : List.of("/api/health", "/api/access", "/api/runs/x/events", "/ws", "/eventbus/info", "/mcp")) {
      HttpResponse<Buffer> none = send(req(HttpMethod.GET, "127.0.0.1", path));
      assertThat(none.statusCode()).as(path).isEqualTo(401);
      assertThat(none.getHeader("WWW-Authenticate")).startsWith("Bearer");
      assertThat(none.bodyAsJsonObject().getString("error_type")).isEqualTo("unauthorized");
      assertThat(none.bodyAsJsonObject().getString("message")).contains("Authorization: Bearer");
      HttpResponse<Buffer> wrong = send(req(HttpMethod.GET, "127.0.0.1", path).bearerTokenAuthentication("s3cret-tokeN"));
      assertThat(wrong.statusCode()).as(path).isEqualTo(401);
      assertThat(wrong.bodyAsJsonObject().getString("message")).isEqualTo("the API token is not valid");
      HttpResponse<Buffer> right = send(req(HttpMethod.GET, "127.0.0.1", path).bearerTokenAuthentication(TOKEN));
      assertThat(right.statusCode()).as(path).isNotEqualTo(401);
    }
    HttpResponse<Buffer> ask = send(req(HttpMethod.POST, "127.0.0.1", "/api/ask").putHeader("content-type", "application/json"));
    assertThat(ask.statusCode()).isEqualTo(401);
    // Browsers' WebSockets cannot set headers: ?token= is accepted on /ws and /eventbus, and only there.
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/ws?token=" + TOKEN)).statusCode()).isNotEqualTo(401);
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/eventbus/info?token=" + TOKEN)).statusCode()).isNotEqualTo(401);
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/ws?access_token=" + TOKEN)).statusCode()).isNotEqualTo(401);
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/ws?access_token=nope")).statusCode()).isEqualTo(401);
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/api/access?token=" + TOKEN)).statusCode()).isEqualTo(401);
    // Liveness, metrics and the page never ask for it.
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/health")).statusCode()).isEqualTo(200);
    assertThat(send(req(HttpMethod.GET, "127.0.0.1", "/metrics")).statusCode()).isNotEqualTo(401);
    // With the token presented, a client that is not local may watch every run.
    JsonObject access = send(req(HttpMethod.GET, "127.0.0.1", "/api/access").bearerTokenAuthentication(TOKEN)).bodyAsJsonObject();
    assertThat(access.getBoolean("token_required")).isTrue();
    assertThat(access.getBoolean("watch_all")).isTrue();
    assertThat(AccessGuard.mayWatchAll(REMOTE, true)).isTrue();
  }

  /**
   * The guards stand in front of routes that read their own regex groups: SockJS takes each fallback session's id
   * from its route's first group ({@code param0}). A guard whose pattern captured put "eventbus" there first (Vert.x
   * keeps a parameter's first value), and fallback clients shared one session: the second one was told "Go away!".
   */
  @Test
  void theGuardsLeaveTheRoutesBehindThemTheirOwnPathParameters() throws Exception {
    start(null);
    for (String session : List.of("first-session", "second-session")) {
      // SockJS closes the connection after each poll: a new connection each time, or the pool may reuse a closing one.
      HttpResponse<Buffer> r = send(req(HttpMethod.POST, "127.0.0.1", "/eventbus/123/" + session + "/xhr")
          .putHeader("Connection", "close"));
      assertThat(r.bodyAsString()).as(session).isEqualTo("o\n");
    }
    assertThat(vertx.sharedData().getLocalMap("_vertx.sockjssessions").keySet())
        .containsExactlyInAnyOrder("first-session", "second-session");
  }

  @Test
  void withoutATokenOnlyLoopbackClientsMayWatchEveryRun() throws Exception {
    start(null);
    JsonObject local = send(req(HttpMethod.GET, "127.0.0.1", "/api/access")).bodyAsJsonObject();
    assertThat(local.getBoolean("token_required")).isFalse();
    assertThat(local.getBoolean("watch_all")).isTrue();
    assertThat(AccessGuard.mayWatchAll(REMOTE, false)).isFalse();
    assertThat(AccessGuard.mayWatchAll(SocketAddress.inetSocketAddress(40_000, "127.0.0.1"), false)).isTrue();
    assertThat(AccessGuard.mayWatchAll(SocketAddress.inetSocketAddress(40_000, "::1"), false)).isTrue();
  }

  // --- sizes ---------------------------------------------------------------------------------------

  @Test
  void bodiesAboveTheLimitGet413() throws Exception {
    start(null);
    Buffer big = Buffer.buffer(new JsonObject().put("question", "x".repeat(70_000)).encode());
    HttpResponse<Buffer> declared = req(HttpMethod.POST, "127.0.0.1", "/api/ask").putHeader("content-type", "application/json")
        .sendBuffer(big).await(10, TimeUnit.SECONDS);
    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.bodyAsJsonObject().getString("message")).contains("the limit is 65536 bytes");

    // Chunked (no Content-Length): read up to the limit, then refused.
    HttpClientAgent raw = vertx.createHttpClient();
    HttpClientResponse chunked = raw.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
            .setPort(http.actualPort()).setURI("/api/ask"))
        .compose(rq -> rq.setChunked(true).putHeader("content-type", "application/json").send(big))
        .await(10, TimeUnit.SECONDS);
    assertThat(chunked.statusCode()).isEqualTo(413);
    assertThat(held).isEmpty();
  }

  @Test
  void aQuestionAboveTheCapIsRefusedWithItsLengthAndTheLimit() throws Exception {
    start(null);
    HttpResponse<Buffer> r = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question("why ".repeat(600)))
        .await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(400);
    JsonObject b = r.bodyAsJsonObject();
    assertThat(b.getString("error_type")).isEqualTo("question_too_long");
    assertThat(b.getString("message")).isEqualTo(
        "the question is 2400 characters long; the limit is 2000. Ask something shorter (one question at a time) and try again.");
    assertThat(b.getInteger("length")).isEqualTo(2400);
    assertThat(held).isEmpty();
  }

  /** A body too large is one refusal whatever its size and however it is sent: 413 body_too_large. */
  @Test
  void everyTooLargeBodyIsTheSameRefusal() throws Exception {
    start(null);
    for (int size : new int[] {40_000, 70_000}) {
      Buffer big = Buffer.buffer(new JsonObject().put("question", "x".repeat(size)).encode());
      HttpResponse<Buffer> declared = req(HttpMethod.POST, "127.0.0.1", "/api/ask").putHeader("content-type", "application/json")
          .sendBuffer(big).await(10, TimeUnit.SECONDS);
      assertThat(declared.statusCode()).as("declared " + size).isEqualTo(413);
      assertThat(declared.bodyAsJsonObject().getString("error_type")).as("declared " + size).isEqualTo("body_too_large");
      HttpClientResponse chunked = vertx.createHttpClient().request(new RequestOptions().setMethod(HttpMethod.POST)
              .setHost("127.0.0.1").setPort(http.actualPort()).setURI("/api/ask"))
          .compose(rq -> rq.setChunked(true).putHeader("content-type", "application/json").send(big))
          .await(10, TimeUnit.SECONDS);
      assertThat(chunked.statusCode()).as("chunked " + size).isEqualTo(413);
    }
    assertThat(held).isEmpty();
  }

  /** A question's length is counted in characters: 2,000 emoji (4,000 UTF-16 units) are within the limit. */
  @Test
  void aQuestionsLengthIsCountedInCharacters() throws Exception {
    start(null);
    String emoji = "\uD83D\uDE00";
    // Escaped as \\uXXXX pairs, as some clients send them: 24,000 bytes, still within an ask's body.
    Future<HttpResponse<Buffer>> within = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question(emoji.repeat(2_000)));
    awaitHeld(1);
    assertThat(held.get(0).body().getString("question")).hasSize(4_000);
    HttpResponse<Buffer> over = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question(emoji.repeat(2_001)))
        .await(10, TimeUnit.SECONDS);
    assertThat(over.statusCode()).isEqualTo(400);
    assertThat(over.bodyAsJsonObject().getInteger("length")).isEqualTo(2_001);
    assertThat(over.bodyAsJsonObject().getString("message")).startsWith("the question is 2001 characters long");
    held.get(0).reply(new JsonObject());
    within.await(10, TimeUnit.SECONDS);
  }

  /** HEAD is answered wherever GET is: the same status and headers, no body. */
  @Test
  void headWorksWhereGetDoes() throws Exception {
    start(null);
    for (String path : List.of("/health", "/api/access", "/")) {
      HttpResponse<Buffer> get = send(req(HttpMethod.GET, "127.0.0.1", path));
      HttpResponse<Buffer> head = send(req(HttpMethod.HEAD, "127.0.0.1", path));
      assertThat(head.statusCode()).as(path).isEqualTo(get.statusCode()).isEqualTo(200);
      assertThat(head.getHeader("content-type")).as(path).isEqualTo(get.getHeader("content-type"));
      assertThat(head.body()).as(path).isNull();
    }
  }

  // --- fair share ----------------------------------------------------------------------------------

  @Test
  void oneClientCannotHaveMoreThanItsShareOfQuestionsInFlight() throws Exception {
    start(null);
    Future<HttpResponse<Buffer>> first = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question("one"));
    Future<HttpResponse<Buffer>> second = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question("two"));
    awaitHeld(2);
    HttpResponse<Buffer> third = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question("three"))
        .await(10, TimeUnit.SECONDS);
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.getHeader("Retry-After")).isEqualTo("2");
    assertThat(third.bodyAsJsonObject().getString("error_type")).isEqualTo("too_many_requests");
    assertThat(third.bodyAsJsonObject().getString("message")).contains("already has 2 questions in progress");
    assertThat(held).hasSize(2);

    // Another client (another address: a client bound to 127.0.0.2) is not held back by this one.
    WebClient elsewhere = WebClient.create(vertx, new WebClientOptions().setLocalAddress("127.0.0.2"));
    Future<HttpResponse<Buffer>> fromElsewhere = elsewhere.post(http.actualPort(), "127.0.0.1", "/api/ask")
        .sendJsonObject(question("elsewhere"));
    awaitHeld(3);

    // An answer frees a slot.
    held.get(0).reply(new JsonObject().put("answer", "1"));
    assertThat(first.await(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    Future<HttpResponse<Buffer>> fourth = req(HttpMethod.POST, "127.0.0.1", "/api/ask").sendJsonObject(question("four"));
    awaitHeld(4);
    for (Message<JsonObject> m : held.subList(1, held.size())) m.reply(new JsonObject().put("answer", "ok"));
    assertThat(second.await(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(fourth.await(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(fromElsewhere.await(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  void awaitHeld(int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (held.size() < n && System.currentTimeMillis() < deadline) Thread.sleep(20);
    assertThat(held).hasSize(n);
  }
}
