package dev.sqlagent.querylog;

import dev.sqlagent.contract.StateMessages.Flush;
import dev.sqlagent.contract.StateMessages.Keep;
import dev.sqlagent.contract.StateMessages.Kept;
import dev.sqlagent.contract.StateMessages.LogFacts;
import dev.sqlagent.contract.StateMessages.LogStatus;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only code that writes to the database, as {@code sql_agent_log}: one {@code agent_query_log} row per
 * finished run asked through a user-facing entry (every source but "eval"), taken from
 * {@link Addresses#ANSWERS}, so the agent knows nothing of it.
 *
 * <p>Rows wait in a bounded in-memory buffer and are written in order, in batches, each batch in one
 * transaction. While the database is unavailable, writes are retried with exponential backoff (250 ms up to
 * {@code logRetryMaxMs}). A row is only ever lost by being dropped, and a drop is counted, logged at ERROR
 * with the run id, published on {@link Addresses#QUERY_LOG_FACTS} (the metrics count it) and shown by
 * {@link Addresses#QUERY_LOG_STATUS} (the readiness report shows it). Rows are dropped when the buffer is
 * full, when the database rejects one row's values (isolated by retrying one row at a time) and when the
 * service stops before it could write them.
 *
 * <p>Retries cannot write a row twice: run ids are unique in the table and the insert skips conflicts.
 *
 * <p>{@link Addresses#QUERY_LOG_KEEP} takes one answer and replies once its row is committed. In cluster mode
 * it is the log's only input: the worker that produced an answer and the edge that delivers it each ask it
 * ({@link AnswerKeeper}), and ask again, the next holder after a takeover, until it is confirmed; the published
 * answers are not read there, so a worker that dies after its reply, an edge that dies before delivering, or a
 * writer that dies with rows in its buffer costs no row. A row that is still waiting when the writer stops is
 * left to the askers' next request, not counted as dropped.
 * All state lives on this verticle's event loop.
 */
public final class QueryLogVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(QueryLogVerticle.class);

  static final int BATCH = 100;
  static final long FIRST_BACKOFF_MS = 250;
  private static final long STOP_FLUSH_MS = 5_000;

  /** How many rows wait in memory while the database is unavailable, and the longest wait between retries. */
  public record Limits(int bufferRows, long retryMaxMs) {
    public static Limits from(dev.sqlagent.config.AppConfig c) {
      return new Limits(c.logBufferRows(), c.logRetryMaxMs());
    }
  }

  private final StateDatabase state;
  private final int capacity;
  private final long retryMaxMs;
  /** Whether the published answers are the log's input (one process); clustered, only keep requests are. */
  private final boolean fromAnswers;
  /**
   * The keep requests waiting for each buffered row, by run id: clustered, the worker that produced an answer
   * and the edge that delivers it both ask, often at the same moment, and each is answered.
   */
  private final Map<String, List<Message<JsonObject>>> keepers = new HashMap<>();
  private QueryLogRepository rows;

  private final Deque<LogRow> buffer = new ArrayDeque<>();
  /** The trace context each buffered row's answer came in, by run id: a batch's write is a span of its first row's trace. */
  private final Map<String, io.opentelemetry.context.Context> traced = new HashMap<>();
  private final List<Runnable> drainedWaiters = new ArrayList<>();
  private boolean writing;
  private boolean stopping;
  private int batchLimit = BATCH;
  private long backoffMs;
  private long retryTimer = -1;
  private long written;
  private long dropped;
  private long failedWrites;
  private String lastError;
  private Instant lastErrorAt;
  private Instant lastWrittenAt;

  /** @param state the open state store, whose log-role pool the rows are written through */
  public QueryLogVerticle(StateDatabase state, Limits limits) {
    this(state, limits, true);
  }

  /** @param fromAnswers false in cluster mode: rows come only through {@link Addresses#QUERY_LOG_KEEP} */
  public QueryLogVerticle(StateDatabase state, Limits limits, boolean fromAnswers) {
    this.state = state;
    this.capacity = limits.bufferRows();
    this.retryMaxMs = limits.retryMaxMs();
    this.fromAnswers = fromAnswers;
  }

  /** Whether this answer (its JSON) is logged at all: every source a person asks through, not evaluation. */
  public static boolean logged(JsonObject answer) {
    Object source = answer.getValue("source");
    return LogRow.LOGGED_SOURCES.contains(source == null ? "eventbus" : String.valueOf(source));
  }

  @Override
  public Future<?> start() {
    rows = new QueryLogRepository(state.log(), state.spans());
    var bus = vertx.eventBus();
    return Future.all(
        fromAnswers ? bus.<JsonObject>consumer(Addresses.ANSWERS, this::onAnswer).completion() : Future.succeededFuture(),
        bus.<JsonObject>consumer(Addresses.QUERY_LOG_KEEP, this::onKeep).completion(),
        bus.<JsonObject>consumer(Addresses.QUERY_LOG_STATUS, m -> m.reply(status().toJson())).completion(),
        bus.<JsonObject>consumer(Addresses.QUERY_LOG_FLUSH, this::onFlush).completion());
  }

  /** Writes what it can in a few seconds; whatever is left is reported as dropped, never silently lost. */
  @Override
  public Future<?> stop() {
    stopping = true;
    Future<Void> drained = buffer.isEmpty() && !writing ? Future.succeededFuture() : whenDrained(STOP_FLUSH_MS);
    return drained.otherwiseEmpty().compose(v -> {
      // Rows someone is waiting for are asked again of the next writer: only the others are lost.
      keepers.values().forEach(waiting -> waiting.forEach(m -> m.fail(BusFailure.UNAVAILABLE.code(),
          "the query-log writer is stopping; ask the next one")));
      List<String> runs = buffer.stream().map(LogRow::runId).filter(id -> !keepers.containsKey(id)).toList();
      keepers.clear();
      if (!runs.isEmpty()) {
        dropped += runs.size();
        LOG.error("query log: stopping with {} unwritten row(s) after {} failed write(s) ({}); dropped runs {}",
            runs.size(), failedWrites, lastError, runs);
      }
      buffer.clear();
      traced.clear();
      if (retryTimer != -1) vertx.cancelTimer(retryTimer);
      return Future.succeededFuture();
    });
  }

  private void onAnswer(Message<JsonObject> msg) {
    if (msg.body() == null) return;
    Answer answer;
    LogRow row;
    try {
      answer = Answer.fromJson(msg.body());
      if (!LogRow.logged(answer)) return;
      row = LogRow.fromAnswer(answer, Instant.now());
    } catch (RuntimeException e) {
      drop(Answer.runIdIn(msg.body()), "the answer could not be read (" + e.getMessage() + ")");
      return;
    }
    if (buffer.size() >= capacity) {
      drop(row.runId(), "the buffer is full (" + capacity + " rows waiting"
          + (lastError == null ? "" : "; last write error: " + lastError) + ")");
      return;
    }
    buffer.addLast(row);
    traced.put(row.runId(), io.opentelemetry.context.Context.current());
    facts();
    writeSoon();
  }

  /** {@link Addresses#QUERY_LOG_KEEP}: the answer's row, replied once committed. */
  private void onKeep(Message<JsonObject> msg) {
    Keep request = Keep.fromJson(msg.body());
    JsonObject json = request.answer();
    if (json == null || !logged(json)) {
      msg.reply(new Kept(null, false).toJson());
      return;
    }
    String runId = String.valueOf(json.getValue("run_id", "?"));
    List<Message<JsonObject>> waiting = keepers.get(runId);
    if (waiting != null) {
      // Asked again (an earlier request timed out) or by the other node: the row is in the buffer already.
      waiting.add(msg);
      return;
    }
    LogRow row;
    try {
      Instant answeredAt = request.answeredAt() != null ? Instant.ofEpochMilli(request.answeredAt()) : Instant.now();
      row = LogRow.fromAnswer(Answer.fromJson(json), answeredAt);
    } catch (RuntimeException e) {
      drop(runId, "the answer could not be read (" + e.getMessage() + ")");
      msg.fail(BusFailure.BAD_REQUEST.code(), "the answer could not be read: " + e.getMessage());
      return;
    }
    if (stopping || buffer.size() >= capacity) {
      // Not dropped: the asker asks again (this writer, once it has room, or the next one).
      if (stopping) {
        msg.fail(BusFailure.UNAVAILABLE.code(), "the query-log writer is stopping");
      } else {
        msg.fail(BusFailure.BUSY.code(), "the query log's buffer is full (" + capacity + " rows)");
      }
      return;
    }
    keepers.put(runId, new ArrayList<>(List.of(msg)));
    buffer.addLast(row);
    traced.put(row.runId(), io.opentelemetry.context.Context.current());
    facts();
    writeSoon();
  }

  private void kept(LogRow row) {
    traced.remove(row.runId());
    List<Message<JsonObject>> waiting = keepers.remove(row.runId());
    if (waiting != null) waiting.forEach(m -> m.reply(new Kept(row.runId(), true).toJson()));
  }

  private void drop(String runId, String why) {
    dropped++;
    LOG.error("query log: DROPPED the row of run {}: {}; {} row(s) dropped since start", runId, why, dropped);
    facts();
  }

  private void writeSoon() {
    if (!writing && retryTimer == -1 && !buffer.isEmpty()) write();
  }

  private void write() {
    writing = true;
    List<LogRow> batch = new ArrayList<>();
    for (LogRow r : buffer) {
      if (batch.size() == batchLimit) break;
      batch.add(r);
    }
    io.opentelemetry.context.Context context = traced.get(batch.get(0).runId());
    dev.sqlagent.telemetry.Tracing.during(context == null ? io.opentelemetry.context.Context.root() : context,
            () -> rows.insert(batch))
        .onComplete(ar -> {
          writing = false;
          if (ar.succeeded()) {
            written(batch.size());
          } else {
            failed(batch, ar.cause());
          }
        });
  }

  private void written(int n) {
    for (int i = 0; i < n; i++) kept(buffer.removeFirst());
    written += n;
    lastWrittenAt = Instant.now();
    if (backoffMs > 0) LOG.info("query log: writing again after {} failed attempt(s); {} row(s) waiting", failedWrites, buffer.size());
    backoffMs = 0;
    facts();
    if (!buffer.isEmpty()) {
      write();
    } else {
      List<Runnable> waiters = new ArrayList<>(drainedWaiters);
      drainedWaiters.clear();
      waiters.forEach(Runnable::run);
    }
  }

  private void failed(List<LogRow> batch, Throwable cause) {
    failedWrites++;
    lastError = describe(cause);
    lastErrorAt = Instant.now();
    if (rejectsValues(cause)) {
      if (batch.size() > 1) {
        // One row's values are refused: find it by writing one row at a time.
        batchLimit = 1;
        write();
        return;
      }
      traced.remove(buffer.removeFirst().runId());
      batchLimit = BATCH;
      drop(batch.get(0).runId(), "the database rejected its values: " + lastError);
      List<Message<JsonObject>> waiting = keepers.remove(batch.get(0).runId());
      if (waiting != null) {
        waiting.forEach(m -> m.fail(BusFailure.REJECTED.code(), "the database rejected the row's values: " + lastError));
      }
      writeSoon();
      return;
    }
    long next = backoffMs == 0 ? FIRST_BACKOFF_MS : Math.min(backoffMs * 2, retryMaxMs);
    if (backoffMs == 0 || next != backoffMs) {
      LOG.warn("query log: cannot write ({}); {} row(s) buffered, retrying in {} ms", lastError, buffer.size(), next);
    }
    backoffMs = next;
    retryTimer = vertx.setTimer(backoffMs, t -> {
      retryTimer = -1;
      writeSoon();
    });
    facts();
  }

  /** Data (22) and integrity (23) errors are about this row, not the database's availability. */
  private static boolean rejectsValues(Throwable cause) {
    return cause instanceof PgException pg && pg.getSqlState() != null
        && (pg.getSqlState().startsWith("22") || pg.getSqlState().startsWith("23"));
  }

  private void onFlush(Message<JsonObject> msg) {
    Long asked = Flush.fromJson(msg.body()).timeoutMs();
    long timeout = asked == null ? 5_000 : asked;
    whenDrained(Math.max(1, Math.min(timeout, 120_000))).onComplete(ar -> msg.reply(status().toJson()));
  }

  /** Completes when the buffer is empty (tries now, skipping the backoff) or fails after {@code timeoutMs}. */
  private Future<Void> whenDrained(long timeoutMs) {
    if (buffer.isEmpty() && !writing) return Future.succeededFuture();
    Promise<Void> p = Promise.promise();
    Runnable done = () -> p.tryComplete();
    drainedWaiters.add(done);
    vertx.setTimer(timeoutMs, t -> {
      drainedWaiters.remove(done);
      p.tryFail("the query log still holds " + buffer.size() + " row(s)");
    });
    if (retryTimer != -1) {
      vertx.cancelTimer(retryTimer);
      retryTimer = -1;
    }
    writeSoon();
    return p.future();
  }

  private LogStatus status() {
    return new LogStatus(!stopping, buffer.size(), capacity, written, dropped, failedWrites, retryTimer != -1, backoffMs,
        lastError, lastErrorAt == null ? null : lastErrorAt.toString(), lastWrittenAt == null ? null : lastWrittenAt.toString());
  }

  private void facts() {
    vertx.eventBus().publish(Addresses.QUERY_LOG_FACTS, new LogFacts(written, dropped, buffer.size()).toJson());
  }

  private static String describe(Throwable e) {
    if (e instanceof PgException pg) return pg.getSqlState() + " " + pg.getErrorMessage();
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
