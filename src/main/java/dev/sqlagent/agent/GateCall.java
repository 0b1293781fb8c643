package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateProgress;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

/**
 * One gate request in flight, between validate_sql and execute_sql: the gate reports when the statement has passed its
 * checks ({@link #checked}) and waits for {@link #proceed} before it sends it, so execute_sql has started before the
 * statement runs; then {@link #reply} holds the execution's verdict.
 */
final class GateCall {

  private final Promise<Message<JsonObject>> checked = Promise.promise();
  private final MessageConsumer<JsonObject> consumer;
  private Future<GateReply> reply;

  GateCall(MessageConsumer<JsonObject> consumer) {
    this.consumer = consumer;
    consumer.handler(checked::tryComplete);
  }

  /** The gate's reply; set once, when the request is sent. */
  void sent(Future<GateReply> reply) {
    this.reply = reply.eventually(consumer::unregister);
  }

  Future<GateReply> reply() {
    return reply;
  }

  /** Completes with the gate's report that the checks passed, or with null when the reply came first. */
  Future<GateProgress> checkedOrReplied() {
    Promise<GateProgress> first = Promise.promise();
    checked.future().onSuccess(m -> first.tryComplete(GateProgress.fromJson(m.body())));
    reply.onComplete(ar -> {
      if (ar.failed()) first.tryFail(ar.cause());
      else first.tryComplete(null);
    });
    return first.future();
  }

  /** Lets the gate send the statement (its report is acknowledged). */
  void proceed() {
    if (checked.future().succeeded()) checked.future().result().reply(new JsonObject());
  }
}
