package dev.sqlagent.config;

/**
 * Every wait derived from the configured timeouts, in one place, so an outer wait always outlasts what it
 * waits for: a queued question gives up before the edge that asked for it does, the edges (HTTP, /ws, the
 * bridge, MCP tools, the CLI) outwait the question's own deadline, and the MCP SDK outwaits the edges, so the
 * innermost deadline is the one that speaks.
 */
public record Deadlines(long statementMs, long llmCallMs, long questionMs, long healthCheckMs) {

  /** What an edge adds to the question's deadline: room for the queue wait and the reply's trip back. */
  static final long EDGE_MARGIN_MS = 15_000;
  /** What a cluster edge's dispatcher adds when it forwards a question to a worker: past the edges' margin. */
  static final long DISPATCH_MARGIN_MS = 20_000;
  /** What the MCP SDK adds to the question's deadline: past the dispatcher's margin. */
  static final long MCP_MARGIN_MS = 30_000;
  /** The longest a question waits for a slot: well under the edges' margin. */
  static final long MAX_QUEUE_WAIT_MS = 10_000;
  /**
   * Clustered: the longest an answer waits at its edge for its log row to be confirmed (a takeover of the writer
   * after its node died takes a few seconds): under the edges' margin, so a slow writer never turns an answer
   * into a client's timeout.
   */
  static final long LOG_KEEP_WAIT_MS = 10_000;

  public static Deadlines of(AppConfig c) {
    return new Deadlines(c.statementTimeoutMs(), c.llmCallTimeoutMs(), c.questionTimeoutMs(), c.healthTimeoutMs());
  }

  /**
   * One gate or retrieval step inside a question: the statement timeout twice (the gate runs a statement once more
   * after a hot standby cancelled it for a recovery conflict) plus planning and queueing headroom.
   */
  public long stepMs() {
    return 2 * statementMs + 10_000;
  }

  /** How long a question may wait for a slot when the service is full: a quarter of its deadline, 1 to 10 s. */
  public long queueWaitMs() {
    return Math.max(1_000, Math.min(MAX_QUEUE_WAIT_MS, questionMs / 4));
  }

  /** How long an edge waits for a question's answer. */
  public long askMs() {
    return questionMs + EDGE_MARGIN_MS;
  }

  /**
   * Clustered: how long an edge's dispatcher waits for the worker it handed a question to. Longer than the
   * edges' own wait, so a slow answer times out there, with their message.
   */
  public long dispatchMs() {
    return questionMs + DISPATCH_MARGIN_MS;
  }

  /**
   * Clustered: how long an edge holds an answer back until its query-log row is confirmed; after that the
   * answer goes out and the row is still asked for.
   */
  public long logKeepWaitMs() {
    return LOG_KEEP_WAIT_MS;
  }

  /** The MCP SDK's own deadline for a tool call, and the evaluation's for one question. */
  public long outerMs() {
    return questionMs + MCP_MARGIN_MS;
  }

  /** The SQL console's and the quick tools' wait for the gate or the catalogue. */
  public long queryMs() {
    return 2 * statementMs + 30_000;
  }

  /** Clustered: health's wait for each member's own status, inside one check's deadline. */
  public long memberProbeMs() {
    return Math.max(200, healthCheckMs - 300);
  }

  /** /api/health's wait for the report: each check has its own deadline, the report a second more. */
  public long readinessMs() {
    return healthCheckMs + 1_000;
  }
}
