package dev.sqlagent.bus;

/** Every event-bus address of the service, in one place. */
public final class Addresses {
  private Addresses() {}

  /** The gate: request {sql, ...}, reply the result or a structured error. */
  public static final String EXECUTE = "sqlagent.execution.run";
  /** The agent: request {question, mode}, reply the answer JSON. */
  public static final String ASK = "sqlagent.agent.ask";
  /** Retrieval: request {question, widen}, reply the chosen tables with schema and samples. */
  public static final String RETRIEVE = "sqlagent.retrieval.select";
  /** The model: request {run_id, messages, stream}, reply the completion. */
  public static final String GENERATE = "sqlagent.generation.complete";
  /** A run's events so far: request {run_id, after_seq}. */
  public static final String RUN_EVENTS = "sqlagent.agent.events";
  /** Every finished run's answer is published here (the query log listens). */
  public static final String ANSWERS = "sqlagent.agent.answers";

  /** Streaming token deltas of one run's model calls. */
  public static String generationDeltas(String runId) {
    return "sqlagent.generation.delta." + runId;
  }

  /** Every graph event of every run is published here... */
  public static final String EVENTS = "sqlagent.events";

  /** ...and on the run's own address. */
  public static String events(String runId) {
    return EVENTS + "." + runId;
  }

  // --- operations (dev.sqlagent.querylog, health, metrics, drift) ---------------------------------

  /** The query log's state: request {} → {buffered, capacity, written, dropped, failed_writes, last_error, ...}. */
  public static final String QUERY_LOG_STATUS = "sqlagent.querylog.status";
  /** Write what is buffered now: request {timeout_ms} → the status once the buffer is empty or the time is up. */
  public static final String QUERY_LOG_FLUSH = "sqlagent.querylog.flush";
  /** Published after every change of the query log's totals: {written, dropped, buffered}. */
  public static final String QUERY_LOG_FACTS = "sqlagent.querylog.facts";

  /** Retrieval's index: request {} → {"built": bool, "tables": n, "built_at": ISO-8601 instant or null}. */
  public static final String RETRIEVAL_STATUS = "sqlagent.retrieval.status";
  /** Published by retrieval each time its index is (re)built, with the same body as RETRIEVAL_STATUS. */
  public static final String RETRIEVAL_BUILT = "sqlagent.retrieval.built";

  /** Readiness: request {} → {"ok": bool, flags..., "checks": [...]} (what /api/health serves). */
  public static final String HEALTH_READINESS = "sqlagent.health.readiness";
  /** Prometheus text exposition of every metric: request {} → String. */
  public static final String METRICS_SCRAPE = "sqlagent.metrics.scrape";
  /** Published by the web edge when a live client connects or leaves: {"transport": "ws"|"eventbus", "delta": 1|-1}. */
  public static final String LIVE_CLIENTS = "sqlagent.web.clients";
}
