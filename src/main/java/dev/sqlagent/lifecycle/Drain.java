package dev.sqlagent.lifecycle;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.OpsMessages;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stop that loses no question: readiness turns 503 and new questions are refused at once ({@link Lifecycle});
 * the questions in flight get up to the drain time to finish; those still running then are cancelled honestly
 * (the model call abandoned, the statement cancelled in PostgreSQL, an answer marked cancelled and its query-log
 * row written); then, once every answer has gone out, the caller closes Vert.x (the query log flushes its rows as
 * it stops).
 */
public final class Drain {

  private static final Logger LOG = LoggerFactory.getLogger(Drain.class);

  /**
   * After the deadline, how long the cancelled runs may take to end and their answers to reach their clients: a
   * cancel winds down within the agent's grace (2 s), a clustered edge waits for its workers' answers too.
   */
  static final long AFTER_DEADLINE_MS = 15_000;
  /** Time for the last answers' bytes to leave the HTTP and WebSocket connections before they are closed. */
  static final long FLUSH_MS = 300;

  private Drain() {}

  /**
   * Drains this process (blocking: a shutdown hook's thread, never an event loop). Returns once every question
   * in flight has its answer, or after {@code drainMs} + {@link #AFTER_DEADLINE_MS} at the latest.
   */
  public static void run(Vertx vertx, long drainMs) {
    long t0 = System.currentTimeMillis();
    Lifecycle.stopping(vertx);
    LOG.info("stopping: readiness is 503 and new questions are refused; questions in flight have {} s to finish",
        drainMs / 1000.0);
    JsonObject drain = new OpsMessages.Drain(t0 + drainMs).toJson();
    DeliveryOptions options = new DeliveryOptions().setLocalOnly(true).setSendTimeout(drainMs + AFTER_DEADLINE_MS);
    Future<OpsMessages.Drained> agent = ask(vertx, Addresses.DRAIN_AGENT, drain, options);
    Future<OpsMessages.Drained> edge = ask(vertx, Addresses.DRAIN_EDGE, drain, options);
    try {
      Future.all(agent, edge).await(drainMs + AFTER_DEADLINE_MS + 5_000, TimeUnit.MILLISECONDS);
      OpsMessages.Drained a = agent.result();
      OpsMessages.Drained e = edge.result();
      LOG.info("drained in {} ms: {} question(s) finished, {} cancelled at the deadline", System.currentTimeMillis() - t0,
          a.finished() + e.finished(), a.cancelled() + e.cancelled());
      Thread.sleep(FLUSH_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("drain did not complete ({}); stopping anyway", e.getMessage());
    }
  }

  /** A drain request to one local participant; none deployed there (a worker has no edge, an edge no agent) is 0/0. */
  private static Future<OpsMessages.Drained> ask(Vertx vertx, String address, JsonObject drain, DeliveryOptions options) {
    return vertx.eventBus().<JsonObject>request(address, drain, options)
        .map(reply -> OpsMessages.Drained.fromJson(reply.body()))
        .recover(err -> err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS
            ? Future.succeededFuture(new OpsMessages.Drained(0, 0)) : Future.failedFuture(err));
  }
}
