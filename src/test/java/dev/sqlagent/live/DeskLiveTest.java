package dev.sqlagent.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Edit and re-run, and choosing a reading, over the live edges: {@code /ws} ({@code rerun} and {@code choose}
 * messages, streamed like an ask) and the SockJS bridge ({@code sqlagent.agent.rerun}, the source forced).
 */
class DeskLiveTest {

  static FakeModelServer model;
  static RunningService service;
  static Vertx vertx;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS customers FROM customers"));
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
  }

  static JsonObject asked(String question) throws Exception {
    return new AgentClient(vertx, 60_000).ask(AskRequest.of(question, "http")).await(60, TimeUnit.SECONDS).toJson();
  }

  @Test
  void overTheWebSocketAnEditIsAcceptedStreamedAndAnswered() throws Exception {
    JsonObject first = asked("How many customers are there?");
    try (LiveClient c = LiveClient.connect(vertx, new WebSocketConnectOptions().setHost("127.0.0.1")
        .setPort(service.port()).setURI("/ws"))) {
      c.send(new JsonObject().put("type", "rerun").put("run_id", first.getString("run_id")).put("sql", "SELECT 7 AS seven"));
      JsonObject accepted = c.next(30);
      assertThat(accepted.getString("type")).as(accepted.encode()).isEqualTo("accepted");
      assertThat(accepted.getString("edited_from")).isEqualTo(first.getString("run_id"));
      String runId = accepted.getString("run_id");
      int events = 0;
      JsonObject answer;
      while (true) {
        JsonObject f = c.next(60);
        if ("answer".equals(f.getString("type"))) {
          answer = f;
          break;
        }
        assertThat(f.getString("type")).as(f.encode()).isEqualTo("event");
        assertThat(f.getString("run_id")).isEqualTo(runId);
        events++;
      }
      assertThat(events).isGreaterThanOrEqualTo(4);
      assertThat(answer.getString("edited_from")).isEqualTo(first.getString("run_id"));
      assertThat(answer.getString("source")).isEqualTo("ws");
      assertThat(answer.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo("7");

      // Bad input: an error frame with the HTTP edge's words; the socket stays open. (The edited run's explain_sql
      // event, which follows its answer, may come before it.)
      c.send(new JsonObject().put("type", "rerun").put("run_id", first.getString("run_id")).put("sql", ""));
      JsonObject empty = nextNotAnEvent(c);
      assertThat(empty.getString("type")).isEqualTo("error");
      assertThat(empty.getString("message")).contains("sql must be a non-empty string");
      c.send(new JsonObject().put("type", "choose").put("run_id", first.getString("run_id")).put("reading", 1));
      JsonObject accepted2 = nextNotAnEvent(c);
      assertThat(accepted2.getString("type")).isEqualTo("accepted");
      JsonObject notAsked = nextNotAnEvent(c);
      assertThat(notAsked.getString("type")).as(notAsked.encode()).isEqualTo("error");
      assertThat(notAsked.getString("message")).contains("did not ask which reading was meant");
    }
  }

  /** The next frame that is not a run's event. */
  static JsonObject nextNotAnEvent(LiveClient c) throws Exception {
    while (true) {
      JsonObject f = c.next(30);
      if (!"event".equals(f.getString("type"))) return f;
    }
  }

  @Test
  void throughTheBridgeAnEditRunsAsTheSocketsAndFromTheBridge() throws Exception {
    JsonObject first = asked("How many customers do we have?");
    try (LiveClient c = LiveClient.connect(vertx, new WebSocketConnectOptions().setHost("127.0.0.1")
        .setPort(service.port()).setURI("/eventbus/websocket"))) {
      String runId = "bridge-rerun-" + System.nanoTime();
      c.send(WebSocketBridgeTest.frame("register", Addresses.events(runId)));
      c.send(WebSocketBridgeTest.frame("send", Addresses.RERUN).put("replyAddress", "reply-1").put("body", new JsonObject()
          .put("run_id", first.getString("run_id")).put("sql", "SELECT 8 AS eight").put("new_run_id", runId)
          .put("source", "http")));
      JsonObject reply;
      int events = 0;
      while (true) {
        JsonObject f = c.next(60);
        if ("reply-1".equals(f.getString("address"))) {
          reply = f.getJsonObject("body");
          break;
        }
        assertThat(f.getString("address")).isEqualTo(Addresses.events(runId));
        events++;
      }
      assertThat(events).isPositive();
      assertThat(reply.getString("run_id")).isEqualTo(runId);
      assertThat(reply.getString("source")).as("overwritten by the bridge").isEqualTo("eventbus");
      assertThat(reply.getString("edited_from")).isEqualTo(first.getString("run_id"));
      assertThat(reply.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo("8");
    }
  }
}
