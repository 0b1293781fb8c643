package dev.sqlagent.cluster;

import dev.sqlagent.contract.ClusterMessages.NodeFacts;
import dev.sqlagent.contract.ClusterMessages.Member;
import dev.sqlagent.contract.ClusterMessages.LogWriter;
import dev.sqlagent.contract.ClusterMessages.ClusterView;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.config.Deadlines;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.impl.clustered.ClusteredMessage;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What health shows of the cluster. Every node answers for itself on {@link Addresses#clusterNode} (its role,
 * and how many graph-event deliveries reached it from other nodes: the measure that cluster-wide publishing
 * copies events only to nodes with a watcher), and whether it runs the single-node duties now.
 * {@link Addresses#CLUSTER_STATUS} (node-local) gathers every member's answer, and names the holder of the
 * query-log writer (the oldest member), {@code ready} once that member says it runs it.
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
        vertx.eventBus().<JsonObject>consumer(Addresses.clusterNode(cluster.nodeId()), m -> m.reply(self().toJson())).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.CLUSTER_STATUS, m -> status().onSuccess(view -> m.reply(view.toJson()))).completion());
  }

  @Override
  public Future<?> stop() {
    vertx.eventBus().removeInboundInterceptor(counter);
    return Future.succeededFuture();
  }

  private NodeFacts self() {
    return new NodeFacts(cluster.nodeId(), cluster.name(), cluster.role().label(), startedAt.toString(),
        eventsFromOtherNodes.get(), cluster.holdsSingletons());
  }

  private Future<ClusterView> status() {
    List<ClusterMember> members = cluster.members();
    List<Future<Member>> asked = new ArrayList<>();
    for (ClusterMember m : members) {
      asked.add(vertx.eventBus().<JsonObject>request(Addresses.clusterNode(m.id()), new JsonObject(),
              new DeliveryOptions().setSendTimeout(timeoutMs))
          .map(reply -> Member.reached(m.id(), m.name(), m.local(), NodeFacts.fromJson(reply.body())))
          .otherwise(e -> Member.unreachable(m.id(), m.name(), m.role().label(), m.local(), e.getMessage())));
    }
    return Future.join(asked).transform(ar -> {
      List<Member> list = asked.stream().map(Future::result).toList();
      // The oldest member is due to hold the log writer; "ready" once it says it runs it (a takeover deploys it).
      ClusterMember holder = members.isEmpty() ? null : members.get(0);
      LogWriter writer = holder == null ? null
          : new LogWriter(holder.id(), holder.name(), Boolean.TRUE.equals(list.get(0).holdsSingletons()));
      return Future.succeededFuture(new ClusterView(true, cluster.settings().name(), cluster.name(),
          cluster.role().label(), members.size(), list, writer, null));
    });
  }
}
