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
 */
final class RunClaimsRepository {

  private static final Logger LOG = LoggerFactory.getLogger(RunClaimsRepository.class);
  private static final String CLAIM = "INSERT INTO run_claims (run_id, user_name) VALUES ($1, $2) ON CONFLICT DO NOTHING";
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

  /** Succeeds once {@code runId} is this run's; fails with a {@link BusFailure#BAD_REQUEST} when it named a run before. */
  Future<Void> claim(String runId, String user) {
    return spans.traced(CLAIM, () -> pool.preparedQuery(CLAIM).execute(Tuple.of(runId, user))).timeout(WAIT_MS, TimeUnit.MILLISECONDS)
        .transform(done -> {
          if (done.failed()) {
            LOG.warn("run {} goes ahead unclaimed: the state store did not take its id ({})", runId, done.cause().toString());
            return Future.succeededFuture();
          }
          return done.result().rowCount() == 1 ? Future.succeededFuture()
              : Future.failedFuture(new BusError(BusFailure.BAD_REQUEST, "run_id " + runId + " is already in use"));
        });
  }
}
