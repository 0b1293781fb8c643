package dev.sqlagent.bus;

/** Every event-bus address of the service, in one place. */
public final class Addresses {
  private Addresses() {}

  // --- the gate -------------------------------------------------------------------------------
  /** Request {sql, run, row_cap}, reply the result or a structured error. */
  public static final String EXECUTE = "sqlagent.execution.run";

  // --- retrieval ------------------------------------------------------------------------------
  /** Request {question, widen}, reply {tables, schema, samples, conventions, top_k}. */
  public static final String RETRIEVE = "sqlagent.retrieval.select";
  /** Every visible table: request {}, reply {tables: [{name, note, row_count, columns}]}. */
  public static final String SCHEMA = "sqlagent.retrieval.schema";
  /** One table as CREATE TABLE: request {name}, reply {name, ddl}; unknown table fails 404. */
  public static final String DESCRIBE = "sqlagent.retrieval.describe";
  /** A few rows of one table: request {name, n}, reply {name, columns, rows}, values clipped. */
  public static final String SAMPLE = "sqlagent.retrieval.sample";

  // --- the model ------------------------------------------------------------------------------
  /** Request {run_id, messages, stream}, reply the completion (or fail with error_type). */
  public static final String GENERATE = "sqlagent.generation.complete";

  /** A streaming run's coalesced model text: {run_id, text}. */
  public static String generationDeltas(String runId) {
    return "sqlagent.generation.delta." + runId;
  }

  // --- the agent ------------------------------------------------------------------------------
  /** Request {question, mode, source}, reply the answer JSON. */
  public static final String ASK = "sqlagent.agent.ask";
  /** A run's events so far: request {run_id, after_seq}. */
  public static final String RUN_EVENTS = "sqlagent.agent.events";
  /** Every finished run's answer is published here (the query log and metrics listen). */
  public static final String ANSWERS = "sqlagent.agent.answers";
  /** Every graph event of every run is published here... */
  public static final String EVENTS = "sqlagent.events";

  /** ...and on the run's own address. */
  public static String events(String runId) {
    return EVENTS + "." + runId;
  }
}
