package dev.sqlagent.cluster;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.RetrievalMessages.Refreshed;
import dev.sqlagent.contract.RetrievalMessages.WorkerRefresh;
import dev.sqlagent.retrieval.RetrievalRoutes;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * An edge's {@link Addresses#SCHEMA_REFRESH} in cluster mode, node-local (so {@code POST /api/schema/refresh} is
 * unchanged): every worker discovers the target again, rebuilds its table index and its stored values, and
 * reloads its gate ({@link Addresses#schemaRefreshOn}); the reply comes when all have, with each worker's own
 * status under {@code workers}, or fails naming the workers that did not. What is the same everywhere (built,
 * tables) is at the top, as the single process replies. The schema snapshot follows on the node that holds it:
 * each rebuilt index is published on {@link Addresses#RETRIEVAL_BUILT}.
 */
public final class SchemaRefreshAll extends VerticleBase {

  /** Under the route's own wait (ten minutes: a refresh may embed many new tables), so this reply comes first. */
  static final long WORKER_REFRESH_MS = RetrievalRoutes.REFRESH_TIMEOUT_MS - 15_000L;

  private final Cluster cluster;
  private BusClient workersBus;

  public SchemaRefreshAll(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public Future<?> start() {
    workersBus = new BusClient(vertx, "the worker's schema refresh", WORKER_REFRESH_MS);
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.SCHEMA_REFRESH, this::refresh).completion();
  }

  private void refresh(Message<JsonObject> msg) {
    long t0 = System.nanoTime();
    List<ClusterMember> workers = cluster.members().stream().filter(m -> m.role().worker()).toList();
    if (workers.isEmpty()) {
      msg.fail(BusFailure.UNAVAILABLE.code(), "no worker node is in the cluster; try again in a few seconds");
      return;
    }
    List<Future<Refreshed>> replies = new ArrayList<>();
    for (ClusterMember w : workers) {
      replies.add(workersBus.<JsonObject>request(Addresses.schemaRefreshOn(w.id()), new JsonObject()).map(Refreshed::fromJson));
    }
    Future.join(replies).onComplete(ar -> {
      List<WorkerRefresh> each = new ArrayList<>();
      List<String> failed = new ArrayList<>();
      List<String> done = new ArrayList<>();
      Refreshed first = null;
      for (int i = 0; i < replies.size(); i++) {
        String name = workers.get(i).name();
        Future<Refreshed> r = replies.get(i);
        if (r.succeeded()) {
          if (first == null) first = r.result();
          each.add(new WorkerRefresh(name, true, r.result(), null));
          done.add(name);
        } else {
          String why = BusError.of(r.cause(), "the worker's schema refresh").getMessage();
          each.add(new WorkerRefresh(name, false, null, why));
          failed.add(name + " (" + why + ")");
        }
      }
      if (!failed.isEmpty()) {
        msg.fail(BusFailure.UNAVAILABLE.code(), "the schema refresh failed on " + String.join(", ", failed)
            + (done.isEmpty() ? "" : "; it was done on " + String.join(", ", done)));
        return;
      }
      msg.reply(first.ofWorkers(each, (System.nanoTime() - t0) / 1_000_000).toJson());
    });
  }
}
