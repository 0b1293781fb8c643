package dev.sqlagent.cluster;

import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The duties that must run on exactly one node at a time (the query-log writer, the schema snapshot) run on
 * the cluster's oldest member. Every node agrees on who that is (Hazelcast orders the members by the time
 * they joined), a member stays the oldest until it leaves, and when it leaves the next oldest deploys them:
 * a lease that needs no lock to release, even when its holder is killed.
 */
public final class SingletonLease extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(SingletonLease.class);

  private final Cluster cluster;
  private final List<Supplier<Deployable>> duties;
  private boolean holding;

  /** @param duties each built with its settings (nothing is read from a deployment config) */
  public SingletonLease(Cluster cluster, List<Supplier<Deployable>> duties) {
    this.cluster = cluster;
    this.duties = duties;
  }

  @Override
  public Future<?> start() {
    cluster.onMembershipChange(context, this::takeIfOldest);
    return takeIfOldest();
  }

  private Future<?> takeIfOldest() {
    if (holding || !cluster.oldest()) return Future.succeededFuture();
    holding = true;
    LOG.info("this node ({}) is the oldest of {} member(s): it runs the query-log writer and the schema snapshot",
        cluster.name(), cluster.members().size());
    Future<String> deployed = Future.succeededFuture();
    for (Supplier<Deployable> duty : duties) deployed = deployed.compose(id -> vertx.deployVerticle(duty.get()));
    return deployed.onFailure(e -> {
      holding = false;
      LOG.error("the query-log writer or the schema snapshot could not start here: {}", e.getMessage());
    });
  }
}
