package dev.sqlagent.live;

import dev.sqlagent.contract.GraphEvent;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, item 4: browsers behind proxies that block WebSockets reach the bridge over SockJS's fallback
 * transports. A client opens xhr-streaming or eventsource, registers with xhr_send, and receives events.
 */
class SockJsFallbackTest {

  static RunningService service;
  static HttpClient http;
  static Vertx clients;
  static final java.util.List<HttpClient> OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void closeStreams() throws Exception {
    for (HttpClient c : OPEN) c.close().await(5, TimeUnit.SECONDS);
    OPEN.clear();
  }

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of("SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1"));
    clients = Vertx.vertx();
    http = clients.createHttpClient();
  }

  @AfterAll
  static void stop() throws Exception {
    clients.close().await(10, TimeUnit.SECONDS);
    service.close();
  }

  /** Opens a streaming transport and collects what arrives; completes when {@code expect} has been seen. */
  static CompletableFuture<String> open(HttpMethod method, String uri, String expect, StringBuilder seen) {
    CompletableFuture<String> done = new CompletableFuture<>();
    HttpClient client = clients.createHttpClient();
    OPEN.add(client);
    // Asked from the client's event loop, so the response handler is set in the same task that sees the response
    // (asked from this thread, the callback was a later task, and the "o" frame could arrive before the handler).
    clients.getOrCreateContext().runOnContext(onLoop -> client
        .request(new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(service.port()).setURI(uri))
        .compose(req -> req.send())
        .onSuccess((HttpClientResponse resp) -> {
          if (resp.statusCode() != 200) done.completeExceptionally(new AssertionError(uri + " -> " + resp.statusCode()));
          resp.handler(b -> {
            synchronized (seen) {
              seen.append(b.toString());
              seen.notifyAll();
              if (seen.indexOf(expect) >= 0) done.complete(seen.toString());
            }
          });
          resp.endHandler(v -> done.complete(seen.toString()));
        })
        .onFailure(done::completeExceptionally));
    return done;
  }

  static HttpResponse<Buffer> send(String base, JsonObject... frames) throws Exception {
    JsonArray batch = new JsonArray();
    for (JsonObject f : frames) batch.add(f.encode());
    return service.client.post(service.port(), "127.0.0.1", base + "/xhr_send")
        .putHeader("Content-Type", "text/plain;charset=UTF-8")
        .sendBuffer(Buffer.buffer(batch.encode())).await(10, TimeUnit.SECONDS);
  }

  /** Waits until the stream has carried {@code text}; fails with what it did carry. */
  static void awaitSeen(StringBuilder seen, String text, String what) throws InterruptedException {
    long until = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < until) {
      synchronized (seen) {
        if (seen.indexOf(text) >= 0) return;
        seen.wait(50);
      }
    }
    synchronized (seen) {
      throw new AssertionError(what + " never arrived; the stream carried: " + seen.substring(0, Math.min(400, seen.length())));
    }
  }

  void receivesEventsOver(HttpMethod method, String transport) throws Exception {
    String base = "/eventbus/123/" + UUID.randomUUID();
    StringBuilder seen = new StringBuilder();
    // The session opens ("o" frame) before anything is sent.
    CompletableFuture<String> opened = open(method, base + "/" + transport, "o", seen);
    try {
      opened.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      synchronized (seen) {
        throw new AssertionError(transport + " did not open; got " + seen.length() + " chars: "
            + seen.substring(0, Math.min(200, seen.length())));
      }
    }
    // The acknowledgement: a request sent after the register, answered (refused: no question) by the agent.
    // The bridge handles a session's frames in order, so once its reply is here the register has been done.
    String ack = UUID.randomUUID().toString();  // the bridge takes only UUID-sized reply addresses
    JsonObject register = new JsonObject().put("type", "register").put("address", Addresses.EVENTS);
    JsonObject acknowledge = new JsonObject().put("type", "send").put("address", Addresses.ASK).put("replyAddress", ack)
        .put("body", new JsonObject());
    // The session is in Vert.x's shared session map before its "o" frame is written, so no retry: a 404 here is a
    // lost session (once: a guard's regex took the session id's place, and every fallback client shared one session).
    HttpResponse<Buffer> reg = send(base, register, acknowledge);
    assertThat(reg.statusCode()).as("xhr_send after the stream carried: " + seen).isEqualTo(204);
    awaitSeen(seen, ack, "the reply acknowledging the register");
    String marker = "fallback-" + transport;
    service.vertx.eventBus().publish(Addresses.EVENTS, new GraphEvent("synthetic-fallback-01", 1, 0, marker,
        GraphEvent.STARTED, 1, "tool", null, null, null).toJson());
    awaitSeen(seen, marker, "the published event");
    synchronized (seen) {
      assertThat(seen.toString()).as(transport + " stream").contains(marker).doesNotContain("c[");
    }
  }

  @Test
  void xhrStreamingCarriesEvents() throws Exception {
    receivesEventsOver(HttpMethod.POST, "xhr_streaming");
  }

  @Test
  void eventSourceCarriesEvents() throws Exception {
    receivesEventsOver(HttpMethod.GET, "eventsource");
  }

  @Test
  void xhrSendIsNotAServerError() throws Exception {
    String base = "/eventbus/123/" + UUID.randomUUID();
    StringBuilder seen = new StringBuilder();
    open(HttpMethod.POST, base + "/xhr_streaming", "o", seen).get(10, TimeUnit.SECONDS);
    HttpResponse<Buffer> r = send(base, new JsonObject().put("type", "ping"));
    assertThat(r.statusCode()).isEqualTo(204);
  }
}
