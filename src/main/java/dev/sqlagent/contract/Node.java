package dev.sqlagent.contract;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Every node of the agent's graph, and every name a run's events carry in {@code node}, in graph order: written here
 * once and read by the agent, metrics, the CLI and the page. How a run moves between them is declared with the
 * agent's steps and served, nodes and edges, as {@code GET /api/graph} ({@link GraphShape}).
 */
public enum Node {
  LOOKUP_VERIFIED("retriever", "Verified queries"),
  SELECT_SCHEMA("retriever", "Select tables"),
  GENERATE_SQL("generation", "Write SQL"),
  INJECT_FAULT("tool", "Inject a fault"),
  CANDIDATE("guardrail", "Check a candidate"),
  VOTE("decision", "Vote"),
  VALIDATE_SQL("guardrail", "Check SQL"),
  EXECUTE_SQL("tool", "Run SQL"),
  INSPECT_RESULT("decision", "Inspect the result"),
  DECIDE("decision", "Decide"),
  PREPARE_REPAIR("decision", "Prepare a repair"),
  ANSWER("answer", "Answer"),
  EXPLAIN_SQL("tool", "Explain the SQL"),
  GIVE_UP("answer", "Give up"),
  CLARIFY("answer", "Ask which reading"),
  CANCELLED("answer", "Cancelled");

  private final String kind;
  private final String label;

  Node(String kind, String label) {
    this.kind = kind;
    this.label = label;
  }

  /** The name events carry: {@code select_schema}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** What sort of work the node does (retriever, generation, guardrail, tool, decision, answer). */
  public String kind() {
    return kind;
  }

  /** A short human name, for the page and the CLI. */
  public String label() {
    return label;
  }

  public static Optional<Node> fromWireName(String name) {
    return Arrays.stream(values()).filter(n -> n.wireName().equals(name)).findFirst();
  }

}
