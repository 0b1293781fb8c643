package dev.sqlagent.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The query log keeps who asked from where: the address a trusted proxy forwarded (127.0.0.2 is the proxy here), and
 * for anyone else the socket's own address, whatever X-Forwarded-For they send. Over HTTP and over /ws.
 */
class ClientAddressLogTest {

  static Vertx vertx;
  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS n FROM customers"));
    service = RunningService.start(model, Map.of("SQLAGENT_TRUSTED_PROXIES", "127.0.0.2/32",
        "SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
    if (service != null) service.close();
    if (model != null) model.close();
  }

  static JsonObject ask(String from, String forwardedFor) throws Exception {
    WebClient c = WebClient.create(vertx, new WebClientOptions().setLocalAddress(from));
    try {
      HttpResponse<Buffer> r = c.post(service.port(), "127.0.0.1", "/api/ask").putHeader("Content-Type", "application/json")
          .putHeader("X-Forwarded-For", forwardedFor)
          .sendJsonObject(new JsonObject().put("question", "How many customers?")).await(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
      return r.bodyAsJsonObject();
    } finally {
      c.close();
    }
  }

  /** The client address of the run's query-log row, once the row is written. */
  static String loggedClient(String runId) throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement s = c.prepareStatement("SELECT client_addr FROM agent_query_log WHERE run_id = ?")) {
      s.setString(1, runId);
      while (System.currentTimeMillis() < until) {
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next()) return rs.getString(1);
        }
        Thread.sleep(50);
      }
    }
    throw new AssertionError("no query-log row for run " + runId);
  }

  @Test
  void overHttpTheTrustedProxysForwardedAddressIsLoggedAndAForgedOneIsNot() throws Exception {
    JsonObject viaProxy = ask("127.0.0.2", "198.51.100.7");
    assertThat(viaProxy.getString("client")).isEqualTo("198.51.100.7");
    assertThat(loggedClient(viaProxy.getString("run_id"))).isEqualTo("198.51.100.7");

    JsonObject forged = ask("127.0.0.3", "198.51.100.8");
    assertThat(forged.getString("client")).isEqualTo("127.0.0.3");
    assertThat(loggedClient(forged.getString("run_id"))).isEqualTo("127.0.0.3");
  }

  @Test
  void overTheWebSocketTheAddressSeenAtTheUpgradeIsLogged() throws Exception {
    var wsc = vertx.createWebSocketClient(new WebSocketClientOptions().setLocalAddress("127.0.0.2"));
    List<JsonObject> frames = new CopyOnWriteArrayList<>();
    WebSocket ws = wsc.connect(new WebSocketConnectOptions().setPort(service.port()).setHost("127.0.0.1").setURI("/ws")
        .addHeader("X-Forwarded-For", "198.51.100.9")).await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> frames.add(new JsonObject(t)));
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", "How many customers?").encode());
    long until = System.currentTimeMillis() + 60_000;
    JsonObject answer = null;
    while (answer == null && System.currentTimeMillis() < until) {
      answer = frames.stream().filter(f -> "answer".equals(f.getString("type"))).findFirst().orElse(null);
      Thread.sleep(20);
    }
    assertThat(answer).as("the answer frame").isNotNull();
    ws.close().await(10, TimeUnit.SECONDS);
    assertThat(loggedClient(answer.getString("run_id"))).isEqualTo("198.51.100.9");
  }
}
