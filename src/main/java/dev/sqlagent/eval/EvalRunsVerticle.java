package dev.sqlagent.eval;

import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The saved evaluation runs, read from the state store with the reactive client (never blocking the event
 * loop): answers {@link Addresses#EVAL_LATEST} with the newest run's summary (served at
 * {@code GET /api/eval/latest}), or fails 404 when no run has one, 503 when the store cannot be read.
 */
public final class EvalRunsVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(EvalRunsVerticle.class);

  private final StateDatabase state;
  private EvalRunRepository runs;

  public EvalRunsVerticle(StateDatabase state) {
    this.state = state;
  }

  @Override
  public Future<?> start() {
    runs = new EvalRunRepository(state.owner());
    MessageConsumer<JsonObject> consumer = vertx.eventBus().consumer(Addresses.EVAL_LATEST, this::latest);
    return consumer.completion();
  }

  private void latest(Message<JsonObject> msg) {
    runs.latestSummary()
        .onSuccess(found -> {
          if (found.isEmpty()) {
            msg.fail(BusFailure.NOT_FOUND.code(), "no evaluation has been saved yet: run `sql-agent eval` first");
            return;
          }
          EvalRunRepository.Latest latest = found.get();
          try {
            msg.reply(new JsonObject(latest.content()));
          } catch (RuntimeException e) {
            LOG.warn("the summary of saved run {} in the state store is not JSON: {}", latest.run(), e.getMessage());
            msg.fail(BusFailure.FAILED.code(), "the summary of saved run " + latest.run() + " cannot be read");
          }
        })
        .onFailure(e -> {
          LOG.warn("cannot read the latest evaluation from the state store {}: {}", state.store().owner(), e.getMessage());
          msg.fail(BusFailure.UNAVAILABLE.code(), "the state store cannot be read: " + e.getMessage());
        });
  }
}
