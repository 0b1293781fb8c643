package dev.sqlagent.querylog;

import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.Keep;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one answer's log row durably, in cluster mode: has the query-log writer, on whichever node holds it
 * now, confirm the row is committed ({@link Addresses#QUERY_LOG_KEEP}), and asks again, the next holder after a
 * takeover, until it is. Both the worker that produced an answer and the edge that delivers it do this, so the
 * row is kept as long as either of them lives: a worker killed after its reply, an edge killed while its run
 * went on, or the writer's node killed with rows in its buffer costs no row. Run ids are unique in the log
 * (the insert skips conflicts), so the two requests write one row.
 */
public final class AnswerKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(AnswerKeeper.class);

  /** How long one request waits for the writer's confirmation before it is asked again. */
  static final long REQUEST_MS = 3_000;
  /** How long a row is asked for before it is given up (logged at ERROR as dropped). */
  static final long GIVE_UP_MS = 10 * 60_000;
  /** The longest pause between two requests (the first pauses are 100 ms, doubling). */
  static final long MAX_PAUSE_MS = 2_000;

  private final Vertx vertx;
  private final StateClient writer;
  private final String who;

  /** @param who the node's part, for the log ("the edge", "the worker") */
  public AnswerKeeper(Vertx vertx, String who) {
    this.vertx = vertx;
    this.writer = new StateClient(vertx, REQUEST_MS);
    this.who = who;
  }

  /**
   * Completes once the answer's row is committed, at once for an answer that is not logged (evaluation). Fails
   * with a {@link BusError} when the writer refused the row (it counted and logged the drop: asking again cannot
   * help) or when no writer confirmed it within {@link #GIVE_UP_MS} (logged here).
   */
  public Future<Void> keep(JsonObject answer) {
    if (!QueryLogVerticle.logged(answer)) return Future.succeededFuture();
    long since = System.currentTimeMillis();
    Keep request = new Keep(answer, since);
    Promise<Void> kept = Promise.promise();
    ask(request, answer.getString("run_id"), since, 0, kept);
    return kept.future();
  }

  private void ask(Keep request, String runId, long since, int tries, Promise<Void> kept) {
    writer.keep(request).onComplete(ar -> {
      if (ar.succeeded()) {
        if (tries > 0) LOG.info("run {}: its log row is kept ({}) after {} more request(s)", runId, who, tries);
        kept.complete();
        return;
      }
      BusError err = BusError.of(ar.cause(), StateClient.QUERY_LOG);
      if (err.failure() == BusFailure.REJECTED || err.failure() == BusFailure.BAD_REQUEST) {
        kept.fail(err);
        return;
      }
      long waited = System.currentTimeMillis() - since;
      if (waited >= GIVE_UP_MS) {
        LOG.error("query log: DROPPED the row of run {}: no log writer confirmed it to {} in {} s (last: {})", runId, who,
            waited / 1000, err.getMessage());
        kept.fail(new BusError(BusFailure.UNAVAILABLE, "no query-log writer confirmed the row of run " + runId));
        return;
      }
      if (tries == 0) LOG.info("run {}: asking the log writer again for its row ({}): {}", runId, who, err.getMessage());
      vertx.setTimer(Math.min(MAX_PAUSE_MS, 100L << Math.min(tries, 5)), t -> ask(request, runId, since, tries + 1, kept));
    });
  }
}
