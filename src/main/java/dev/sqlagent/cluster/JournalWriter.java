package dev.sqlagent.cluster;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's events, into the state store: listens node-locally on {@link Addresses#EVENTS} (so only the
 * runs this node executes) and writes them in batches, one write at a time; what arrives during a write goes
 * in the next. {@link Addresses#JOURNAL_FLUSH} replies once everything received so far is written: the agent
 * asks it before it answers, so a client that fills a gap from the journal finds every event.
 * All state lives on this verticle's event loop.
 */
public final class JournalWriter extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(JournalWriter.class);
  private static final long PRUNE_EVERY_MS = 3_600_000;

  private final StateDatabase state;
  private JournalRepository journal;
  private List<JsonObject> buffer = new ArrayList<>();
  /** Waiting for the events now in the buffer, and for those being written. */
  private List<Promise<Void>> waitingForBuffer = new ArrayList<>();
  private List<Promise<Void>> waitingForWrite = new ArrayList<>();
  private boolean writing;
  private long pruneTimer;

  public JournalWriter(StateDatabase state) {
    this.state = state;
  }

  @Override
  public Future<?> start() {
    journal = new JournalRepository(state.owner());
    pruneTimer = vertx.setPeriodic(PRUNE_EVERY_MS, t -> journal.prune()
        .onSuccess(n -> LOG.debug("pruned {} kept events older than a day", n)));
    return Future.all(
        vertx.eventBus().<JsonObject>localConsumer(Addresses.EVENTS, m -> onEvent(m.body())).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.JOURNAL_FLUSH, this::onFlush).completion());
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(pruneTimer);
    return Future.succeededFuture();
  }

  private void onEvent(JsonObject event) {
    if (event == null || event.getString("run_id") == null || event.getLong("seq") == null) return;
    buffer.add(event);
    write();
  }

  private void onFlush(Message<JsonObject> msg) {
    Promise<Void> done = Promise.promise();
    done.future().onComplete(ar -> msg.reply(new JsonObject()));
    if (!buffer.isEmpty()) {
      waitingForBuffer.add(done);
    } else if (writing) {
      waitingForWrite.add(done);
    } else {
      done.complete();
    }
  }

  private void write() {
    if (writing || buffer.isEmpty()) return;
    writing = true;
    List<JsonObject> batch = buffer;
    buffer = new ArrayList<>();
    waitingForWrite = waitingForBuffer;
    waitingForBuffer = new ArrayList<>();
    journal.append(batch)
        .onFailure(e -> LOG.warn("{} run events could not be kept in the state store ({}); replay will miss them",
            batch.size(), e.getMessage()))
        .onComplete(ar -> {
          writing = false;
          List<Promise<Void>> done = waitingForWrite;
          waitingForWrite = new ArrayList<>();
          done.forEach(Promise::tryComplete);
          write();
        });
  }
}
