package dev.sqlagent.agent;

import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run ids, claimed in the state store as each run starts ({@code run_claims}, db/state/run_claims.sql). A client may name
 * its run; an id that named a run before, on this node or another, still going or long answered, is refused rather
 * than a second run being grafted onto the first's events, query-log row and feedback. The agent's memory refuses
 * the ids of its recent runs at once; this refuses the rest.
 *
 * <p>A claim also names the process running it and is marked finished once the run's turn is written, so that a run
 * cut short with its process (killed, crashed) is found by the next one to start and recorded as interrupted.
 */
final class RunClaimsRepository {

  private static final Logger LOG = LoggerFactory.getLogger(RunClaimsRepository.class);
  private static final String CLAIM = "INSERT INTO run_claims (run_id, user_name, node, question, conversation_id, source, mode)"
      + " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING";
  private static final String FINISH = "UPDATE run_claims SET finished_at = now() WHERE run_id = $1 AND finished_at IS NULL";
  /**
   * The unfinished claims of processes not among the live ones, marked finished as they are taken (row by row, so two
   * instances sweeping at once take each claim once), with whether the run has its log row and its turn already (a
   * run that answered just before its process died, or a cluster edge's worker_lost give-up).
   */
  private static final String SWEEP = """
      WITH swept AS (
        UPDATE run_claims SET finished_at = now()
        WHERE finished_at IS NULL AND node IS NOT NULL AND node <> ALL($1)
        RETURNING run_id, user_name, node, question, conversation_id, source, mode, claimed_at)
      SELECT s.*, EXISTS (SELECT 1 FROM agent_query_log l WHERE l.run_id = s.run_id) AS logged,
        EXISTS (SELECT 1 FROM conversation_turns t WHERE t.run_id = s.run_id) AS turned
      FROM swept s ORDER BY s.claimed_at""";
  /**
   * The longest a run waits for its claim. The store not answering does not stop questions (the query log, too, only
   * buffers without it): past this the run goes ahead unclaimed, and the log says so.
   */
  static final long WAIT_MS = 2_000;

  private final Pool pool;

  private final dev.sqlagent.db.StatementSpans spans;

  /** @param pool the state store's shared owner pool */
  RunClaimsRepository(Pool pool, dev.sqlagent.db.StatementSpans spans) {
    this.pool = pool;
    this.spans = spans;
  }

  /** What a claim says of its run: enough to record it as interrupted when its process is gone before it answered. */
  record Claim(String runId, String user, String node, String question, String conversationId, String source,
      String mode, java.time.Instant claimedAt, boolean logged, boolean turned) {}

  /**
   * Succeeds once {@code runId} is this run's (on {@code node}, this process); fails with a {@link BusFailure#BAD_REQUEST}
   * when it named a run before.
   */
  Future<Void> claim(String runId, String user, String node, String question, String conversationId, String source,
      String mode) {
    Tuple claim = Tuple.of(runId, user, node, question, conversationId, source).addValue(mode);
    return spans.traced(CLAIM, () -> pool.preparedQuery(CLAIM).execute(claim)).timeout(WAIT_MS, TimeUnit.MILLISECONDS)
        .transform(done -> {
          if (done.failed()) {
            LOG.warn("run {} goes ahead unclaimed: the state store did not take its id ({})", runId, done.cause().toString());
            return Future.succeededFuture();
          }
          return done.result().rowCount() == 1 ? Future.succeededFuture()
              : Future.failedFuture(new BusError(BusFailure.BAD_REQUEST, "run_id " + runId + " is already in use"));
        });
  }

  /** The run answered (or failed in the open): it is no longer one to find interrupted. Never fails. */
  Future<Void> finish(String runId) {
    return spans.traced(FINISH, () -> pool.preparedQuery(FINISH).execute(Tuple.of(runId)))
        .<Void>mapEmpty()
        .recover(e -> {
          LOG.warn("run {}: its claim could not be marked finished ({}); a later start finds it answered", runId, e.toString());
          return Future.succeededFuture();
        });
  }

  /** Takes the unfinished claims of every process but {@code live} (node ids), oldest first. */
  Future<java.util.List<Claim>> sweep(java.util.Set<String> live) {
    return pool.preparedQuery(SWEEP).execute(Tuple.of(live.toArray(new String[0]))).map(rows -> {
      java.util.List<Claim> out = new java.util.ArrayList<>();
      for (io.vertx.sqlclient.Row r : rows) {
        out.add(new Claim(r.getString("run_id"), r.getString("user_name"), r.getString("node"), r.getString("question"),
            r.getString("conversation_id"), r.getString("source"), r.getString("mode"),
            r.getOffsetDateTime("claimed_at").toInstant(), r.getBoolean("logged"), r.getBoolean("turned")));
      }
      return out;
    });
  }
}
