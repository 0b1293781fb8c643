package dev.sqlagent.live;

import dev.sqlagent.agent.Answer;
import dev.sqlagent.agent.GraphEvent;
import dev.sqlagent.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The "watch every run" fan-out: ONE consumer on {@link Addresses#EVENTS} (and one on
 * {@link Addresses#ANSWERS}) however many sockets watch, each frame encoded once; made when the first
 * socket watches. Touched only on the HTTP verticle's event loop.
 */
final class WatchHub {

  private final Vertx vertx;
  private final Set<LiveSocket> watchers = new LinkedHashSet<>();
  private MessageConsumer<JsonObject> events;
  private MessageConsumer<JsonObject> answers;

  WatchHub(Vertx vertx) {
    this.vertx = vertx;
  }

  void add(LiveSocket socket) {
    watchers.add(socket);
    if (events == null) {
      events = vertx.eventBus().consumer(Addresses.EVENTS, m -> fanOut(LiveSocket.eventFrame(GraphEvent.fromJson(m.body()))));
      answers = vertx.eventBus().consumer(Addresses.ANSWERS, m -> fanOut(LiveSocket.answerFrame(Answer.fromJson(m.body()))));
    }
  }

  void remove(LiveSocket socket) {
    // The two consumers stay once made (one pair per HTTP verticle, not per socket): unregistering them
    // under load would discard the events already queued for them.
    watchers.remove(socket);
  }

  int watcherCount() {
    return watchers.size();
  }

  private void fanOut(String frame) {
    // A copy: a slow watcher is dropped (and removed) while we iterate.
    for (LiveSocket s : List.copyOf(watchers)) s.sendFrame(frame);
  }
}
