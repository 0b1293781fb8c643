package dev.sqlagent.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ClusterSettings;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.config.Settings;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterSettingsTest {

  @Test
  void withoutSqlagentClusterTheServiceIsOneProcess() {
    assertThat(ClusterSettings.from(Map.of()).enabled()).isFalse();
    assertThat(ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "false")).describe()).isEqualTo("single process");
  }

  @Test
  void clusterModeReadsItsAddressMembersAndName() {
    ClusterSettings s = ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_HOST", "10.0.0.5",
        "SQLAGENT_CLUSTER_MEMBERS", " 10.0.0.5:5701, 10.0.0.6:5701 ,", "SQLAGENT_CLUSTER_NAME", "prod-agents"));
    assertThat(s.enabled()).isTrue();
    assertThat(s.host()).isEqualTo("10.0.0.5");
    assertThat(s.port()).isEqualTo(5701);
    assertThat(s.members()).containsExactly("10.0.0.5:5701", "10.0.0.6:5701");
    assertThat(s.name()).isEqualTo("prod-agents");
    // The first node of a cluster may list no one: it knows itself.
    assertThat(ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_PORT", "5702")).members())
        .containsExactly("127.0.0.1:5702");
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "yes")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_CLUSTER=yes");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_PORT", "70000")))
        .hasMessageContaining("SQLAGENT_CLUSTER_PORT").hasMessageContaining("70000");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_MEMBERS", "10.0.0.5")))
        .hasMessageContaining("'10.0.0.5' is not host:port");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_MEMBERS", "h:x")))
        .hasMessageContaining("SQLAGENT_CLUSTER_MEMBERS");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_NAME", "a b")))
        .hasMessageContaining("SQLAGENT_CLUSTER_NAME");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER_MEMBERS", "10.0.0.5:5701")))
        .hasMessageContaining("SQLAGENT_CLUSTER_MEMBERS is set but SQLAGENT_CLUSTER is not true");
  }

  @Test
  void membersFoundByDnsAreHazelcastsKubernetesDiscoveryInDnsLookupMode() {
    ClusterSettings s = ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_HOST", "127.0.0.1",
        "SQLAGENT_CLUSTER_DNS", "sql-agent-cluster.prod.svc.cluster.local"));
    assertThat(s.dns()).isEqualTo("sql-agent-cluster.prod.svc.cluster.local");
    assertThat(s.members()).isEmpty();
    assertThat(s.describe()).contains("found by DNS as sql-agent-cluster.prod.svc.cluster.local (port 5701)");
    com.hazelcast.config.JoinConfig join = Cluster.hazelcastConfig(s, Role.ALL, "id").getNetworkConfig().getJoin();
    assertThat(join.getKubernetesConfig().isEnabled()).isTrue();
    assertThat(join.getKubernetesConfig().getProperty("service-dns")).isEqualTo("sql-agent-cluster.prod.svc.cluster.local");
    assertThat(join.getKubernetesConfig().getProperty("service-port")).isEqualTo("5701");
    assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    // Listed members stay TCP/IP, with no Kubernetes discovery.
    com.hazelcast.config.JoinConfig listed = Cluster.hazelcastConfig(ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true")),
        Role.ALL, "id").getNetworkConfig().getJoin();
    assertThat(listed.getKubernetesConfig().isEnabled()).isFalse();
    assertThat(listed.getTcpIpConfig().getMembers()).containsExactly("127.0.0.1:5701");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_DNS", "a.b",
        "SQLAGENT_CLUSTER_MEMBERS", "10.0.0.5:5701"))).hasMessageContaining("SQLAGENT_CLUSTER_DNS and SQLAGENT_CLUSTER_MEMBERS");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true", "SQLAGENT_CLUSTER_DNS", "bad name")))
        .hasMessageContaining("SQLAGENT_CLUSTER_DNS=bad name");
    assertThatThrownBy(() -> ClusterSettings.from(Map.of("SQLAGENT_CLUSTER_DNS", "a.b")))
        .hasMessageContaining("SQLAGENT_CLUSTER_DNS is set but SQLAGENT_CLUSTER is not true");
  }

  @Test
  void theClusterKeysAreSettingsOfTheService() {
    assertThat(Settings.keys()).contains("SQLAGENT_CLUSTER", "SQLAGENT_CLUSTER_HOST", "SQLAGENT_CLUSTER_PORT",
        "SQLAGENT_CLUSTER_MEMBERS", "SQLAGENT_CLUSTER_NAME", "SQLAGENT_CLUSTER_DNS");
    assertThat(AppConfig.load(Map.of("SQLAGENT_CLUSTER", "true")).cluster().enabled()).isTrue();
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_CLUSTER_PORT", "5702")))
        .hasMessageContaining("SQLAGENT_CLUSTER_PORT is set but SQLAGENT_CLUSTER is not true");
  }

  @Test
  void rolesParseAndSayWhatTheyRun() {
    assertThat(Role.parse("EDGE")).isEqualTo(Role.EDGE);
    assertThat(Role.EDGE.edge()).isTrue();
    assertThat(Role.EDGE.worker()).isFalse();
    assertThat(Role.ALL.edge() && Role.ALL.worker()).isTrue();
    assertThatThrownBy(() -> Role.parse("master")).hasMessage("--role master: expected all, edge or worker");
  }
}
