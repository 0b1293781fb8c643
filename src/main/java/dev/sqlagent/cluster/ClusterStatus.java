package dev.sqlagent.cluster;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.config.Deadlines;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.impl.clustered.ClusteredMessage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What health shows of the cluster. Every node answers for itself on {@link Addresses#clusterNode} (its role,
 * and how many graph-event deliveries reached it from other nodes: the measure that cluster-wide publishing
 * copies events only to nodes with a watcher). {@link Addresses#CLUSTER_STATUS} (node-local) gathers every
 * member's answer, and names the holder of the query-log writer (the oldest member).
 */
public final class ClusterStatus extends VerticleBase {

  private final Cluster cluster;
  private final long timeoutMs;
  private final AtomicLong eventsFromOtherNodes = new AtomicLong();
  private final Instant startedAt = Instant.now();
  private Handler<DeliveryContext<Object>> counter;

  /** @param deadlines health's: each member's status is asked within one check's deadline */
  public ClusterStatus(Cluster cluster, Deadlines deadlines) {
    this.cluster = cluster;
    this.timeoutMs = deadlines.memberProbeMs();
  }

  @Override
  public Future<?> start() {
    counter = ctx -> {
      // Vert.x marks what came over a TCP connection from another node: only those are counted.
      if (ctx.message().address().startsWith(Addresses.EVENTS) && ctx.message() instanceof ClusteredMessage<?, ?> m
          && m.isFromWire()) {
        eventsFromOtherNodes.incrementAndGet();
      }
      ctx.next();
    };
    vertx.eventBus().addInboundInterceptor(counter);
    return Future.all(
        vertx.eventBus().<JsonObject>consumer(Addresses.clusterNode(cluster.nodeId()), m -> m.reply(self())).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.CLUSTER_STATUS, m -> status().onSuccess(m::reply)).completion());
  }

  @Override
  public Future<?> stop() {
    vertx.eventBus().removeInboundInterceptor(counter);
    return Future.succeededFuture();
  }

  private JsonObject self() {
    return new JsonObject().put("id", cluster.nodeId()).put("name", cluster.name()).put("role", cluster.role().label())
        .put("started_at", startedAt.toString()).put("events_from_other_nodes", eventsFromOtherNodes.get());
  }

  private Future<JsonObject> status() {
    List<ClusterMember> members = cluster.members();
    List<Future<JsonObject>> asked = new ArrayList<>();
    for (ClusterMember m : members) {
      asked.add(vertx.eventBus().<JsonObject>request(Addresses.clusterNode(m.id()), new JsonObject(),
              new DeliveryOptions().setSendTimeout(timeoutMs))
          .map(reply -> m.toJson().mergeIn(reply.body()).put("reachable", true))
          .otherwise(e -> m.toJson().put("reachable", false).put("error", e.getMessage())));
    }
    return Future.join(asked).transform(ar -> {
      JsonArray list = new JsonArray();
      asked.forEach(f -> list.add(f.result()));
      ClusterMember holder = members.isEmpty() ? null : members.get(0);
      return Future.succeededFuture(new JsonObject().put("enabled", true).put("name", cluster.settings().name())
          .put("node", cluster.name()).put("role", cluster.role().label()).put("size", members.size())
          .put("members", list)
          .put("log_writer", holder == null ? null : new JsonObject().put("id", holder.id()).put("name", holder.name())));
    });
  }
}
