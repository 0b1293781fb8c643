package dev.sqlagent.generation;

import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.ModelException;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model behind {@code Addresses.GENERATE}: request {"run_id", "messages", "stream"}, reply a
 * {@link Completion}; a failure is the {@link ModelException}'s {@code BusFailure} and its message. Every request gets
 * exactly one answer, by the call's deadline at the latest. Streamed text is published, coalesced, on
 * {@code Addresses.generationDeltas(runId)}.
 */
public final class GenerationVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(GenerationVerticle.class);

  private final ChatClientOptions options;
  private ChatClient client;

  public GenerationVerticle(ChatClientOptions options) {
    this.options = options;
  }

  @Override
  public Future<?> start() {
    client = new ChatClient(vertx, options);
    LOG.info("generation: {}", options);
    // A stopped run (cancelled, or past its deadline): its model call in flight is aborted.
    vertx.eventBus().<JsonObject>consumer(Addresses.STOP_WORK, m -> client.abort(java.util.Objects.requireNonNullElse(OpsMessages.StopWork.fromJson(m.body()).runId(), "")));
    return vertx.eventBus().<JsonObject>consumer(Addresses.GENERATE, this::onGenerate).completion();
  }

  @Override
  public Future<?> stop() {
    return client == null ? Future.succeededFuture() : client.close();
  }

  private void onGenerate(Message<JsonObject> msg) {
    ChatRequest request;
    try {
      request = ChatRequest.fromJson(msg.body());
    } catch (RuntimeException e) {
      LOG.warn("bad generation request: {}", e.getMessage());
      reply(msg, new ModelException(ModelException.Type.BAD_REQUEST, "bad generation request: " + e.getMessage()));
      return;
    }
    DeltaPublisher deltas = request.stream() ? new DeltaPublisher(vertx, request.runId()) : null;
    try {
      client.complete(request, deltas).onComplete(ar -> {
        if (deltas != null) deltas.finish();
        if (ar.succeeded()) {
          msg.reply(ar.result().toJson());
        } else {
          ModelException e = ar.cause() instanceof ModelException me ? me
              : new ModelException(ModelException.Type.MODEL_ERROR, client.redact(String.valueOf(ar.cause().getMessage())));
          LOG.warn("model call run={} failed: {} {}", request.runId() == null ? "-" : request.runId(), e.errorType(), e.getMessage());
          reply(msg, e);
        }
      });
    } catch (RuntimeException e) {
      reply(msg, new ModelException(ModelException.Type.MODEL_ERROR, client.redact("generation failed: " + e.getMessage())));
    }
  }

  private static void reply(Message<JsonObject> msg, ModelException e) {
    e.failure().failOn(msg);
  }
}
