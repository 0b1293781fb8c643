package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Every node of the agent's graph, and every name a run's events carry in {@code node}: written here once and read
 * by the agent, metrics, the CLI and the page ({@code GET /api/graph}).
 *
 * <p>{@code select_schema → generate_sql → (inject_fault) → validate_sql → execute_sql → inspect_result → decide →
 * (answer | prepare_repair → (select_schema) → generate_sql | give_up)}; with several candidates {@code generate_sql →
 * vote} (each candidate a {@code candidate} step) {@code → inspect_result}; a verified query answers by
 * {@code lookup_verified → validate_sql → execute_sql → answer}; when the candidates' results split with no majority
 * (or the model gave several readings) {@code vote → clarify} ends the run asking which reading was meant; SQL a person
 * chose (edited, or a reading) starts at {@code validate_sql} and is never repaired by the model.
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

  /** {@code [{name, kind, label}]} in graph order. */
  public static JsonArray toJson() {
    JsonArray nodes = new JsonArray();
    for (Node n : values()) nodes.add(new JsonObject().put("name", n.wireName()).put("kind", n.kind).put("label", n.label));
    return nodes;
  }
}
