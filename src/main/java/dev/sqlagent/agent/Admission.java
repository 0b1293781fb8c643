package dev.sqlagent.agent;

import dev.sqlagent.bus.BusFailure;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.util.ArrayDeque;

/**
 * Who may run now: at most {@code maxRunning} questions at once; past that up to {@code maxWaiting} wait for a slot,
 * each at most {@code maxWaitMs} (a question that waited longer would age past its deadline: it is better told to
 * come back). A full queue and a wait too long are refused as busy. Touched only on the agent's context.
 */
final class Admission {

  /** A question waiting for a slot: its request (refused on its behalf) and how it starts. */
  private record Waiting(Message<?> msg, Runnable start, long timer) {}

  private final Vertx vertx;
  private final int maxRunning;
  private final int maxWaiting;
  private final long maxWaitMs;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private int running;

  Admission(Vertx vertx, int maxRunning, int maxWaiting, long maxWaitMs) {
    this.vertx = vertx;
    this.maxRunning = maxRunning;
    this.maxWaiting = maxWaiting;
    this.maxWaitMs = maxWaitMs;
  }

  /** Starts the question now if a slot is free, else queues it, or refuses it (busy) when the queue is full. */
  void admit(Message<?> msg, Runnable start) {
    if (running < maxRunning) {
      running++;
      start.run();
      return;
    }
    if (waiting.size() >= maxWaiting) {
      msg.fail(BusFailure.BUSY.code(), "the service is answering " + running + " questions and " + waiting.size()
          + " are waiting; try again in a few seconds");
      return;
    }
    long[] timer = new long[1];
    timer[0] = vertx.setTimer(maxWaitMs, t -> giveUp(timer[0]));
    waiting.addLast(new Waiting(msg, start, timer[0]));
  }

  private void giveUp(long timer) {
    waiting.removeIf(w -> {
      if (w.timer() != timer) return false;
      w.msg().fail(BusFailure.BUSY.code(), "the service stayed busy for " + maxWaitMs / 1000 + " s; try again in a few seconds");
      return true;
    });
  }

  /** A run ended: its slot goes to the longest-waiting question. */
  void finished() {
    Waiting next = waiting.pollFirst();
    if (next == null) {
      running--;
      return;
    }
    vertx.cancelTimer(next.timer());
    next.start().run();
  }

  /** Every waiting question is refused with {@code code} and {@code message} (it never started: the process stops). */
  void refuseWaiting(int code, String message) {
    for (Waiting w = waiting.pollFirst(); w != null; w = waiting.pollFirst()) {
      vertx.cancelTimer(w.timer());
      w.msg().fail(code, message);
    }
  }
}
