package dev.sqlagent.bus;

/** Every event-bus address of the service, in one place. */
public final class Addresses {
  private Addresses() {}

  /** The gate: request {sql, ...}, reply the result or a structured error. */
  public static final String EXECUTE = "sqlagent.execution.run";
  /** The agent: request {question, mode}, reply the answer JSON. */
  public static final String ASK = "sqlagent.agent.ask";
  /** Every graph event of every run is published here... */
  public static final String EVENTS = "sqlagent.events";

  /** Retrieval: request {question, widen}, reply {tables, schema, samples, conventions, top_k}. */
  public static final String RETRIEVE = "sqlagent.retrieval.select";
  /** Every visible table: request {}, reply {tables: [{name, note, row_count, columns}]}. */
  public static final String SCHEMA = "sqlagent.retrieval.schema";
  /** One table as CREATE TABLE: request {name}, reply {name, ddl}; unknown table fails 404. */
  public static final String DESCRIBE = "sqlagent.retrieval.describe";
  /** A few rows of one table: request {name, n}, reply {name, columns, rows}, values clipped. */
  public static final String SAMPLE = "sqlagent.retrieval.sample";

  /** ...and on the run's own address. */
  public static String events(String runId) {
    return EVENTS + "." + runId;
  }
}
