package dev.sqlagent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.config.ClusterSettings;
import dev.sqlagent.testing.FreePorts;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Two real cluster members in this JVM (Hazelcast over loopback TCP): the single-node duties run on the
 * oldest only, and the other takes them over when it leaves.
 */
class SingletonLeaseTest {

  @Test
  void theOldestMemberHoldsTheDutiesAndTheNextTakesThemOverWhenItLeaves() throws Exception {
    int portA = FreePorts.next();
    int portB = FreePorts.next();
    String members = "127.0.0.1:" + portA + ",127.0.0.1:" + portB;
    Set<String> holders = ConcurrentHashMap.newKeySet();
    Vertx a = null;
    Vertx b = null;
    try {
      Cluster first = node(portA, members);
      a = first.start(o -> Vertx.builder().with(o)).await(60, TimeUnit.SECONDS);
      a.deployVerticle(lease(first, holders, "a")).await(20, TimeUnit.SECONDS);
      Cluster second = node(portB, members);
      b = second.start(o -> Vertx.builder().with(o)).await(60, TimeUnit.SECONDS);
      b.deployVerticle(lease(second, holders, "b")).await(20, TimeUnit.SECONDS);

      assertThat(second.members()).hasSize(2);
      assertThat(second.members().get(0).name()).isEqualTo("127.0.0.1:" + portA);
      assertThat(holders).containsExactly("a");

      a.close().await(30, TimeUnit.SECONDS);
      a = null;
      long deadline = System.currentTimeMillis() + 20_000;
      while (!holders.contains("b") && System.currentTimeMillis() < deadline) Thread.sleep(50);
      assertThat(holders).containsExactlyInAnyOrder("a", "b");
      assertThat(second.oldest()).isTrue();
    } finally {
      if (a != null) a.close().await(30, TimeUnit.SECONDS);
      if (b != null) b.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static Cluster node(int port, String members) {
    return Cluster.of(ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_PORT", String.valueOf(port),
        "SQLAGENT_CLUSTER_MEMBERS", members, "SQLAGENT_CLUSTER_NAME", "lease-" + members.hashCode())), Role.WORKER);
  }

  /** A lease whose one duty records, when it starts, which node it started on. */
  private static SingletonLease lease(Cluster cluster, Set<String> holders, String name) {
    Supplier<Deployable> duty = () -> context -> {
      holders.add(name);
      return Future.succeededFuture();
    };
    return new SingletonLease(cluster, List.of(duty));
  }
}
