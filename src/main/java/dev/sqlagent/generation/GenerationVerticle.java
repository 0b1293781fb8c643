package dev.sqlagent.generation;

import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.ModelException;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.telemetry.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
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
    Span span = modelSpan(request);
    try {
      Tracing.during(Context.current().with(span), () -> client.complete(request, deltas)).onComplete(ar -> {
        endModelSpan(span, request, ar.succeeded() ? ar.result() : null, ar.cause());
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
      endModelSpan(span, request, null, e);
      reply(msg, new ModelException(ModelException.Type.MODEL_ERROR, client.redact("generation failed: " + e.getMessage())));
    }
  }

  /**
   * The model call's span, by the GenAI semantic conventions: the model asked, and (when it ends) the model that
   * answered and the tokens. The prompt is in it only when SQLAGENT_OTLP_PROMPTS=true. Invalid when tracing is off.
   */
  private Span modelSpan(ChatRequest request) {
    Tracing tracing = Tracing.of(vertx);
    if (!tracing.on()) return Span.getInvalid();
    Span span = tracing.tracer().spanBuilder("chat " + options.model()).setSpanKind(SpanKind.CLIENT)
        .setAttribute("gen_ai.operation.name", "chat")
        .setAttribute("gen_ai.provider.name", "openai")
        .setAttribute("gen_ai.request.model", options.model())
        .setAttribute("gen_ai.request.temperature", request.temperature() == null ? 0.0 : request.temperature())
        .setAttribute("gen_ai.request.choice.count", (long) request.n())
        .setAttribute("server.address", java.net.URI.create(options.baseUrl()).getHost())
        .startSpan();
    if (tracing.prompts()) {
      io.vertx.core.json.JsonArray messages = new io.vertx.core.json.JsonArray();
      request.messages().forEach(m -> messages.add(io.vertx.core.json.JsonObject.mapFrom(m)));
      span.setAttribute("gen_ai.input.messages", messages.encode());
    }
    return span;
  }

  private void endModelSpan(Span span, ChatRequest request, Completion done, Throwable failure) {
    if (!span.isRecording()) return;
    if (done != null) {
      span.setAttribute("gen_ai.response.model", done.model() == null ? options.model() : done.model());
      span.setAttribute("gen_ai.usage.input_tokens", (long) done.promptTokens());
      span.setAttribute("gen_ai.usage.output_tokens", (long) done.completionTokens());
      if (done.finishReason() != null) {
        span.setAttribute(io.opentelemetry.api.common.AttributeKey.stringArrayKey("gen_ai.response.finish_reasons"),
            java.util.List.of(done.finishReason()));
      }
      if (Tracing.of(vertx).prompts() && done.content() != null) span.setAttribute("gen_ai.output.messages", done.content());
    } else if (failure != null) {
      span.setAttribute("error.type", failure instanceof ModelException me ? me.errorType() : "model_error");
      span.setStatus(StatusCode.ERROR, client.redact(String.valueOf(failure.getMessage())));
    }
    span.end();
  }

  private static void reply(Message<JsonObject> msg, ModelException e) {
    e.failure().failOn(msg);
  }
}
