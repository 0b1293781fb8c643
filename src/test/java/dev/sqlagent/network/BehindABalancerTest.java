package dev.sqlagent.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The service behind a load balancer: a tiny HTTP proxy in the test, connecting from 127.0.0.2 (the only trusted
 * proxy), adds each user's address to X-Forwarded-For and says the browser asked for https://agent.example. Twenty
 * users, each connecting to the balancer from an address of their own, each get their own per-client limit; a client
 * connecting directly from an untrusted address (127.0.0.3) gains nothing by forging those headers.
 */
class BehindABalancerTest {

  static final String SQL = "SELECT count(*) AS n FROM customers";
  static final int USERS = 20;
  static final int PER_CLIENT = 2;

  static Vertx vertx;
  static FakeModelServer model;
  static RunningService service;
  static HttpServer balancer;
  static HttpClient upstream;
  static final List<WebClient> clients = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    // Every question is held at the model: it keeps its client's slot until the test ends.
    model.respondWith(req -> Reply.sql(SQL).delayed(170_000));
    service = RunningService.start(model, Map.of("SQLAGENT_TRUSTED_PROXIES", "127.0.0.2/32, fd00::/8",
        "SQLAGENT_ASK_PER_CLIENT", String.valueOf(PER_CLIENT), "SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = Vertx.vertx();
    upstream = vertx.createHttpClient(new HttpClientOptions().setLocalAddress("127.0.0.2"),
        new io.vertx.core.http.PoolOptions().setHttp1MaxSize(200));
    balancer = vertx.createHttpServer().requestHandler(BehindABalancerTest::forward).listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
  }

  /** The balancer: the request as it came, plus the client's address and the outside scheme and host. */
  static void forward(HttpServerRequest in) {
    in.pause();
    String prior = in.getHeader("X-Forwarded-For");
    String client = in.remoteAddress().host();
    upstream.request(new RequestOptions().setMethod(in.method()).setHost("127.0.0.1").setPort(service.port()).setURI(in.uri()))
        .compose(out -> {
          out.headers().setAll(in.headers());
          out.putHeader("X-Forwarded-For", prior == null ? client : prior + ", " + client);
          out.putHeader("X-Forwarded-Proto", "https");
          out.putHeader("X-Forwarded-Host", "agent.example");
          in.resume();
          return out.send(in);
        })
        .onSuccess(res -> {
          in.response().setStatusCode(res.statusCode());
          in.response().headers().setAll(res.headers());
          res.pipeTo(in.response());
        })
        .onFailure(e -> in.response().setStatusCode(502).end(e.toString()));
  }

  @AfterAll
  static void stop() throws Exception {
    clients.forEach(WebClient::close);
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
    if (service != null) service.close();
    if (model != null) model.close();
  }

  static WebClient clientFrom(String localAddress) {
    WebClient c = WebClient.create(vertx, new WebClientOptions().setLocalAddress(localAddress),
        new io.vertx.core.http.PoolOptions().setHttp1MaxSize(10));
    clients.add(c);
    return c;
  }

  static Future<HttpResponse<Buffer>> ask(WebClient c, int port, String forwardedFor) {
    var r = c.post(port, "127.0.0.1", "/api/ask").putHeader("Content-Type", "application/json");
    if (forwardedFor != null) r.putHeader("X-Forwarded-For", forwardedFor);
    return r.sendJsonObject(new JsonObject().put("question", "How many customers?"));
  }

  static void waitForModelRequests(int n) throws InterruptedException {
    long until = System.currentTimeMillis() + 120_000;
    while (model.requestCount() < n && System.currentTimeMillis() < until) Thread.sleep(50);
    assertThat(model.requestCount()).as("questions held at the model").isGreaterThanOrEqualTo(n);
  }

  @Test
  void twentyUsersBehindOneBalancerEachGetTheirOwnLimitAndForgedHeadersChangeNothing() throws Exception {
    int port = balancer.actualPort();
    int before = model.requestCount();
    List<WebClient> users = new ArrayList<>();
    for (int i = 1; i <= USERS; i++) users.add(clientFrom("127.0.1." + i));
    // Each user asks as many questions as one client may have in flight: all are admitted and reach the model.
    List<Future<HttpResponse<Buffer>>> held = new ArrayList<>();
    for (WebClient u : users) {
      for (int q = 0; q < PER_CLIENT; q++) held.add(ask(u, port, null));
    }
    waitForModelRequests(before + USERS * PER_CLIENT);
    for (Future<HttpResponse<Buffer>> f : held) {
      assertThat(f.isComplete() ? f.result().statusCode() : -1).as("a held question is still in flight, not refused").isEqualTo(-1);
    }
    // One more from each user: refused for that user alone, naming the limit.
    for (WebClient u : users) {
      HttpResponse<Buffer> more = ask(u, port, null).await(60, TimeUnit.SECONDS);
      assertThat(more.statusCode()).as(more.bodyAsString()).isEqualTo(429);
      assertThat(more.bodyAsJsonObject().getString("message")).contains("already has " + PER_CLIENT);
    }
    // A user who forges an address of their own in front of the balancer's entry is still themselves: the balancer
    // appended the real address, the right-most untrusted one wins.
    HttpResponse<Buffer> forgedViaBalancer = ask(users.get(0), port, "198.51.100.99").await(60, TimeUnit.SECONDS);
    assertThat(forgedViaBalancer.statusCode()).isEqualTo(429);

    // Directly from an untrusted address: the headers are ignored, every question counts against 127.0.0.3.
    WebClient forger = clientFrom("127.0.0.3");
    int now = model.requestCount();
    List<Future<HttpResponse<Buffer>>> forged = new ArrayList<>();
    for (int q = 0; q < PER_CLIENT; q++) forged.add(ask(forger, service.port(), "203.0.113." + (q + 1)));
    waitForModelRequests(now + PER_CLIENT);
    HttpResponse<Buffer> third = ask(forger, service.port(), "203.0.113.77").await(60, TimeUnit.SECONDS);
    assertThat(third.statusCode()).as("a forged X-Forwarded-For from an untrusted peer gains no slot").isEqualTo(429);
  }

  @Test
  void theOriginCheckBelievesTheBalancerAndNoOneElse() throws Exception {
    JsonObject notAQuery = new JsonObject();
    // Through the balancer, which says the browser asked for https://agent.example: that origin is the service's own.
    HttpResponse<Buffer> viaBalancer = clientFrom("127.0.1.99").post(balancer.actualPort(), "127.0.0.1", "/api/query")
        .putHeader("Content-Type", "application/json").putHeader("Origin", "https://agent.example")
        .sendJsonObject(notAQuery).await(60, TimeUnit.SECONDS);
    assertThat(viaBalancer.statusCode()).as(viaBalancer.bodyAsString()).isNotEqualTo(403);
    // Another site's page through the same balancer is still refused.
    HttpResponse<Buffer> otherSite = clientFrom("127.0.1.98").post(balancer.actualPort(), "127.0.0.1", "/api/query")
        .putHeader("Content-Type", "application/json").putHeader("Origin", "https://evil.example")
        .sendJsonObject(notAQuery).await(60, TimeUnit.SECONDS);
    assertThat(otherSite.statusCode()).isEqualTo(403);
    // Directly, with the balancer's headers forged: refused.
    HttpResponse<Buffer> forged = clientFrom("127.0.0.3").post(service.port(), "127.0.0.1", "/api/query")
        .putHeader("Content-Type", "application/json").putHeader("Origin", "https://agent.example")
        .putHeader("X-Forwarded-Host", "agent.example").putHeader("X-Forwarded-Proto", "https")
        .putHeader("Forwarded", "for=1.2.3.4;host=agent.example;proto=https")
        .sendJsonObject(notAQuery).await(60, TimeUnit.SECONDS);
    assertThat(forged.statusCode()).isEqualTo(403);
    assertThat(forged.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden_origin");
  }
}
