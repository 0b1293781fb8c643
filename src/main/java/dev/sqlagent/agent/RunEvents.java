package dev.sqlagent.agent;

import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.bus.Addresses;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Publishes one run's events in order, numbering them, and keeps them for late joiners. */
final class RunEvents {

  private final EventBus bus;
  private final String runId;
  private final JsonArray kept;
  /** The asking user's name (null without a users file): every event says whose run it is. */
  private final String user;
  private long seq;
  private String conversationId;

  RunEvents(EventBus bus, String runId, JsonArray kept, String user) {
    this.bus = bus;
    this.runId = runId;
    this.kept = kept;
    this.user = user;
  }

  /** Every event of the run names its conversation from now on. */
  void inConversation(String id) {
    this.conversationId = id;
  }

  void started(String node, String kind, int attempt, JsonObject data) {
    publish(node, GraphEvent.STARTED, kind, attempt, data);
  }

  void finished(String node, String kind, int attempt, JsonObject data) {
    publish(node, GraphEvent.FINISHED, kind, attempt, data);
  }

  void failed(String node, String kind, int attempt, JsonObject data) {
    publish(node, GraphEvent.FAILED, kind, attempt, data);
  }

  void progress(String node, String kind, int attempt, JsonObject data) {
    publish(node, GraphEvent.PROGRESS, kind, attempt, data);
  }

  private void publish(String node, String status, String kind, int attempt, JsonObject data) {
    JsonObject event = new GraphEvent(runId, ++seq, System.currentTimeMillis(), node, status, attempt, kind,
        data == null ? new JsonObject() : data, user, conversationId).toJson();
    kept.add(event);
    bus.publish(Addresses.events(runId), event);
    bus.publish(Addresses.EVENTS, event);
  }
}
