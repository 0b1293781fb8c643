package dev.sqlagent.agent;

import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.StepData;
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

  void started(Node node, int attempt, StepData data) {
    started(node, node.kind(), attempt, data);
  }

  /** {@code kind}: the work the node does this time, when it is not its usual one (an inspection that probes). */
  void started(Node node, String kind, int attempt, StepData data) {
    publish(node, GraphEvent.STARTED, kind, attempt, data);
  }

  void finished(Node node, int attempt, StepData data) {
    finished(node, node.kind(), attempt, data);
  }

  void finished(Node node, String kind, int attempt, StepData data) {
    publish(node, GraphEvent.FINISHED, kind, attempt, data);
  }

  void failed(Node node, int attempt, StepData data) {
    publish(node, GraphEvent.FAILED, node.kind(), attempt, data);
  }

  void progress(Node node, int attempt, StepData data) {
    publish(node, GraphEvent.PROGRESS, node.kind(), attempt, data);
  }

  /** Only the records declared for the node's events of this status ({@link StepData#allows}) are published. */
  private void publish(Node node, String status, String kind, int attempt, StepData data) {
    if (!StepData.allows(node, status, data)) {
      throw new IllegalStateException(node.wireName() + " " + status + " may not carry " + data.getClass().getSimpleName());
    }
    JsonObject event = new GraphEvent(runId, ++seq, System.currentTimeMillis(), node.wireName(), status, attempt, kind,
        data.toJson(), user, conversationId).toJson();
    kept.add(event);
    bus.publish(Addresses.events(runId), event);
    bus.publish(Addresses.EVENTS, event);
  }
}
