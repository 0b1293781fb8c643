package dev.sqlagent.live;

import static dev.sqlagent.live.LiveClient.type;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an answer's SQL does in words is not on the answer's path: the answer goes out without it, and the run's
 * explain_sql event brings it after the answer's, to the run's watchers and to the WebSocket client that asked (after
 * its answer frame); a refusal has nothing to explain.
 */
class ExplanationAfterAnswerTest {

  static final String SQL = "SELECT status, count(*) AS n FROM bills WHERE total_amt > 10 GROUP BY status ORDER BY n DESC";

  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    service = RunningService.start(env);
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
  }

  @Test
  void theAnswerGoesOutFirstAndExplainSqlFollowsIt() throws Exception {
    model.reset().respondWith(req -> Reply.sql(SQL));
    JsonObject reply = service.vertx.eventBus().<JsonObject>request(Addresses.ASK,
            AskRequest.of("How many bills above 10 per status?", "http")
                .withOptions(new RunOptions(true, true, true, null, null)).toJson())
        .await(60, TimeUnit.SECONDS).body();
    Answer answer = Answer.fromJson(reply);
    assertThat(answer.outcome()).isEqualTo("answered");
    assertThat(answer.explanation()).as("the answer does not wait for the explanation").isNull();
    assertThat(reply.containsKey("explanation")).isFalse();

    List<GraphEvent> events = eventsUntilExplained(answer.runId());
    GraphEvent answered = events.stream().filter(e -> e.node().equals("answer") && e.ended()).findFirst().orElseThrow();
    GraphEvent explained = events.get(events.size() - 1);
    assertThat(explained.node()).isEqualTo("explain_sql");
    assertThat(explained.status()).isEqualTo(GraphEvent.FINISHED);
    assertThat(explained.seq()).isGreaterThan(answered.seq());
    assertThat(explained.data().getString("sql")).isEqualTo(answer.sql());
    assertThat(explained.data().getString("explanation")).contains("Reads bills.").contains("Groups by status.")
        .contains("Sorts by n descending.");

    // A refusal has nothing to explain.
    model.reset().respondWith(req -> Reply.refusal("There is no table of the weather."));
    Answer refused = Answer.fromJson(service.vertx.eventBus().<JsonObject>request(Addresses.ASK,
            AskRequest.of("What will the weather be?", "http").withOptions(new RunOptions(true, true, true, null, null))
                .toJson())
        .await(60, TimeUnit.SECONDS).body());
    assertThat(refused.outcome()).isEqualTo("refused");
    Thread.sleep(500);
    assertThat(events(refused.runId())).extracting(GraphEvent::node).doesNotContain("explain_sql");
  }

  @Test
  void theClientThatAskedGetsTheExplanationAfterItsAnswerFrame() throws Exception {
    model.reset().respondWith(req -> Reply.sql(SQL));
    try (LiveClient c = LiveClient.connect(service.vertx, service.port())) {
      c.send(new JsonObject().put("type", "ask").put("question", "How many bills above 10 per status?")
          .put("mode", "agent"));
      List<JsonObject> frames = c.until(f -> "event".equals(f.getString("type"))
          && "explain_sql".equals(f.getString("node")), 60);
      List<String> kinds = frames.stream().map(f -> f.getString("type") + ":" + f.getString("node", "")).toList();
      int answerFrame = kinds.indexOf("answer:");
      int answerEvent = kinds.indexOf("event:answer");
      assertThat(answerEvent).as(kinds.toString()).isNotNegative().isLessThan(answerFrame);
      assertThat(answerFrame).as("the explanation comes after the answer frame: " + kinds).isEqualTo(kinds.size() - 2);
      JsonObject explained = frames.get(frames.size() - 1);
      assertThat(explained.getJsonObject("data").getString("explanation")).contains("Reads bills.");
      assertThat(frames.get(answerFrame).containsKey("explanation")).isFalse();
      assertThat(frames.stream().filter(type("answer")).count()).isEqualTo(1);
    }
  }

  static List<GraphEvent> eventsUntilExplained(String runId) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      List<GraphEvent> events = events(runId);
      if (!events.isEmpty() && events.get(events.size() - 1).node().equals("explain_sql")) return events;
      if (System.nanoTime() > deadline) throw new AssertionError("no explain_sql event: " + events);
      Thread.sleep(50);
    }
  }

  static List<GraphEvent> events(String runId) throws Exception {
    return service.vertx.eventBus().<JsonObject>request(Addresses.RUN_EVENTS, new JsonObject().put("run_id", runId))
        .await(10, TimeUnit.SECONDS).body().getJsonArray("events").stream()
        .map(o -> GraphEvent.fromJson((JsonObject) o)).toList();
  }
}
