package dev.sqlagent.generation;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import dev.sqlagent.contract.GenerationDelta;

/**
 * Publishes a run's streamed text on {@code Addresses.generationDeltas(runId)} as {"run_id", "text"},
 * coalesced: at most one message per {@link #INTERVAL_MS} (about ten a second), plus a final flush. When a
 * retried attempt starts over, it drops what it holds and publishes {"run_id", "text": "", "reset": true}
 * so a watcher clears what it showed. Used on one context (the verticle's), so it needs no locking.
 */
final class DeltaPublisher implements DeltaSink {

  static final long INTERVAL_MS = 100;

  private final Vertx vertx;
  private final String runId;
  private final String address;
  /**
   * The run's agent is on this node (clustered too): delivered here, in order with the reply, never routed
   * through the cluster's subscription lookup (which a reply could overtake).
   */
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  private final StringBuilder pending = new StringBuilder();
  private long lastPublished;
  private long timer = -1;
  private boolean published;

  DeltaPublisher(Vertx vertx, String runId) {
    this.vertx = vertx;
    this.runId = runId;
    this.address = Addresses.generationDeltas(runId);
  }

  @Override
  public void delta(String text) {
    pending.append(text);
    if (timer >= 0) return;
    long wait = lastPublished + INTERVAL_MS - System.currentTimeMillis();
    if (wait <= 0) {
      flush();
    } else {
      timer = vertx.setTimer(wait, t -> {
        timer = -1;
        flush();
      });
    }
  }

  @Override
  public void restart() {
    cancelTimer();
    pending.setLength(0);
    if (published) {
      vertx.eventBus().publish(address, new GenerationDelta(runId, "", true).toJson(), LOCAL);
      published = false;
    }
  }

  /** The final flush: everything still held goes out now. */
  void finish() {
    cancelTimer();
    flush();
  }

  private void flush() {
    if (pending.isEmpty()) return;
    vertx.eventBus().publish(address, new GenerationDelta(runId, pending.toString(), null).toJson(), LOCAL);
    pending.setLength(0);
    lastPublished = System.currentTimeMillis();
    published = true;
  }

  private void cancelTimer() {
    if (timer >= 0) vertx.cancelTimer(timer);
    timer = -1;
  }
}
