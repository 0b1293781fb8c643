package dev.sqlagent.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import dev.sqlagent.config.ClusterSettings;
import dev.sqlagent.config.ConfigException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * This node's membership of a cluster: Hazelcast (through {@code vertx-hazelcast}) joins the members over
 * TCP/IP and carries the event bus's subscriptions; Vert.x carries the messages. Every member announces its
 * role and name as member attributes, so every node sees the same list, oldest first.
 */
public final class Cluster {

  static final String ROLE_ATTRIBUTE = "sqlagent.role";
  static final String NAME_ATTRIBUTE = "sqlagent.name";
  /** This node's id: fixed for the life of the process (Hazelcast's member id changes when split clusters merge). */
  static final String ID_ATTRIBUTE = "sqlagent.id";
  /**
   * A node that stops answering heartbeats leaves after this long (a killed process's refused connection is
   * seen within about a second); long enough that a node stalled by a busy machine is not cut off.
   */
  static final int MAX_SILENCE_SECONDS = 15;

  private final ClusterSettings settings;
  private final Role role;
  private final HazelcastClusterManager manager;
  private final String id;
  /** Whether this node runs the single-node duties now (set by {@link SingletonLease} once they are deployed). */
  private volatile boolean holdsSingletons;

  private Cluster(ClusterSettings settings, Role role, String id) {
    this.settings = settings;
    this.role = role;
    this.id = id;
    this.manager = new HazelcastClusterManager(hazelcastConfig(settings, role, id));
  }

  public static Cluster of(ClusterSettings settings, Role role) {
    return new Cluster(settings, role, UUID.randomUUID().toString());
  }

  /** Hazelcast's settings: the vertx-hazelcast defaults (its subscription maps), joined by TCP/IP or by DNS, never multicast. */
  static Config hazelcastConfig(ClusterSettings settings, Role role, String id) {
    String ip = address(settings.host());
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(settings.name());
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.shutdownhook.enabled", "false");  // Vert.x leaves the cluster when it closes
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", String.valueOf(MAX_SILENCE_SECONDS));
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    NetworkConfig net = config.getNetworkConfig();
    net.setPort(settings.port()).setPortAutoIncrement(false).setPublicAddress(ip + ":" + settings.port());
    net.getInterfaces().setEnabled(true).setInterfaces(List.of(ip));
    JoinConfig join = net.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    if (settings.dns() != null) {
      // Hazelcast's own Kubernetes discovery, DNS lookup mode: no API access needed, every address of the name
      // (a headless Service: one per ready or starting pod, publishNotReadyAddresses) is a member on this port.
      join.getKubernetesConfig().setEnabled(true)
          .setProperty("service-dns", settings.dns())
          .setProperty("service-port", String.valueOf(settings.port()));
    } else {
      join.getTcpIpConfig().setEnabled(true).setMembers(new ArrayList<>(settings.members()));
    }
    config.getMemberAttributeConfig().setAttribute(ID_ATTRIBUTE, id);
    config.getMemberAttributeConfig().setAttribute(ROLE_ATTRIBUTE, role.label());
    config.getMemberAttributeConfig().setAttribute(NAME_ATTRIBUTE, settings.host() + ":" + settings.port());
    return config;
  }

  private static String address(String host) {
    try {
      return InetAddress.getByName(host).getHostAddress();
    } catch (UnknownHostException e) {
      throw new ConfigException("SQLAGENT_CLUSTER_HOST=" + host + ": not an address of this machine (" + e.getMessage() + ")");
    }
  }

  /**
   * Starts Vert.x clustered: joins the members, and opens the event bus on the same host (any free port; the
   * port is announced through Hazelcast). {@code builder} adds what else Vert.x needs (metrics).
   */
  public Future<Vertx> start(Function<VertxOptions, VertxBuilder> builder) {
    VertxOptions options = new VertxOptions().setEventBusOptions(new EventBusOptions().setHost(settings.host()).setPort(0));
    return builder.apply(options).withClusterManager(manager).buildClustered();
  }

  public Role role() {
    return role;
  }

  public ClusterSettings settings() {
    return settings;
  }

  /** This node's readable name (host:port of its cluster address): the metrics' node label. */
  public String name() {
    return settings.host() + ":" + settings.port();
  }

  /** This node's id, as {@link ClusterMember#id()} shows it on every node. */
  public String nodeId() {
    return id;
  }

  /** Whether the query-log writer and the schema snapshot run on this node now (deployed, not only due). */
  public boolean holdsSingletons() {
    return holdsSingletons;
  }

  void holdsSingletons(boolean holds) {
    this.holdsSingletons = holds;
  }

  /** The live members, oldest first (the same order on every node). */
  public List<ClusterMember> members() {
    List<ClusterMember> out = new ArrayList<>();
    for (Member m : manager.getHazelcastInstance().getCluster().getMembers()) {
      String role = m.getAttribute(ROLE_ATTRIBUTE);
      out.add(new ClusterMember(m.getAttribute(ID_ATTRIBUTE), String.valueOf(m.getAttribute(NAME_ATTRIBUTE)),
          role == null ? Role.ALL : Role.parse(role), m.localMember()));
    }
    return out;
  }

  /** Whether this node is the longest-standing member: the holder of the cluster's single-node duties. */
  public boolean oldest() {
    List<ClusterMember> all = members();
    return !all.isEmpty() && all.get(0).local();
  }

  /** Runs {@code onChange} on {@code context} whenever a member joins or leaves. */
  public void onMembershipChange(Context context, Runnable onChange) {
    manager.getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        context.runOnContext(v -> onChange.run());
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        context.runOnContext(v -> onChange.run());
      }
    });
  }
}
