package dev.sqlagent.bus;

/** Every event-bus address of the service, in one place. */
public final class Addresses {
  private Addresses() {}

  /** The gate: request {sql, ...}, reply the result or a structured error. */
  public static final String EXECUTE = "sqlagent.execution.run";
  /** The agent: request {question, mode}, reply the answer JSON. */
  public static final String ASK = "sqlagent.agent.ask";
  /** The model: request {run_id, messages, stream}, reply the completion (or fail with error_type). */
  public static final String GENERATE = "sqlagent.generation.complete";
  /** Every graph event of every run is published here... */
  public static final String EVENTS = "sqlagent.events";

  /** ...and on the run's own address. */
  public static String events(String runId) {
    return EVENTS + "." + runId;
  }

  /** A streaming run's coalesced model text: {run_id, text}. */
  public static String generationDeltas(String runId) {
    return "sqlagent.generation.delta." + runId;
  }
}
