package dev.sqlagent.cluster;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.state.StateStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An edge's {@link Addresses#RUN_EVENTS} in cluster mode, node-local: a run's events from the state store,
 * wherever the run ran, so replay works on any edge (and after the worker that ran it is gone). Same request
 * and reply as the single process's agent.
 */
public final class JournalReader extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(JournalReader.class);

  private final StateStore state;
  private Pool pool;
  private EventJournal journal;

  public JournalReader(StateStore state) {
    this.state = state;
  }

  @Override
  public Future<?> start() {
    pool = PgBuilder.pool().with(new NetClientOptions().setConnectTimeout(5_000))
        .with(new PoolOptions().setMaxSize(2).setName("sql-agent-run-events-read"))
        .connectingTo(state.ownerOptions()).using(vertx).build();
    journal = new EventJournal(pool);
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.RUN_EVENTS, this::runEvents).completion();
  }

  @Override
  public Future<?> stop() {
    return pool.close();
  }

  private void runEvents(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    String runId = String.valueOf(body.getValue("run_id", ""));
    if (!(body.getValue("after_seq", 0L) instanceof Number after)) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "after_seq must be a whole number");
      return;
    }
    journal.after(runId, after.longValue())
        .compose(events -> events.isEmpty()
            ? journal.known(runId).map(known -> known ? events : null)
            : Future.succeededFuture(events))
        .onSuccess(events -> {
          if (events == null) {
            msg.fail(BusFailure.NOT_FOUND.code(), "no run " + runId + " (runs' events are kept for a day)");
          } else {
            msg.reply(new JsonObject().put("run_id", runId).put("events", events));
          }
        })
        .onFailure(e -> {
          LOG.warn("run {}: kept events could not be read: {}", runId, e.getMessage());
          msg.fail(BusFailure.UNAVAILABLE.code(), "the run's events could not be read from the state store; try again");
        });
  }
}
