package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.GraphShape;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.StepData;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.codec.BodyCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The graph as declared is the graph served ({@code GET /api/graph}: nodes and edges) and the graph real runs walk:
 * every move a run makes, read from its events, is a declared edge; and every event's data is the record declared for
 * its node, written by that record alone.
 */
class AgentGraphTest {

  static FakeModelServer model;
  static RunningService service;
  /** The served graph, read once. */
  static GraphShape graph;
  /** Every move the runs of this class made, "from → to". */
  static final Set<String> walked = new LinkedHashSet<>();
  /** Every record the runs' events carried. */
  static final Set<String> carried = new LinkedHashSet<>();

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    service = RunningService.start(env);
    JsonObject served = service.client.get(service.port(), "127.0.0.1", "/api/graph").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS).body();
    graph = GraphShape.fromJson(served);
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
  }

  @BeforeEach
  void reset() {
    model.reset();
  }

  @Test
  void theServedGraphHasEveryNodeInOrderItsEdgesStartsAndCap() throws Exception {
    JsonObject served = service.client.get(service.port(), "127.0.0.1", "/api/graph").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS).body();
    assertThat(served.fieldNames()).containsExactly("nodes", "edges", "starts", "max_attempts");
    assertThat(served.getInteger("max_attempts")).isEqualTo(3);
    JsonObject first = served.getJsonArray("nodes").getJsonObject(0);
    assertThat(first.fieldNames()).containsExactly("name", "kind", "label", "ends");
    assertThat(first.getString("name")).isEqualTo("lookup_verified");
    assertThat(served.getJsonArray("edges").getJsonObject(0).fieldNames()).containsExactly("from", "to", "when");
    assertThat(served.getJsonArray("starts").getJsonObject(0).fieldNames()).containsExactly("node", "when");

    assertThat(graph.nodes()).extracting(GraphShape.NodeShape::name)
        .containsExactlyElementsOf(Arrays.stream(Node.values()).map(Node::wireName).toList());
    assertThat(graph.nodes()).filteredOn(GraphShape.NodeShape::ends).extracting(GraphShape.NodeShape::name)
        .containsExactly("answer", "give_up", "clarify", "cancelled");
    assertThat(graph.starts()).extracting(GraphShape.StartShape::node)
        .containsExactly("lookup_verified", "select_schema", "validate_sql");
    assertThat(graph.edges()).contains(
        new GraphShape.EdgeShape("lookup_verified", "validate_sql", "a verified query is close enough"),
        new GraphShape.EdgeShape("lookup_verified", "select_schema", "otherwise"));
    Set<String> names = new LinkedHashSet<>(graph.nodes().stream().map(GraphShape.NodeShape::name).toList());
    assertThat(graph.edges()).allSatisfy(e -> {
      assertThat(names).contains(e.from(), e.to());
      assertThat(e.when()).isNotBlank();
    });
    // Every node but the ends, candidate (a step inside vote) and explain_sql (published after the answer) leads
    // somewhere; every end is reached by an edge.
    for (GraphShape.NodeShape n : graph.nodes()) {
      boolean leaves = graph.edges().stream().anyMatch(e -> e.from().equals(n.name()));
      assertThat(leaves).as(n.name() + " has an edge out")
          .isEqualTo(!n.ends() && !n.name().equals("candidate") && !n.name().equals("explain_sql"));
    }
    assertThat(graph.edges()).extracting(GraphShape.EdgeShape::to).contains("answer", "give_up", "clarify");
  }

  @Test
  void aNodeThatEndsTheRunHasNoEdgeToFollow() {
    RunState without = RunState.start("m");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> AgentGraph.next(Node.ANSWER, null, without))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("answer ends the run");
  }

  @Test
  void aStepMayPublishOnlyTheRecordDeclaredForItsNode() {
    RunEvents events = new RunEvents(service.vertx.eventBus(), "run-x", new JsonArray(), null);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> events.finished(Node.SELECT_SCHEMA, 1, new StepData.SqlChecked("SELECT 1", "parsed")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("select_schema finished may not carry SqlChecked");
  }

  @Test
  void runsMoveOnlyAlongDeclaredEdges() throws Exception {
    // A repair: an unknown column (the tables widened), a division by zero, then an answer.
    model.enqueue(Reply.sql("SELECT sum(amount) AS revenue FROM bills"),
        Reply.sql("SELECT count(*) / (count(*) - count(*)) AS ratio FROM bills"),
        Reply.sql("SELECT status, count(*) AS n FROM bills GROUP BY status ORDER BY status"));
    assertThat(walk(asked("How many bills are there per status?", null)).outcome()).isEqualTo("answered");

    model.reset().enqueue(Reply.refusal("There is no table of the weather."));
    assertThat(walk(asked("What will the weather be?", null)).outcome()).isEqualTo("refused");

    model.reset().enqueue(Reply.sql("DELETE FROM bills WHERE status = 'CANCELLED'"));
    assertThat(walk(asked("Delete the cancelled bills", null)).outcome()).isEqualTo("refused");

    model.reset().enqueue(Reply.content("I think you want the bills."), Reply.sql("SELECT count(*) AS n FROM bills"));
    assertThat(walk(evaluation("How many bills are there?", null)).outcome()).isEqualTo("answered");

    model.reset().enqueue(Reply.sql("SELECT amount FROM bills"), Reply.sql("SELECT amt FROM bills"),
        Reply.sql("SELECT total FROM bills"));
    assertThat(walk(evaluation("What is the total of every bill?", null)).outcome()).isEqualTo("gave_up");

    // Three candidates, the empty-aggregate probe, a repair with three more.
    model.reset().honourN(true).enqueue(
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'paid'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'paid'"),
        Reply.sql("SELECT count(*) FROM bills"));
    model.enqueue(Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(bill_id) FROM bills WHERE status = 'PAID'"));
    assertThat(walk(evaluation("How many bills were paid?", 3)).outcome()).isEqualTo("answered");

    // Three candidates, three different results: the run asks which was meant.
    model.reset().honourN(true).enqueue(
        Reply.sql("SELECT count(*) AS n FROM bills"),
        Reply.sql("SELECT count(*) AS n FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(*) AS n FROM bills WHERE status = 'CANCELLED'"));
    assertThat(walk(asked("How many bills?", 3)).needsClarification())
        .isTrue();

    assertThat(carried).contains("SchemaAsked", "SchemaSelected", "SqlAsked", "CandidatesAsked", "SqlDelta", "SqlWritten",
        "CandidatesWritten", "ReplyUnusable", "CandidateChecking", "CandidateRan", "Voted", "SqlStarted", "SqlChecked",
        "SqlRan", "SqlFailed", "Inspected", "ProbeStarted", "Probed", "Decided", "RepairStarted", "RepairPrepared",
        "AnswerStarted", "Answer");
    assertThat(walked).contains("generate_sql → answer", "decide → prepare_repair", "prepare_repair → select_schema",
        "prepare_repair → generate_sql", "decide → give_up", "decide → answer", "generate_sql → decide",
        "generate_sql → vote", "vote → inspect_result", "vote → clarify", "execute_sql → inspect_result");
  }

  /** The served graph's edges as "from → to". */
  static Set<String> declared() {
    Set<String> out = new LinkedHashSet<>();
    for (GraphShape.EdgeShape e : graph.edges()) out.add(e.from() + " → " + e.to());
    return out;
  }

  /** Nodes a run may pass through without an event: an empty verified library, a fault that does not apply. */
  static final Set<String> SILENT = Set.of("lookup_verified", "inject_fault");

  /**
   * Asks, then reads the run's moves from its events (a candidate's events are vote's, explain_sql's the answer's;
   * progress is none) and checks
   * each is a declared edge, or two through a node that publishes nothing; the first node is a start, or after one.
   */
  static Answer walk(AskRequest request) throws Exception {
    JsonObject reply = service.vertx.eventBus().<JsonObject>request(Addresses.ASK, request.toJson())
        .await(60, TimeUnit.SECONDS).body();
    Answer answer = Answer.fromJson(reply);
    JsonArray events = service.vertx.eventBus().<JsonObject>request(Addresses.RUN_EVENTS,
        new JsonObject().put("run_id", answer.runId())).await(10, TimeUnit.SECONDS).body().getJsonArray("events");
    List<String> nodes = new ArrayList<>();
    for (Object o : events) {
      GraphEvent e = GraphEvent.fromJson((JsonObject) o);
      // The data is its record's, key for key and value for value: a key the record lacks fails here.
      StepData data = StepData.of(e);
      assertThat(data.toJson().encode()).as(e.node() + " " + e.status()).isEqualTo(e.data().encode());
      carried.add(data.getClass().getSimpleName());
      if (e.status().equals(GraphEvent.PROGRESS)) continue;
      // explain_sql comes after the answer went out: part of the answer, not a move.
      String node = e.node().equals("candidate") ? "vote" : e.node().equals("explain_sql") ? "answer" : e.node();
      if (nodes.isEmpty() || !nodes.get(nodes.size() - 1).equals(node)) nodes.add(node);
    }
    Set<String> edges = declared();
    Set<String> starts = new LinkedHashSet<>(graph.starts().stream().map(GraphShape.StartShape::node).toList());
    String first = nodes.get(0);
    assertThat(starts.contains(first) || starts.stream().anyMatch(s -> SILENT.contains(s) && edges.contains(s + " → " + first)))
        .as("a run starts at " + first + " (" + nodes + ")").isTrue();
    for (int i = 1; i < nodes.size(); i++) {
      String from = nodes.get(i - 1);
      String to = nodes.get(i);
      boolean declaredEdge = edges.contains(from + " → " + to)
          || SILENT.stream().anyMatch(x -> edges.contains(from + " → " + x) && edges.contains(x + " → " + to));
      assertThat(declaredEdge).as(from + " → " + to + " is declared (" + nodes + ")").isTrue();
      walked.add(from + " → " + to);
    }
    return answer;
  }

  /** A question looked up in the verified queries first, as a person's is; standing alone, paced by the test. */
  static AskRequest asked(String question, Integer candidates) {
    return AskRequest.of(question, "http").withOptions(new RunOptions(true, true, true, candidates, null));
  }

  static AskRequest evaluation(String question, Integer candidates) {
    return AskRequest.of(question, "eval").withOptions(RunOptions.evaluation(candidates, null));
  }
}
