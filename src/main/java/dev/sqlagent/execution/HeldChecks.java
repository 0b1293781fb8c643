package dev.sqlagent.execution;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks that passed and wait, briefly, for the run of their statement. The agent checks a statement, announces its
 * run, then asks for it: a check asked to hold keeps its read-only transaction open, the statement prepared and its
 * plan checked, and the run continues in that transaction. The plan checked is the plan run, the tables it read stay
 * locked against changes in between, and the statement is neither described, planned nor checked a second time. A
 * run that comes after {@link #HOLD_MS}, asks for anything else, or reaches another instance finds nothing held and
 * goes through the whole gate.
 */
final class HeldChecks {

  /** How long a passed check waits for its run: the agent asks within a few milliseconds. */
  static final long HOLD_MS = 1000;

  /** What a run must match to continue a held check: the same statement, asked the same way, in the same run. */
  record Key(String runId, String sql, int cap, String dbRole, Map<String, String> rowSettings, boolean seeSensitive) {}

  /** The wait ended without a run: the held transaction ends, and its outcome goes nowhere. */
  static final class Over extends RuntimeException {
    Over() {
      super("no run came for the held check", null, false, false);
    }
  }

  private final Vertx vertx;
  private final Map<Key, Held> waiting = new ConcurrentHashMap<>();

  HeldChecks(Vertx vertx) {
    this.vertx = vertx;
  }

  /** A check to hold under {@code key}: it waits only once it passed ({@link Held#passed}). */
  Held hold(Key key) {
    return new Held(key);
  }

  /**
   * The run of a held check: its reply, once it ran in the check's transaction; null when nothing is held for it.
   * A run that asks for anything else has moved on: its other held checks end.
   */
  Future<GateReply> run(Key key) {
    Held held = waiting.remove(key);
    if (held != null && held.go.tryComplete()) return held.ran.future();
    end(key.runId(), new Over());
    return null;
  }

  /** A stopped run's held checks end at once (their transactions roll back). */
  void stop(String runId) {
    end(runId, new ReadOnlyExecutor.Stopped());
  }

  private void end(String runId, RuntimeException why) {
    waiting.forEach((key, held) -> {
      if (key.runId().equals(runId) && waiting.remove(key, held)) held.go.tryFail(why);
    });
  }

  /** Every held check ends. */
  void close() {
    waiting.forEach((key, held) -> {
      if (waiting.remove(key, held)) held.go.tryFail(new Over());
    });
  }

  /** One check: its reply, the wait for its run, and the run's reply. */
  final class Held {
    private final Key key;
    private final Promise<GateReply> checked = Promise.promise();
    private final Promise<Void> go = Promise.promise();
    private final Promise<GateReply> ran = Promise.promise();

    private Held(Key key) {
      this.key = key;
    }

    /** The check's reply: it passed, was refused, or failed before it could. */
    Future<GateReply> checkReply() {
      return checked.future();
    }

    /**
     * Inside the transaction, once the check passed: its reply goes out and the transaction waits for the run (the
     * future succeeds) or for the wait to end (it fails: {@link Over}, or {@link ReadOnlyExecutor.Stopped}).
     */
    Future<Void> passed(GateReply reply) {
      end(key.runId(), new Over());  // one held check per run: the run has moved on from any earlier one
      waiting.put(key, this);
      long timer = vertx.setTimer(HOLD_MS, id -> {
        waiting.remove(key, this);
        go.tryFail(new Over());
      });
      go.future().onComplete(x -> vertx.cancelTimer(timer));
      checked.complete(reply);
      return go.future();
    }

    /** The transaction ended: its outcome is the check's reply when the check had none yet, else the run's. */
    void ended(AsyncResult<GateReply> outcome) {
      waiting.remove(key, this);
      go.tryFail(new Over());
      if (!checked.future().isComplete()) checked.handle(outcome);
      else if (go.future().succeeded()) ran.handle(outcome);
    }
  }
}
