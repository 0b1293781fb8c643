package dev.sqlagent.agent;

import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.Answer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.RecordJson;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.Node;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The typed messages against what the running service really sends: every answer, graph event and gate
 * reply reads into its record and writes back to the same JSON text; the keys are the ones outside clients
 * rely on; and each attempt is a check request to the gate (validate_sql), then, once it passed, a run request
 * for the same statement (execute_sql).
 */
class MessageContractTest {

  static Vertx vertx;
  static FakeModelServer model;
  /** Every request sent to the gate's address, in order. */
  static final List<JsonObject> gateRequests = new CopyOnWriteArrayList<>();
  /** The addresses of every other message of the gate's namespace (none: a check and a run are plain requests). */
  static final List<String> otherGateMessages = new CopyOnWriteArrayList<>();
  /** While set, the schema retrieval answers BUSY, as it does when every connection of its pool is in use. */
  static volatile boolean retrievalBusy;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    model = FakeModelServer.start();
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    TestDatabase db = TestDatabase.get();
    vertx.deployVerticle(new MainVerticle(db.config(env), db.target(), db.state(), false)).await(120, TimeUnit.SECONDS);
    vertx.eventBus().addOutboundInterceptor(ctx -> {
      if (retrievalBusy && Addresses.RETRIEVE.equals(ctx.message().address())) {
        ctx.message().fail(dev.sqlagent.bus.BusFailure.BUSY.code(), "the catalogue's connections are all in use");
        return;
      }
      if (Addresses.EXECUTE.equals(ctx.message().address()) && ctx.message().body() instanceof JsonObject body) {
        gateRequests.add(body.copy());
      } else if (ctx.message().address().startsWith("sqlagent.execution.")) {
        otherGateMessages.add(ctx.message().address());
      }
      ctx.next();
    });
  }

  @AfterAll
  static void stop() throws Exception {
    model.close();
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  @BeforeEach
  void reset() {
    model.reset();
    gateRequests.clear();
    otherGateMessages.clear();
    retrievalBusy = false;
  }

  static JsonObject ask(String question) throws Exception {
    return vertx.eventBus().<JsonObject>request(Addresses.ASK, evaluation(question, null))
        .await(60, TimeUnit.SECONDS).body();
  }

  /** An evaluation's question as the harness asks it; the raw reply is what these tests read. */
  static JsonObject evaluation(String question, Integer candidates) {
    return AskRequest.of(question, "eval").withOptions(RunOptions.evaluation(candidates, null)).toJson();
  }

  static List<JsonObject> events(String runId) throws Exception {
    JsonArray events = vertx.eventBus().<JsonObject>request(Addresses.RUN_EVENTS, new JsonObject().put("run_id", runId))
        .await(10, TimeUnit.SECONDS).body().getJsonArray("events");
    List<JsonObject> out = new ArrayList<>();
    for (Object e : events) out.add((JsonObject) e);
    return out;
  }

  static JsonObject gate(String sql, boolean run) throws Exception {
    return vertx.eventBus().<JsonObject>request(Addresses.EXECUTE, new JsonObject().put("sql", sql).put("run", run))
        .await(30, TimeUnit.SECONDS).body();
  }

  /** validate_sql / execute_sql events of one attempt as "node status". */
  static List<String> gateEvents(List<JsonObject> events, int attempt) {
    return events.stream().filter(e -> e.getInteger("attempt") == attempt)
        .filter(e -> e.getString("node").equals("validate_sql") || e.getString("node").equals("execute_sql"))
        .map(e -> e.getString("node") + " " + e.getString("status")).toList();
  }

  static void assertRoundTrips(JsonObject answer, List<JsonObject> events) {
    assertThat(Answer.fromJson(answer).toJson().encode()).isEqualTo(answer.encode());
    assertThat(Answer.fromJson(new JsonObject(answer.encode())).toJson().encode()).isEqualTo(answer.encode());
    for (JsonObject e : events) assertThat(GraphEvent.fromJson(e).toJson().encode()).isEqualTo(e.encode());
  }

  @Test
  void theAnswersKeysAreTheOnesClientsRelyOn() {
    assertThat(RecordJson.keys(Answer.class)).containsExactly("question", "answer", "sql", "attempts", "tables_used",
        "refused", "gave_up", "cancelled", "columns", "rows", "row_count", "truncated", "history", "tokens", "cost_usd",
        "latency_ms", "run_id", "mode", "model", "source", "user", "injected_fault", "cancel_ms", "candidates",
        "conversation_id", "answer_source", "verified_id", "verified_question", "verified_score", "worker", "error_type",
        "explanation", "trace_id", "clarification", "edited_from", "chosen_reading", "client", "sql_as_written", "metrics");
    assertThat(RecordJson.keys(GraphEvent.class)).containsExactly("run_id", "seq", "ts", "node", "status", "attempt",
        "kind", "data", "user", "conversation_id");
    assertThat(RecordJson.keys(Attempt.class)).containsExactly("attempt", "sql", "error_type", "message", "hint",
        "position", "strategy");
  }

  @Test
  void aRetrievalThatIsBusyEndsTheRunAsTheDatabaseBeingBusyNotAsRetrievalBroken() throws Exception {
    retrievalBusy = true;
    JsonObject answer = ask("How much revenue did we make?");
    assertThat(answer.getBoolean("gave_up")).isTrue();
    JsonArray history = answer.getJsonArray("history");
    assertThat(history.getJsonObject(history.size() - 1).getString("error_type")).isEqualTo("busy");
    assertThat(history.getJsonObject(history.size() - 1).getString("message")).contains("all in use");
    assertThat(model.requests()).isEmpty();
  }

  @Test
  void aRepairedAnswerAndItsEventsRoundTripAndEachAttemptIsACheckThenARun() throws Exception {
    model.enqueue(Reply.sql("SELECT sum(amount) AS revenue FROM bills"),
        Reply.sql("SELECT count(*) / (count(*) - count(*)) AS ratio FROM bills"),
        Reply.sql("SELECT status, count(*) AS n FROM bills GROUP BY status ORDER BY status"));
    JsonObject answer = ask("How many bills are there per status?");
    List<JsonObject> events = events(answer.getString("run_id"));
    assertRoundTrips(answer, events);
    // Every event names a node of the graph's one list (what the page, metrics and the CLI read).
    assertThat(events).allSatisfy(e -> assertThat(Node.fromWireName(e.getString("node"))).as(e.getString("node")).isPresent());

    Answer a = Answer.fromJson(answer);
    assertThat(a.outcome()).isEqualTo("answered");
    assertThat(a.attempts()).isEqualTo(3);
    assertThat(a.history()).extracting(Attempt::errorType).containsExactly("unknown_column", "division_by_zero");
    assertThat(a.rowCount()).isPositive();
    // validate_sql asks the gate to check the statement; execute_sql, once a check passed, to run that statement. A
    // refused check is the attempt's only request. Nothing else passes between them (no report, no acknowledgement).
    assertThat(gateRequests).extracting(r -> r.getBoolean("run")).containsExactly(false, false, true, false, true);
    // Each check is held for its run, which continues in the check's transaction; a run holds nothing.
    assertThat(gateRequests).extracting(r -> r.getBoolean("hold")).containsExactly(true, true, null, true, null);
    assertThat(gateRequests).allSatisfy(r -> assertThat(r.getString("run_id")).isEqualTo(a.runId()));
    assertThat(gateRequests.get(2).getString("sql")).isEqualTo(gateRequests.get(1).getString("sql"));
    assertThat(gateRequests.get(4).getString("sql")).isEqualTo(gateRequests.get(3).getString("sql"));
    assertThat(otherGateMessages).isEmpty();

    // A refusal by the plan is validate_sql's; an error while running is execute_sql's, after a passed check.
    assertThat(gateEvents(events, 1)).containsExactly("validate_sql started", "validate_sql failed");
    assertThat(gateEvents(events, 2)).containsExactly("validate_sql started", "validate_sql finished",
        "execute_sql started", "execute_sql failed");
    assertThat(gateEvents(events, 3)).containsExactly("validate_sql started", "validate_sql finished",
        "execute_sql started", "execute_sql finished");
    JsonObject validated = events.stream().filter(e -> e.getInteger("attempt") == 3 && e.getString("node").equals("validate_sql")
        && e.getString("status").equals("finished")).findFirst().orElseThrow().getJsonObject("data");
    assertThat(validated.fieldNames()).containsExactlyInAnyOrder("sql", "static_check");
    assertThat(validated.getString("sql")).isEqualTo(a.sql()).endsWith("LIMIT 200");
    assertThat(validated.getString("static_check")).isEqualTo("parsed");
    JsonObject executed = events.stream().filter(e -> e.getInteger("attempt") == 3 && e.getString("node").equals("execute_sql")
        && e.getString("status").equals("finished")).findFirst().orElseThrow().getJsonObject("data");
    assertThat(executed.fieldNames()).containsExactlyInAnyOrder("sql", "row_count", "truncated", "elapsed_ms", "columns");
    JsonObject failed = events.stream().filter(e -> e.getInteger("attempt") == 2 && e.getString("node").equals("execute_sql")
        && e.getString("status").equals("failed")).findFirst().orElseThrow().getJsonObject("data");
    assertThat(failed.getString("error_type")).isEqualTo("division_by_zero");
  }

  @Test
  void candidatesAndTheEmptyAggregateProbeAreOneGateRequestEachAndRoundTrip() throws Exception {
    model.honourN(true).enqueue(
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'paid'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'paid'"),
        Reply.sql("SELECT count(*) FROM bills"));
    model.enqueue(Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(bill_id) FROM bills WHERE status = 'PAID'"));
    JsonObject answer = vertx.eventBus().<JsonObject>request(Addresses.ASK, evaluation("How many bills were paid?", 3))
        .await(60, TimeUnit.SECONDS).body();
    List<JsonObject> events = events(answer.getString("run_id"));
    assertRoundTrips(answer, events);

    Answer a = Answer.fromJson(answer);
    assertThat(a.candidates()).isNotNull();
    // Three candidates, the relaxed probe of the winning zero count, then the repair's three candidates.
    assertThat(a.attempts()).isEqualTo(2);
    assertThat(gateRequests).hasSize(7).allSatisfy(r -> assertThat(r.getBoolean("run")).isTrue());
    assertThat(events).filteredOn(e -> e.getString("node").equals("inspect_result") && e.getString("status").equals("finished")
        && "empty_aggregate".equals(e.getJsonObject("data").getString("probe")))
        .extracting(e -> e.getJsonObject("data").getString("verdict")).containsExactly("filter_too_strict");
    assertThat(a.history()).extracting(Attempt::errorType).contains("empty_filter");
    assertThat(a.sql()).contains("'PAID'");
  }

  @Test
  void aWriteIsRefusedFromTheGatesFlagAndAGiveUpRoundTrips() throws Exception {
    model.enqueue(Reply.sql("/* tidy up */ DELETE FROM bills WHERE status = 'CANCELLED'"), Reply.sql("SELECT 1"));
    JsonObject refused = ask("Delete the cancelled bills");
    assertRoundTrips(refused, events(refused.getString("run_id")));
    assertThat(Answer.fromJson(refused).outcome()).isEqualTo("refused");
    assertThat(gateRequests).hasSize(1);

    model.reset();
    gateRequests.clear();
    model.enqueue(Reply.sql("SELECT amount FROM bills"), Reply.sql("SELECT amt FROM bills"), Reply.sql("SELECT total FROM bills"));
    JsonObject gaveUp = ask("What is the total of every bill?");
    assertRoundTrips(gaveUp, events(gaveUp.getString("run_id")));
    assertThat(Answer.fromJson(gaveUp).outcome()).isEqualTo("gave_up");
    assertThat(Answer.fromJson(gaveUp).history()).hasSize(3);
    assertThat(gateRequests).hasSize(3);
  }

  @Test
  void everyGateReplyRoundTripsAndNamesEachStage() throws Exception {
    JsonObject ran = gate("SELECT bill_id FROM bills ORDER BY bill_id", true);
    JsonObject checked = gate("SELECT bill_id FROM bills ORDER BY bill_id LIMIT 5", false);
    JsonObject staticRefusal = gate("UPDATE bills SET status = 'PAID'", true);
    JsonObject planError = gate("SELECT nope FROM bills", true);
    JsonObject runError = gate("SELECT count(*) / (count(*) - count(*)) FROM bills", true);
    for (JsonObject reply : List.of(ran, checked, staticRefusal, planError, runError)) {
      assertThat(GateReply.fromJson(reply).toJson().encode()).isEqualTo(reply.encode());
      assertThat(GateReply.fromJson(new JsonObject(reply.encode())).toJson().encode()).isEqualTo(reply.encode());
    }

    assertThat(ran.fieldNames()).containsExactly("ok", "sql", "columns", "rows", "row_count", "truncated", "elapsed_ms",
        "plan_cost", "static_check", "stages", "write_refused");
    assertThat(ran.getJsonObject("stages").fieldNames()).containsExactly("static_check", "limit", "plan", "execution");
    assertThat(ran.getJsonObject("stages").getJsonObject("limit").getBoolean("capped")).isTrue();
    assertThat(ran.getJsonObject("stages").getJsonObject("execution").getInteger("row_count")).isEqualTo(200);
    assertThat(checked.fieldNames()).containsExactly("ok", "sql", "plan_cost", "static_check", "stages", "write_refused");
    assertThat(checked.getJsonObject("stages").fieldNames()).containsExactly("static_check", "limit", "plan");

    assertThat(staticRefusal.fieldNames()).containsExactly("ok", "error_type", "message", "hint", "sqlstate", "position",
        "repairable", "sql", "stages", "write_refused");
    assertThat(staticRefusal.getBoolean("write_refused")).isTrue();
    assertThat(GateReply.fromJson(staticRefusal).failedStage()).contains(GateReply.STATIC_CHECK);
    assertThat(GateReply.fromJson(planError).failedStage()).contains(GateReply.PLAN);
    assertThat(planError.getString("error_type")).isEqualTo("unknown_column");
    assertThat(planError.getBoolean("write_refused")).isFalse();
    assertThat(GateReply.fromJson(runError).failedStage()).contains(GateReply.EXECUTION);
    assertThat(GateReply.fromJson(runError).passedChecks()).isTrue();
    assertThat(GateReply.fromJson(runError).boundedSql()).endsWith("LIMIT 200");
  }
}
