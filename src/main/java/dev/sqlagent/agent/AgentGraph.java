package dev.sqlagent.agent;

import dev.sqlagent.contract.GraphShape;
import dev.sqlagent.contract.Node;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The agent's graph, declared in this one place: each node with the step that runs it and the edges that may follow
 * it, where a run starts, and the attempt cap. A step returns what it found; its node's router, the node's edges tried
 * in the order declared here, picks the next node from that state: the first edge whose condition holds is taken, so a
 * run can only move along a declared edge. The same declaration is served as {@code GET /api/graph}.
 */
final class AgentGraph {

  /** At most this many attempts per question (each starts at generate_sql); then an honest give-up. */
  static final int MAX_ATTEMPTS = 3;

  /** Where a node may go: {@code when}, a short phrase for people; {@code holds}, on the state its step returned. */
  record Edge(Node from, Node to, String when, BiPredicate<RunContext, RunState> holds) {}

  /** Where a run may start. */
  record Start(Node node, String when, Predicate<RunContext> holds) {}

  /**
   * One node: how its step is made for a run (null for a node whose events another node or the driver publishes),
   * whether a run ends there, and its edges in the order they are tried.
   */
  record Declared(Node node, Function<RunContext, Step> step, boolean ends, List<Edge> edges) {}

  private static final List<Start> STARTS = List.of(
      new Start(Node.LOOKUP_VERIFIED, "a question", run -> !run.personChose() && run.lookupVerified()),
      new Start(Node.SELECT_SCHEMA, "a question asked without the verified queries (an evaluation)",
          run -> !run.personChose() && !run.lookupVerified()),
      new Start(Node.VALIDATE_SQL, "SQL a person chose", RunContext::personChose));

  private static final Map<Node, Declared> NODES = new EnumMap<>(Node.class);

  static {
    declare(Node.LOOKUP_VERIFIED, LookupVerified::new,
        edge(Node.VALIDATE_SQL, "a verified query is close enough", (run, s) -> s.verifiedDirect != null),
        edge(Node.SELECT_SCHEMA, "otherwise", (run, s) -> true));
    declare(Node.SELECT_SCHEMA, SelectSchema::new,
        edge(Node.GENERATE_SQL, "the tables are chosen", (run, s) -> true));
    declare(Node.GENERATE_SQL, run -> run.candidates() > 1 && run.agentMode() ? new GenerateCandidates(run) : new GenerateSql(run),
        edge(Node.ANSWER, "the model declined to write SQL", (run, s) -> s.refusal != null),
        edge(Node.DECIDE, "the reply is not usable SQL", (run, s) -> s.outcome != null),
        edge(Node.INJECT_FAULT, "an evaluation injects a fault into the first SQL", InjectFault::applies),
        edge(Node.VOTE, "several candidates, or several readings of the question", (run, s) -> s.candidates != null),
        edge(Node.VALIDATE_SQL, "one SQL", (run, s) -> true));
    declare(Node.INJECT_FAULT, InjectFault::new,
        edge(Node.VOTE, "several candidates", (run, s) -> s.candidates != null),
        edge(Node.VALIDATE_SQL, "one SQL", (run, s) -> true));
    declare(Node.CANDIDATE, null);
    declare(Node.VOTE, Vote::new,
        edge(Node.ANSWER, "every candidate was a refusal", (run, s) -> s.refusal != null),
        edge(Node.CLARIFY, "the results split with no majority", (run, s) -> s.split != null),
        edge(Node.INSPECT_RESULT, "otherwise: the winner, or the most informative failure", (run, s) -> true));
    declare(Node.VALIDATE_SQL, ValidateSql::new,
        edge(Node.EXECUTE_SQL, "the checks passed", (run, s) -> s.checkedSql != null),
        edge(Node.SELECT_SCHEMA, "a verified query failed its checks: the model answers", (run, s) -> s.needsTables),
        edge(Node.INSPECT_RESULT, "the checks refused it", (run, s) -> true));
    declare(Node.EXECUTE_SQL, ExecuteSql::new,
        edge(Node.SELECT_SCHEMA, "a verified query failed to run: the model answers", (run, s) -> s.needsTables),
        edge(Node.ANSWER, "a verified query answered", (run, s) -> s.verifiedUsed != null),
        edge(Node.INSPECT_RESULT, "it ran, or the database refused it", (run, s) -> true));
    declare(Node.INSPECT_RESULT, InspectResult::new,
        edge(Node.DECIDE, "inspected", (run, s) -> true));
    declare(Node.DECIDE, run -> new Decide(run, MAX_ATTEMPTS),
        edge(Node.PREPARE_REPAIR, "a repairable error with attempts left", (run, s) -> s.decision == Decision.Next.REPAIR),
        edge(Node.GIVE_UP, "an error that cannot be repaired, or no attempt left", (run, s) -> s.decision == Decision.Next.GIVE_UP),
        edge(Node.ANSWER, "the result stands, or the request is a write and is refused", (run, s) -> true));
    declare(Node.PREPARE_REPAIR, PrepareRepair::new,
        edge(Node.SELECT_SCHEMA, "an unknown table or column: the tables are chosen again, wider", (run, s) -> s.needsTables),
        edge(Node.GENERATE_SQL, "the next attempt", (run, s) -> true));
    declareEnd(Node.ANSWER, AnswerStep::new);
    // Published by the driver after the answer went out (AgentRun#explainAfter): never on the answer's path.
    declare(Node.EXPLAIN_SQL, null);
    declareEnd(Node.GIVE_UP, GiveUp::new);
    declareEnd(Node.CLARIFY, Clarify::new);
    declareEnd(Node.CANCELLED, null);
    for (Node n : Node.values()) {
      if (!NODES.containsKey(n)) throw new IllegalStateException("node " + n.wireName() + " is not declared in the graph");
    }
  }

  private AgentGraph() {}

  private static Edge edge(Node to, String when, BiPredicate<RunContext, RunState> holds) {
    return new Edge(null, to, when, holds);
  }

  private static void declare(Node node, Function<RunContext, Step> step, Edge... edges) {
    List<Edge> out = new ArrayList<>();
    for (Edge e : edges) out.add(new Edge(node, e.to(), e.when(), e.holds()));
    NODES.put(node, new Declared(node, step, false, List.copyOf(out)));
  }

  private static void declareEnd(Node node, Function<RunContext, Step> step) {
    NODES.put(node, new Declared(node, step, true, List.of()));
  }

  static Declared node(Node node) {
    return NODES.get(node);
  }

  /** The node a run starts at. */
  static Node start(RunContext run) {
    return STARTS.stream().filter(s -> s.holds().test(run)).findFirst().orElseThrow().node();
  }

  /** The steps of one run, one per node that has a step. */
  static Map<Node, Step> steps(RunContext run) {
    Map<Node, Step> steps = new EnumMap<>(Node.class);
    for (Declared d : NODES.values()) {
      if (d.step() != null) steps.put(d.node(), d.step().apply(run));
    }
    return steps;
  }

  /**
   * The edge a run takes from {@code from}, given the state its step returned. A node that ends the run, or a state no
   * declared edge accepts, is a fault of the graph, not of the question: IllegalStateException.
   */
  static Edge next(Node from, RunContext run, RunState after) {
    Declared d = NODES.get(from);
    if (d.ends()) throw new IllegalStateException(from.wireName() + " ends the run but its step gave no answer");
    for (Edge e : d.edges()) {
      if (e.holds().test(run, after)) return e;
    }
    throw new IllegalStateException("no declared edge from " + from.wireName() + " accepts the state its step returned");
  }

  /** Every declared edge, in graph order. */
  static List<Edge> edges() {
    return NODES.values().stream().flatMap(d -> d.edges().stream()).toList();
  }

  /** The graph as it is served: nodes, edges, starts and the attempt cap. */
  static GraphShape shape() {
    return new GraphShape(
        NODES.values().stream().map(d -> new GraphShape.NodeShape(d.node().wireName(), d.node().kind(), d.node().label(),
            d.ends())).toList(),
        edges().stream().map(e -> new GraphShape.EdgeShape(e.from().wireName(), e.to().wireName(), e.when())).toList(),
        STARTS.stream().map(s -> new GraphShape.StartShape(s.node().wireName(), s.when())).toList(),
        MAX_ATTEMPTS);
  }
}
