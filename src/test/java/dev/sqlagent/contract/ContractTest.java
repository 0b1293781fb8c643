package dev.sqlagent.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.catalogue.CatalogueVersion;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.users.User;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The agent path's messages on the wire, and the typed clients over a real event bus. */
class ContractTest {

  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  @Test
  void aPersonsQuestionKeepsTodaysWire() {
    User ann = new User("ann", "Ann", false, "analyst");
    AskRequest ask = new AskRequest("How many bills?", null, "http", "run-1", ann, "c-9", null);
    JsonObject wire = ask.toJson();
    assertThat(wire.fieldNames()).containsExactlyInAnyOrder("question", "mode", "source", "run_id", "user", "conversation_id");
    assertThat(wire.getString("mode")).isEqualTo("agent");
    assertThat(wire.getJsonObject("user")).isEqualTo(ann.toJson());
    assertThat(AskRequest.fromJson(wire)).isEqualTo(ask.withOptions(RunOptions.ASKED));
  }

  @Test
  void anEvaluationsOptionsAreExplicit() {
    AskRequest ask = AskRequest.of(" q7 question ", "eval").withOptions(RunOptions.evaluation(3, "q7"));
    JsonObject wire = ask.toJson();
    assertThat(wire.getBoolean("lookup_verified")).isFalse();
    assertThat(wire.getBoolean("standalone")).isTrue();
    assertThat(wire.getBoolean("self_paced")).isTrue();
    assertThat(wire.getInteger("candidates")).isEqualTo(3);
    assertThat(wire.getBoolean("inject_fault")).isTrue();
    assertThat(wire.getString("fault_key")).isEqualTo("q7");
    RunOptions back = AskRequest.fromJson(wire).options();
    assertThat(back).isEqualTo(RunOptions.evaluation(3, "q7"));
    // The label alone switches nothing.
    assertThat(AskRequest.fromJson(new JsonObject().put("question", "q").put("source", "eval")).options())
        .isEqualTo(RunOptions.ASKED);
    // A fault without its key is keyed by the question, as before.
    assertThat(AskRequest.fromJson(new JsonObject().put("question", " q ").put("inject_fault", true)).options().faultKey())
        .isEqualTo("q");
  }

  @Test
  void gateRequestsAreCheckedAsTheGateDid() {
    GateRequest r = GateRequest.run("SELECT 1").inRun("run-1").withRowCap(50).asRole("analyst").seeingSensitive(true);
    assertThat(GateRequest.fromJson(r.toJson())).isEqualTo(r);
    assertThat(GateRequest.check("SELECT 1").toJson()).isEqualTo(new JsonObject().put("sql", "SELECT 1").put("run", false));
    assertThat(GateRequest.fromJson(new JsonObject().put("sql", "SELECT 1")).run()).isTrue();
    assertThatThrownBy(() -> GateRequest.fromJson(new JsonObject().put("sql", 1))).hasMessage("\"sql\" must be a string");
    assertThatThrownBy(() -> GateRequest.fromJson(new JsonObject().put("sql", "x").put("row_cap", 0)))
        .hasMessage("\"row_cap\" must be at least 1");
    assertThatThrownBy(() -> GateRequest.fromJson("SELECT 1")).hasMessage("the request must be a JSON object");
  }

  @Test
  void drainMessagesRoundTrip() {
    OpsMessages.Drain drain = new OpsMessages.Drain(1_764_000_000_000L);
    assertThat(drain.toJson()).isEqualTo(new JsonObject().put("deadline_ms", 1_764_000_000_000L));
    assertThat(OpsMessages.Drain.fromJson(drain.toJson())).isEqualTo(drain);
    OpsMessages.Drained drained = new OpsMessages.Drained(3, 2);
    assertThat(drained.toJson()).isEqualTo(new JsonObject().put("finished", 3).put("cancelled", 2));
    assertThat(OpsMessages.Drained.fromJson(drained.toJson())).isEqualTo(drained);
    assertThat(OpsMessages.Drained.fromJson(null)).isEqualTo(new OpsMessages.Drained(0, 0));
  }

  @Test
  void runRequestsAndRepliesRoundTrip() {
    User bob = new User("bob", "Bob", true, null);
    RunRequest events = RunRequest.events("run-2", 4, bob);
    assertThat(RunRequest.fromJson(events.toJson())).isEqualTo(events);
    RunRequest cancel = RunRequest.cancel("run-2", null, "Ctrl-C");
    assertThat(cancel.toJson().getString("by")).isEqualTo("Ctrl-C");
    assertThat(RunRequest.fromJson(cancel.toJson())).isEqualTo(cancel);
    GraphEvent e = new GraphEvent("run-2", 5, 10L, "decide", GraphEvent.FINISHED, 1, "decision", new JsonObject().put("next", "answer"),
        null, null);
    RunMessages.Events reply = new RunMessages.Events("run-2", List.of(e));
    assertThat(reply.toJson().getJsonArray("events").getJsonObject(0)).isEqualTo(e.toJson());
    assertThat(RunMessages.Events.fromJson(reply.toJson())).isEqualTo(reply);
    RunMessages.Runs runs = new RunMessages.Runs(List.of(new RunMessages.Run("run-2", null, "q", "running", "2026-01-01T00:00:00Z")));
    assertThat(runs.toJson().getJsonArray("runs").getJsonObject(0).fieldNames())
        .containsExactly("run_id", "user", "question", "state", "started_at");
    assertThat(RunMessages.Runs.fromJson(runs.toJson())).isEqualTo(runs);
    assertThat(runs.toJson().fieldNames()).containsExactly("runs");
    // Clustered: each run names its worker, and the workers that did not answer are named.
    JsonObject merged = new JsonObject().put("runs", new JsonArray().add(runs.toJson().getJsonArray("runs").getJsonObject(0)
        .copy().put("worker", "127.0.0.1:8081"))).put("unreachable", new JsonArray().add("127.0.0.1:8082"));
    assertThat(RunMessages.Runs.fromJson(merged).toJson()).isEqualTo(merged);
  }

  @Test
  void retrievalAndVerifiedMessagesRoundTrip() {
    Retrieval.Request r = new Retrieval.Request("q", true, "analyst");
    assertThat(Retrieval.Request.fromJson(r.toJson())).isEqualTo(r);
    assertThat(new Retrieval.Request("q", false).toJson().containsKey("db_role")).isFalse();
    Retrieval reply = new Retrieval(List.of(new ScoredTable("bills", 0.9, null, "vector")), "CREATE TABLE bills ()", "",
        List.of("money in cents"), 1, 5, 0, new JsonArray(), List.of("paid"), List.of(new MetricDefinition("takings",
        "sum(bills.amount)", List.of("bills"), List.of("bills.void = false"), null)));
    assertThat(Retrieval.fromJson(reply.toJson())).isEqualTo(reply);
    VerifiedMessages.Matches m = new VerifiedMessages.Matches(0.9, 2,
        new JsonArray().add(new JsonObject().put("verified_id", 3).put("score", 0.95)), null, 4L);
    assertThat(VerifiedMessages.Matches.fromJson(m.toJson())).isEqualTo(m);
    assertThat(new VerifiedMessages.Retire(3, "unknown_table: bills").toJson())
        .isEqualTo(new JsonObject().put("verified_id", 3L).put("reason", "unknown_table: bills"));
  }

  @Test
  void retrievalsStatusAndRefreshKeepTheirFlatWire() throws Exception {
    CatalogueVersion v = new CatalogueVersion(3, "2025-01-01T00:00:00Z", 15, 42L, null);
    RetrievalMessages.IndexStatus status = new RetrievalMessages.IndexStatus(true, 15, "2025-01-01T00:00:01Z",
        new JsonObject().put("ready", true), v, null);
    assertThat(status.toJson().fieldNames()).containsExactly("built", "tables", "built_at", "stored_values", "catalogue");
    assertThat(status.toJson().getJsonObject("catalogue")).isEqualTo(new JsonObject().put("version", 3L)
        .put("read_at", "2025-01-01T00:00:00Z").put("tables", 15).put("fingerprint", 42L));
    assertThat(RetrievalMessages.IndexStatus.fromJson(status.toJson())).isEqualTo(status);
    assertThat(CatalogueVersion.fromJson(v.from("node-a").toJson())).isEqualTo(v.from("node-a"));

    RetrievalMessages.Refreshed one = new RetrievalMessages.Refreshed(status, 15, 120);
    assertThat(one.toJson().fieldNames())
        .containsExactly("built", "tables", "built_at", "stored_values", "catalogue", "gate_tables", "elapsed_ms");
    RetrievalMessages.Refreshed all = one.ofWorkers(List.of(
        new RetrievalMessages.WorkerRefresh("w1", true, one, null),
        new RetrievalMessages.WorkerRefresh("w2", false, null, "the worker's schema refresh timed out")), 300)
        .withVerified(new StateMessages.Rechecked(2, new JsonArray(), new JsonArray(), 0, 2, 5));
    JsonObject wire = all.toJson();
    assertThat(wire.getLong("elapsed_ms")).isEqualTo(300L);
    assertThat(wire.getJsonArray("workers").getJsonObject(0)).isEqualTo(new JsonObject().put("node", "w1").put("ok", true)
        .mergeIn(one.toJson()));
    assertThat(wire.getJsonArray("workers").getJsonObject(1)).isEqualTo(new JsonObject().put("node", "w2").put("ok", false)
        .put("error", "the worker's schema refresh timed out"));
    assertThat(wire.getJsonObject("verified").getInteger("checked")).isEqualTo(2);
    assertThat(RetrievalMessages.Refreshed.fromJson(wire)).isEqualTo(all);

    var stand = vertx.eventBus().<JsonObject>consumer(Addresses.SCHEMA_REFRESH, m -> m.reply(one.toJson()));
    var statusStand = vertx.eventBus().<JsonObject>consumer(Addresses.RETRIEVAL_STATUS, m -> m.reply(status.toJson()));
    stand.completion().await(5, TimeUnit.SECONDS);
    statusStand.completion().await(5, TimeUnit.SECONDS);
    try {
      RetrievalClient client = new RetrievalClient(vertx, 5_000);
      assertThat(client.refresh(5_000).await(5, TimeUnit.SECONDS)).isEqualTo(one);
      assertThat(client.status().await(5, TimeUnit.SECONDS)).isEqualTo(status);
    } finally {
      stand.unregister().await(5, TimeUnit.SECONDS);
      statusStand.unregister().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void clusterAndReadinessMessagesKeepWhatHealthServes() {
    ClusterMessages.NodeFacts facts = new ClusterMessages.NodeFacts("id-1", "127.0.0.1:8080", "edge+worker",
        "2025-01-01T00:00:00Z", 4, true);
    assertThat(ClusterMessages.NodeFacts.fromJson(facts.toJson())).isEqualTo(facts);
    ClusterMessages.Member reached = ClusterMessages.Member.reached("id-1", "127.0.0.1:8080", true, facts);
    ClusterMessages.Member lost = ClusterMessages.Member.unreachable("id-2", "127.0.0.1:8081", "worker", false, "timed out");
    assertThat(reached.toJson().fieldNames()).containsExactly("id", "name", "role", "local", "started_at",
        "events_from_other_nodes", "holds_singletons", "reachable");
    assertThat(lost.toJson()).isEqualTo(new JsonObject().put("id", "id-2").put("name", "127.0.0.1:8081").put("role", "worker")
        .put("local", false).put("reachable", false).put("error", "timed out"));
    ClusterMessages.ClusterView view = new ClusterMessages.ClusterView(true, "shop", "127.0.0.1:8080", "edge+worker", 2,
        List.of(reached, lost), new ClusterMessages.LogWriter("id-1", "127.0.0.1:8080", true), null);
    assertThat(view.toJson().fieldNames()).containsExactly("enabled", "name", "node", "role", "size", "members", "log_writer");
    assertThat(ClusterMessages.ClusterView.fromJson(view.toJson())).isEqualTo(view);
    assertThat(ClusterMessages.ClusterView.DISABLED.toJson()).isEqualTo(new JsonObject().put("enabled", false));
    assertThat(ClusterMessages.ClusterView.unknown("no reply").toJson())
        .isEqualTo(new JsonObject().put("enabled", true).put("error", "no reply"));

    Readiness r = new Readiness(false, "DOWN", true, true, true, true, true, false, null, new JsonArray(), false, 15,
        "shop", new JsonArray(), new JsonArray(), "m", new JsonObject(), null, view.toJson(),
        List.of(new Readiness.Check("schema_index_built", "DOWN", true, new JsonObject().put("built", false))),
        "2025-01-01T00:00:00Z");
    JsonObject served = r.toJson();
    assertThat(served.fieldNames()).containsExactly("ok", "status", "db_reachable", "read_only_confirmed",
        "state_store_reachable", "query_log_writable", "log_role_cannot_read", "schema_index_built", "schema_drifted",
        "schema_differences", "model_reachable", "tables", "database", "read_only_proofs", "read_only_warnings", "model",
        "query_log", "verified_retired", "cluster", "checks", "checked_at");
    assertThat(served.containsKey("schema_drifted")).as("unknown is null, not absent").isTrue();
    assertThat(served.getJsonArray("checks").getJsonObject(0).fieldNames()).containsExactly("id", "status", "gate", "data");
    assertThat(Readiness.fromJson(served)).isEqualTo(r);
  }

  @Test
  void theAgentClientReadsAnswersAndFailures() throws Exception {
    var consumer = vertx.eventBus().<JsonObject>consumer(Addresses.ASK, msg -> {
      AskRequest ask = AskRequest.fromJson(msg.body());
      if (ask.question().equals("busy?")) {
        msg.fail(BusFailure.BUSY.code(), "the service is busy");
        return;
      }
      msg.reply(new Answer(ask.question(), "42", "SELECT 42", 1, List.of(), false, false, false, new JsonArray(),
          new JsonArray(), 1, false, List.of(), null, 0, 5, ask.runId(), ask.mode(), "m", ask.source(), null, null, null,
          null, null, "model", null, null, null).toJson());
    });
    consumer.completion().await();
    try {
      AgentClient agent = new AgentClient(vertx, 5_000);
      Answer a = agent.ask(AskRequest.of("How many?", "cli").withRunId("run-3")).await(10, TimeUnit.SECONDS);
      assertThat(a.answer()).isEqualTo("42");
      assertThat(a.runId()).isEqualTo("run-3");
      assertThat(a.source()).isEqualTo("cli");
      assertThatThrownBy(() -> agent.ask(AskRequest.of("busy?", "cli")).await(10, TimeUnit.SECONDS))
          .isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.BUSY));
    } finally {
      consumer.unregister().await();
    }
  }

  @Test
  void theGenerationClientFailsWithTheModelsType() {
    var consumer = vertx.eventBus().<JsonObject>consumer(Addresses.GENERATE, msg ->
        new ModelException(ModelException.Type.MODEL_QUOTA, "out of quota").failure().failOn(msg));
    consumer.completion().await();
    try {
      GenerationClient model = new GenerationClient(vertx, 1_000, false);
      assertThatThrownBy(() -> model.complete(ChatRequest.of("run-4", false, ChatRequest.Message.user("q")))
              .await(10, TimeUnit.SECONDS))
          .isInstanceOfSatisfying(ModelException.class, e -> {
            assertThat(e.type()).isEqualTo(ModelException.Type.MODEL_QUOTA);
            assertThat(e.getMessage()).isEqualTo("out of quota");
          });
    } finally {
      consumer.unregister().await();
    }
  }

  @Test
  void theVerifiedClientLooksUpAndRetires() throws Exception {
    List<JsonObject> retired = new java.util.concurrent.CopyOnWriteArrayList<>();
    var lookup = vertx.eventBus().<JsonObject>consumer(Addresses.VERIFIED_LOOKUP, msg -> msg.reply(
        new VerifiedMessages.Matches(0.92, 1, new JsonArray().add(new JsonObject().put("verified_id", 7)
            .put("question", msg.body().getString("question")).put("score", 0.99)), null, 2L).toJson()));
    var retire = vertx.eventBus().<JsonObject>consumer(Addresses.VERIFIED_RETIRE, msg -> {
      retired.add(msg.body());
      msg.reply(new JsonObject().put("verified_id", msg.body().getLong("verified_id")).put("status", "retired"));
    });
    lookup.completion().await();
    retire.completion().await();
    try {
      VerifiedClient verified = new VerifiedClient(vertx, 5_000);
      VerifiedMessages.Matches m = verified.lookup(new VerifiedMessages.Lookup("How many bills?")).await(10, TimeUnit.SECONDS);
      assertThat(m.threshold()).isEqualTo(0.92);
      assertThat(m.matches().getJsonObject(0).getString("question")).isEqualTo("How many bills?");
      assertThat(m.direct()).isNull();
      verified.retire(new VerifiedMessages.Retire(7, "unknown_table: bills")).await(10, TimeUnit.SECONDS);
      assertThat(retired).containsExactly(new JsonObject().put("verified_id", 7L).put("reason", "unknown_table: bills"));
    } finally {
      lookup.unregister().await();
      retire.unregister().await();
    }
  }

  @Test
  void theGateClientGradesOnThisNodeOnly() throws Exception {
    var consumer = vertx.eventBus().<JsonObject>localConsumer(Addresses.GATE_GRADE, msg ->
        msg.reply(new JsonObject().put("ok", true).put("sql", msg.body().getString("sql")).put("columns", new JsonArray())
            .put("rows", new JsonArray()).put("row_count", 0).put("truncated", false).put("elapsed_ms", 1)));
    consumer.completion().await();
    try {
      GateReply reply = new GateClient(vertx, 5_000).grade("SELECT 1").await(10, TimeUnit.SECONDS);
      assertThat(reply.ok()).isTrue();
      assertThat(reply.sql()).isEqualTo("SELECT 1");
    } finally {
      consumer.unregister().await();
    }
  }
}
