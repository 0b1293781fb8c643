package dev.sqlagent.agent;

import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * Stopping one run: a cancel (its owner, an admin, a client that went away) or the question's deadline. Either
 * publishes {@link Addresses#STOP_WORK}, so the model call in flight is aborted and the statement running is
 * cancelled in the database; the run's next step then sees {@link Stopped}. Work that does not wind down
 * within {@link #GRACE_MS} is not waited for. Touched only on the agent's context.
 */
final class RunControl {

  /** How long stopped work may take to wind down before the run ends without it. */
  static final long GRACE_MS = 2_000;

  /** The run was stopped: by a cancel ({@link #cancelled()}) or by its deadline. */
  static final class Stopped extends RuntimeException {
    Stopped(String message) {
      super(message, null, false, false);
    }
  }

  private final Vertx vertx;
  private final String runId;
  private final Promise<Void> grace = Promise.promise();
  private boolean cancelled;
  private boolean deadlinePassed;
  private String cancelledBy;
  private long cancelledAt;

  RunControl(Vertx vertx, String runId) {
    this.vertx = vertx;
    this.runId = runId;
  }

  /** Cancels the run; false when it was already stopped. */
  boolean cancel(String by) {
    if (cancelled) return false;
    cancelled = true;
    cancelledBy = by;
    cancelledAt = System.currentTimeMillis();
    stopWork();
    return true;
  }

  /** The question's deadline passed: its work stops the same way, and the run gives up as timed out. */
  void deadline() {
    if (cancelled || deadlinePassed) return;
    deadlinePassed = true;
    stopWork();
  }

  boolean cancelled() {
    return cancelled;
  }

  boolean deadlinePassed() {
    return deadlinePassed;
  }

  String cancelledBy() {
    return cancelledBy;
  }

  long cancelledAt() {
    return cancelledAt;
  }

  private void stopWork() {
    vertx.eventBus().publish(Addresses.STOP_WORK, new OpsMessages.StopWork(runId).toJson());
    vertx.setTimer(GRACE_MS, t -> grace.tryComplete());
  }

  /**
   * One step's work, as the run sees it: after a cancel its outcome (whatever it is) is {@link Stopped}; after
   * the deadline it is the work's own (a cancelled statement reads as a timeout); and work that has not ended
   * {@link #GRACE_MS} after either is left behind.
   */
  <T> Future<T> guard(java.util.function.Supplier<Future<T>> work) {
    if (cancelled) return Future.failedFuture(new Stopped("cancelled"));
    Promise<T> out = Promise.promise();
    work.get().onComplete(ar -> {
      if (cancelled) {
        out.tryFail(new Stopped("cancelled"));
      } else if (ar.succeeded()) {
        out.tryComplete(ar.result());
      } else {
        out.tryFail(ar.cause());
      }
    });
    grace.future().onComplete(v -> out.tryFail(new Stopped(cancelled ? "cancelled" : "deadline")));
    return out.future();
  }
}
