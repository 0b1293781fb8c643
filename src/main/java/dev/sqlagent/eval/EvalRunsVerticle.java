package dev.sqlagent.eval;

import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.state.StateStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The saved evaluation runs, read from the state store with the reactive client (never blocking the event
 * loop): answers {@link Addresses#EVAL_LATEST} with the newest run's summary (served at
 * {@code GET /api/eval/latest}), or fails 404 when no run has one, 503 when the store cannot be read.
 */
public final class EvalRunsVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(EvalRunsVerticle.class);

  private final StateStore state;
  private Pool pool;

  public EvalRunsVerticle(StateStore state) {
    this.state = state;
  }

  @Override
  public Future<?> start() {
    pool = PgBuilder.pool().with(new NetClientOptions().setConnectTimeout(5_000))
        .with(new PoolOptions().setMaxSize(1).setIdleTimeout(30).setIdleTimeoutUnit(TimeUnit.SECONDS)
            .setName("sql-agent-eval-runs"))
        .connectingTo(state.ownerOptions().addProperty("application_name", "sql-agent-eval-runs"))
        .using(vertx).build();
    MessageConsumer<JsonObject> consumer = vertx.eventBus().consumer(Addresses.EVAL_LATEST, this::latest);
    return consumer.completion();
  }

  @Override
  public Future<?> stop() {
    return pool.close();
  }

  private void latest(Message<JsonObject> msg) {
    pool.query(RunStore.LATEST_SUMMARY_SQL).execute()
        .onSuccess(rows -> {
          if (rows.size() == 0) {
            msg.fail(BusFailure.NOT_FOUND.code(), "no evaluation has been saved yet: run `sql-agent eval` first");
            return;
          }
          Row row = rows.iterator().next();
          try {
            msg.reply(new JsonObject(row.getString("content")));
          } catch (RuntimeException e) {
            LOG.warn("the summary of saved run {} in the state store is not JSON: {}", row.getString("run"), e.getMessage());
            msg.fail(BusFailure.FAILED.code(), "the summary of saved run " + row.getString("run") + " cannot be read");
          }
        })
        .onFailure(e -> {
          LOG.warn("cannot read the latest evaluation from the state store {}: {}", state.owner(), e.getMessage());
          msg.fail(BusFailure.UNAVAILABLE.code(), "the state store cannot be read: " + e.getMessage());
        });
  }
}
