package dev.sqlagent.live;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The "watch every run" fan-out: ONE consumer on {@link Addresses#EVENTS} (and one on
 * {@link Addresses#ANSWERS}) however many sockets watch, each frame encoded once; made when the first
 * socket watches and given back when the last one stops (unwatch, or its socket closes). In a cluster the
 * consumer is this node's subscription to every run's events: while it exists every worker copies every event
 * here, so it must not outlive the last watcher. Touched only on the HTTP verticle's event loop.
 */
final class WatchHub {

  private final Vertx vertx;
  private final Set<LiveSocket> watchers = new LinkedHashSet<>();
  private MessageConsumer<JsonObject> events;
  private MessageConsumer<JsonObject> answers;
  private Future<Void> subscribed = Future.succeededFuture();

  WatchHub(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Completes once the subscription is in place (in a cluster: known to the other nodes' event bus). */
  Future<Void> add(LiveSocket socket) {
    watchers.add(socket);
    if (events == null) {
      events = vertx.eventBus().consumer(Addresses.EVENTS, m -> {
        GraphEvent e = GraphEvent.fromJson(m.body());
        fanOut(LiveSocket.eventFrame(e), e.user());
      });
      answers = vertx.eventBus().consumer(Addresses.ANSWERS, m -> {
        Answer a = Answer.fromJson(m.body());
        fanOut(LiveSocket.answerFrame(a), a.user());
      });
      subscribed = Future.all(events.completion(), answers.completion()).mapEmpty();
    }
    return subscribed;
  }

  void remove(LiveSocket socket) {
    watchers.remove(socket);
    if (watchers.isEmpty() && events != null) {
      // Whatever is still queued for these consumers has no watcher left to go to.
      events.unregister();
      answers.unregister();
      events = null;
      answers = null;
      subscribed = Future.succeededFuture();
    }
  }

  int watcherCount() {
    return watchers.size();
  }

  /** One frame of a run owned by {@code owner}, to every watcher allowed to see it (its owner, the admins). */
  private void fanOut(String frame, String owner) {
    // A copy: a slow watcher is dropped (and removed) while we iterate.
    for (LiveSocket s : List.copyOf(watchers)) {
      if (s.watches(owner)) s.sendFrame(frame);
    }
  }
}
