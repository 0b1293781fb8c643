package dev.sqlagent.bus;

/** Every event-bus address of the service, in one place. */
public final class Addresses {
  private Addresses() {}

  // --- the gate -------------------------------------------------------------------------------
  /** Request {sql, run, row_cap, run_id, db_role, progress}, reply the result or a structured error. */
  public static final String EXECUTE = "sqlagent.execution.run";
  /**
   * The gate's grading mode (the evaluation harness): request {sql}, reply the same contract as {@link #EXECUTE},
   * every row, no cap. A local consumer: reached only from inside the process that runs the gate, never over
   * the cluster bus, and no edge (HTTP, WebSocket, SockJS bridge, MCP) sends to it.
   */
  public static final String GATE_GRADE = "sqlagent.execution.grade";
  /**
   * An export ({@code contract.ExportRequest}): the whole gate with the export's row cap and byte bound, the file
   * written as the rows are read and its bytes streamed in chunks ({@code contract.ExportChunk}) to the request's
   * {@code sink}, each chunk sent once the last one was acknowledged; the reply, at the end, is the gate's reply (no rows). No edge forwards to it.
   */
  public static final String GATE_EXPORT = "sqlagent.execution.export";

  // --- the catalogue ---------------------------------------------------------------------------
  /**
   * Published each time a process's catalogue holds a new snapshot: {version, read_at, tables, fingerprint, node}.
   * Retrieval re-embeds what changed; clustered, another node's catalogue reads again when its fingerprint differs.
   */
  public static final String CATALOGUE_CHANGED = "sqlagent.catalogue.changed";

  // --- retrieval ------------------------------------------------------------------------------
  /** Request {question, widen}, reply {tables, schema, samples, conventions, top_k}. */
  public static final String RETRIEVE = "sqlagent.retrieval.select";
  /** Every visible table: request {}, reply {tables: [{name, note, row_count, columns}]}. */
  public static final String SCHEMA = "sqlagent.retrieval.schema";
  /** One table as CREATE TABLE: request {name}, reply {name, ddl}; unknown table fails 404. */
  public static final String DESCRIBE = "sqlagent.retrieval.describe";
  /** A few rows of one table: request {name, n}, reply {name, columns, rows}, values clipped. */
  public static final String SAMPLE = "sqlagent.retrieval.sample";
  /**
   * Discover the target again (a new catalogue version) and re-embed what changed: request {} → the RETRIEVAL_STATUS
   * body plus elapsed_ms, gate_tables and catalogue (the version now held).
   */
  public static final String SCHEMA_REFRESH = "sqlagent.retrieval.refresh";
  /** Retrieval's index: request {} → {"built": bool, "tables": n, "built_at": ISO-8601 instant or null}. */
  public static final String RETRIEVAL_STATUS = "sqlagent.retrieval.status";
  /** Published by retrieval each time its index is (re)built, with the same body as RETRIEVAL_STATUS. */
  public static final String RETRIEVAL_BUILT = "sqlagent.retrieval.built";
  /** What retrieval learned from the workload, read again now: request {} → {@code LearnedMessages.Report}. */
  public static final String LEARNED = "sqlagent.retrieval.learned";

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
  /**
   * A new run from SQL a person chose: request {@code RerunRequest} (an edited answer's SQL, or one of the readings a
   * run asked back with), reply the new run's answer; fails 400 (no SQL, no such reading), 404 (no such run), 403.
   */
  public static final String RERUN = "sqlagent.agent.rerun";
  /**
   * Where the SockJS bridge sends a question the intake refused, so that its client is answered as the agent would
   * answer it: a failed reply (400) whose message is the {@code refusal} header. Fails whatever comes to it.
   */
  public static final String BRIDGE_REFUSED = "sqlagent.bridge.refused";
  /** A run's events so far: request {run_id, after_seq}. */
  public static final String RUN_EVENTS = "sqlagent.agent.events";
  /**
   * Stop a running question: request {run_id, user?} → {run_id, cancelled: true}; fails 404 (no such run
   * running), 403 (the run is another user's).
   */
  public static final String CANCEL = "sqlagent.agent.cancel";
  /** Recent runs the caller may see: request {user?} → {runs: [{run_id, user, question, state, started_at}]}. */
  public static final String RUNS = "sqlagent.agent.runs";
  /**
   * Published by the agent when a run is cancelled or passes its deadline: {run_id}. Generation aborts that
   * run's model call and the gate cancels its running statement.
   */
  public static final String STOP_WORK = "sqlagent.agent.stop";
  /**
   * Node-local, when the process is told to stop: request {@code OpsMessages.Drain} → {@code OpsMessages.Drained} once
   * this node's runs have all ended (finished by the deadline, or cancelled there).
   */
  public static final String DRAIN_AGENT = "sqlagent.agent.drain";
  /**
   * Node-local, clustered edges: the same for the questions this edge handed to workers (the edge waits for their
   * answers, and at the deadline asks their workers to cancel them).
   */
  public static final String DRAIN_EDGE = "sqlagent.cluster.drain";
  /** Every finished run's answer is published here (the query log and metrics listen). */
  public static final String ANSWERS = "sqlagent.agent.answers";
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
  /**
   * Make one answer's row durable: request {answer, answered_at (epoch ms)} → {run_id, kept: true} once the row is
   * committed (or was already there: run ids are unique), {kept: false} for an answer that is not logged; fails
   * REJECTED when the database refuses the row's values and BAD_REQUEST for an unreadable answer (asking again
   * cannot help), UNAVAILABLE or BUSY when the row cannot be taken now (ask again). Cluster mode's only input of
   * the log: the worker that produces an answer and the edge that delivers it each ask it
   * ({@code querylog.AnswerKeeper}), the edge before it delivers the answer.
   */
  public static final String QUERY_LOG_KEEP = "sqlagent.querylog.keep";
  /** Published after every change of the query log's totals: {written, dropped, buffered}. */
  public static final String QUERY_LOG_FACTS = "sqlagent.querylog.facts";

  /** The newest saved evaluation run's summary (from the state store): request {} → the summary; fails 404 when none. */
  public static final String EVAL_LATEST = "sqlagent.eval.latest";

  /** Readiness: request {} → {"ok": bool, flags..., "checks": [...]} (what /api/health serves). */
  public static final String HEALTH_READINESS = "sqlagent.health.readiness";
  /** Prometheus text exposition of every metric: request {} → String. */
  public static final String METRICS_SCRAPE = "sqlagent.metrics.scrape";
  /** Published by the web edge when a live client connects or leaves: {"transport": "ws"|"eventbus", "delta": 1|-1}. */
  public static final String LIVE_CLIENTS = "sqlagent.web.clients";

  // --- conversations and verified queries (dev.sqlagent.conversation, dev.sqlagent.verified) ----------

  /** Request {conversation_id?} → {conversation_id, new, turns}; an unknown or expired id fails 404. */
  public static final String CONVERSATION_OPEN = "sqlagent.conversation.open";
  /** Request {conversation_id, answer} → {conversation_id, turn}: the finished run becomes the next turn. */
  public static final String CONVERSATION_RECORD = "sqlagent.conversation.record";
  /** Request {conversation_id} → the conversation with its turns and their feedback; 404 when unknown or expired. */
  public static final String CONVERSATION_GET = "sqlagent.conversation.get";
  /** Request {run_id, rating: up|down, comment?} → the stored feedback; 404 for a run no conversation holds. */
  public static final String RUN_FEEDBACK = "sqlagent.conversation.feedback";
  /** Request {run_id} → the run's turn {question, final_sql, outcome, rating, ...}; 404 when unknown. */
  public static final String RUN_TURN = "sqlagent.conversation.turn";

  /** Request {question} → {threshold, matches: [{verified_id, question, sql, score}], direct: match or null}. */
  public static final String VERIFIED_LOOKUP = "sqlagent.verified.lookup";
  /** Request {question, sql, from_run_id?} → the saved entry, once the gate passed it (422 with its error otherwise). */
  public static final String VERIFIED_ADD = "sqlagent.verified.add";
  /** Request {run_id} → the saved entry: a run rated 👍 becomes a verified query (409 when not rated up). */
  public static final String VERIFIED_PROMOTE = "sqlagent.verified.promote";
  /** Request {} → {verified: [...], active, retired}. */
  public static final String VERIFIED_LIST = "sqlagent.verified.list";
  /** Request {verified_id} → {removed: true}; 404 when unknown. */
  public static final String VERIFIED_REMOVE = "sqlagent.verified.remove";
  /** Request {} → {checked, retired, restored, entries}: every verified query through the gate again. */
  public static final String VERIFIED_RECHECK = "sqlagent.verified.recheck";
  /** Request {verified_id, reason}: the gate refused a verified query while answering with it. */
  public static final String VERIFIED_RETIRE = "sqlagent.verified.retire";
  // --- budgets (dev.sqlagent.budget) ----------------------------------------------------------------
  /** Node-local: request {@code BudgetMessages.Admit} → {@code Admission}; a question admitted is counted. */
  public static final String BUDGET_ADMIT = "sqlagent.budget.admit";
  /**
   * Node-local, sent (no reply) {@code BudgetMessages.Admit}: a question admitted and counted that never started (the
   * service was busy or stopping) gives its count back.
   */
  public static final String BUDGET_REFUND = "sqlagent.budget.refund";
  /** Node-local: request {@code BudgetMessages.UsageRequest} → {@code Usages} (403 another user's for a non-admin). */
  public static final String BUDGET_USAGE = "sqlagent.budget.usage";
  /** Published {@code BudgetMessages.BudgetFact}: a refusal or an amount counted, for the metrics. */
  public static final String BUDGET_FACTS = "sqlagent.budget.facts";
  /** Published by health when the live schema differs from the snapshot: {differences}. */
  public static final String SCHEMA_DRIFTED = "sqlagent.drift.drifted";

  // --- cluster mode (dev.sqlagent.cluster) ------------------------------------------------------------
  /** The agent of one worker node, chosen by the edge's dispatcher: the same body and reply as {@link #ASK}. */
  public static String askOn(String nodeId) {
    return ASK + ".on." + nodeId;
  }

  /** The agent of one worker node: the same body and reply as {@link #CANCEL} (404 when it has no such run). */
  public static String cancelOn(String nodeId) {
    return CANCEL + ".on." + nodeId;
  }

  /** The agent of one worker node: the same body and reply as {@link #RUNS}, that node's runs only. */
  public static String runsOn(String nodeId) {
    return RUNS + ".on." + nodeId;
  }

  /** The catalogue and retrieval of one worker node: the same body and reply as {@link #SCHEMA_REFRESH}. */
  public static String schemaRefreshOn(String nodeId) {
    return SCHEMA_REFRESH + ".on." + nodeId;
  }

  /** One node's own facts: request {} → {id, name, role, events_from_other_nodes, holds_singletons}. */
  public static String clusterNode(String nodeId) {
    return "sqlagent.cluster.node." + nodeId;
  }

  /** One node's metrics (by its name, host:port): request {} → its Prometheus text exposition. */
  public static String metricsOf(String nodeName) {
    return METRICS_SCRAPE + "." + nodeName;
  }

  /** The cluster as this node sees it: request {} → {enabled, node, role, members, log_writer}. Node-local. */
  public static final String CLUSTER_STATUS = "sqlagent.cluster.status";
  /** Node-local: request {run_id} → replied once the run's events so far are in the state store. */
  public static final String JOURNAL_FLUSH = "sqlagent.cluster.journal.flush";
}
