package dev.sqlagent.cancel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.WsClients;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Steps are published when they happen, not when the gate's one request has ended: against the real database, a
 * statement that runs for three seconds (until its statement timeout) shows {@code execute_sql} started while it runs,
 * and a cancel sent at that moment ends the run as cancelled.
 */
class LiveStepsTest {

  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql(CancelTest.ENDLESS));
    Map<String, String> env = CancelTest.endlessEnv(model);
    env.put("SQLAGENT_STATEMENT_TIMEOUT_MS", "3000");  // the statement runs three seconds, then times out
    env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "120000");
    service = RunningService.start(env);
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    if (model != null) model.close();
  }

  /** A frame and when it arrived. */
  record Seen(long atMs, JsonObject frame) {
    boolean is(String node, String status) {
      return "event".equals(frame.getString("type")) && node.equals(frame.getString("node"))
          && status.equals(frame.getString("status"));
    }
  }

  static WebSocket ask(List<Seen> seen, String question) throws Exception {
    WebSocket ws = WsClients.of(service.vertx)
        .connect(new WebSocketConnectOptions().setPort(service.port()).setHost("127.0.0.1").setURI("/ws"))
        .await(10, TimeUnit.SECONDS);
    ws.textMessageHandler(t -> seen.add(new Seen(System.currentTimeMillis(), new JsonObject(t))));
    ws.writeTextMessage(new JsonObject().put("type", "ask").put("question", question).encode());
    return ws;
  }

  static Seen await(List<Seen> seen, String node, String status, long withinMs) throws Exception {
    long until = System.currentTimeMillis() + withinMs;
    while (System.currentTimeMillis() < until) {
      for (Seen s : seen) if (s.is(node, status)) return s;
      Thread.sleep(5);
    }
    throw new AssertionError("no " + node + " " + status + " in " + seen.stream().map(Seen::frame).toList());
  }

  @Test
  void executeSqlStartsWhenTheStatementIsSentNotWhenItHasEnded() throws Exception {
    List<Seen> seen = new CopyOnWriteArrayList<>();
    WebSocket ws = ask(seen, "How many pairs of numbers are there, live?");
    Seen validated = await(seen, "validate_sql", "finished", 20_000);
    Seen started = await(seen, "execute_sql", "started", 20_000);
    // While execute_sql is announced, the statement is running in PostgreSQL.
    CancelTest.awaitActive(1, 2_000);
    Seen ended = await(seen, "execute_sql", "failed", 20_000);
    assertThat(ended.frame().getJsonObject("data").getString("error_type")).isEqualTo("timeout");
    assertThat(validated.atMs()).isLessThanOrEqualTo(started.atMs());
    assertThat(ended.atMs() - started.atMs()).as("execute_sql started, then the three-second statement ended")
        .isGreaterThanOrEqualTo(2_500);
    // In order, numbered without a gap.
    List<Long> seqs = seen.stream().filter(s -> "event".equals(s.frame().getString("type")))
        .map(s -> s.frame().getLong("seq")).toList();
    for (int i = 1; i < seqs.size(); i++) assertThat(seqs.get(i)).isEqualTo(seqs.get(i - 1) + 1);
    ws.close();
  }

  @Test
  void aCancelSentWhileTheStatementRunsEndsTheRunAsCancelled() throws Exception {
    List<Seen> seen = new CopyOnWriteArrayList<>();
    WebSocket ws = ask(seen, "How many pairs of numbers are there, stopped?");
    Seen started = await(seen, "execute_sql", "started", 20_000);
    String runId = started.frame().getString("run_id");
    ws.writeTextMessage(new JsonObject().put("type", "cancel").put("run_id", runId).encode());
    Seen cancelled = await(seen, "cancelled", "finished", 10_000);
    assertThat(cancelled.atMs() - started.atMs()).as("stopped before the statement would have ended").isLessThan(2_500);
    JsonObject answer = cancelled.frame().getJsonObject("data");
    assertThat(answer.getBoolean("cancelled")).isTrue();
    // The cancel reached the first attempt's statement while it ran: it neither finished nor timed out.
    assertThat(answer.getInteger("attempts")).isEqualTo(1);
    assertThat(answer.getJsonArray("history")).isEmpty();
    assertThat(seen).noneMatch(s -> s.is("execute_sql", "finished") || s.is("execute_sql", "failed"));
    CancelTest.awaitActive(0, 2_000);
    ws.close();
  }
}
