package dev.sqlagent.mcp;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.Node;
import dev.sqlagent.display.StepLine;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.LoggingLevel;
import io.modelcontextprotocol.spec.McpSchema.LoggingMessageNotification;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * A run's steps sent live to the MCP client whose tool call started it: each step's start and end (never the
 * model's streamed tokens) as {@code notifications/progress} when the call carried a progress token, and as an
 * info {@code notifications/message}, both worded by {@link StepLine}. The steps are the run's own events on
 * {@link Addresses#events}, watched from before the run starts; the tool's result is handed back once every
 * step seen before it was sent, so no notification trails the result.
 */
final class StepNotifications {

  private static final Logger LOG = LoggerFactory.getLogger(StepNotifications.class);

  /** The logger name clients see on the log messages. */
  static final String LOGGER = "sql-agent";
  /** A client that takes longer than this to accept one notification misses it rather than holding up the run's result. */
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(5);

  private final McpAsyncServerExchange exchange;
  private final Object progressToken;
  private final Context context;
  /** The notifications so far, chained so they reach the client in the run's order. */
  private Future<Void> sent = Future.succeededFuture();
  private int steps;

  private StepNotifications(McpAsyncServerExchange exchange, Object progressToken, Context context) {
    this.exchange = exchange;
    this.progressToken = progressToken;
    this.context = context;
  }

  /**
   * Calls {@code call}, which starts the run {@code runId}, with that run's steps sent to the client meanwhile.
   *
   * @param progressToken the tool call's {@code _meta.progressToken}; null: log messages only
   */
  static <T> Future<T> during(Vertx vertx, McpAsyncServerExchange exchange, Object progressToken, String runId,
      Supplier<Future<T>> call) {
    Context context = vertx.getOrCreateContext();
    Promise<T> result = Promise.promise();
    context.runOnContext(v -> {
      StepNotifications notifications = new StepNotifications(exchange, progressToken, context);
      MessageConsumer<JsonObject> steps = vertx.eventBus().consumer(Addresses.events(runId), m -> notifications.step(m.body()));
      steps.completion()
          .onFailure(e -> LOG.warn("the steps of run {} cannot be watched: {}", runId, e.toString()))
          // Unwatched, the question is still answered.
          .otherwiseEmpty()
          .compose(registered -> call.get())
          // One more turn of the context: the run publishes its last step before it answers, so the step is
          // handled before this and its notification goes before the result.
          .onComplete(done -> context.runOnContext(after -> {
            steps.unregister();
            notifications.sent.onComplete(all -> result.handle(done));
          }));
    });
    return result.future();
  }

  private void step(JsonObject body) {
    GraphEvent event;
    try {
      event = GraphEvent.fromJson(body);
    } catch (IllegalArgumentException e) {
      LOG.debug("an event that is not a step: {}", e.getMessage());
      return;
    }
    if (GraphEvent.PROGRESS.equals(event.status())) return;
    // The explanation is worked out after the answer is sent, so it belongs to no tool call's steps: sent or not
    // depending on how fast it came, it would make the call's last step a race.
    if (Node.EXPLAIN_SQL.wireName().equals(event.node())) return;
    String line = StepLine.of(event);
    int progress = ++steps;
    sent = sent.compose(previous -> Future.fromCompletionStage(send(progress, line).toFuture(), context));
  }

  private Mono<Void> send(int progress, String line) {
    Mono<Void> progressed = progressToken == null ? Mono.empty()
        : exchange.progressNotification(new ProgressNotification(progressToken, progress, null, line));
    Mono<Void> logged = exchange.loggingNotification(
        LoggingMessageNotification.builder().level(LoggingLevel.INFO).logger(LOGGER).data(line).build());
    return progressed.then(logged)
        .timeout(SEND_TIMEOUT)
        .onErrorResume(e -> {
          LOG.debug("MCP session {}: step not sent ({}): {}", exchange.sessionId(), e.toString(), line);
          return Mono.empty();
        });
  }
}
