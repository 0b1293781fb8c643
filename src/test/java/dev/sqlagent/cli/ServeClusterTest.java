package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.config.ClusterSettings;
import dev.sqlagent.cluster.Role;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code serve} refuses before starting anything, in cluster mode and out of it. */
class ServeClusterTest {

  static final String DB = "postgresql://ro:pw@db:5432/shop";
  static final String STATE = "postgresql://owner:pw@db:5432/sql_agent";
  static final ClusterSettings CLUSTER = ClusterSettings.from(Map.of("SQLAGENT_CLUSTER", "true"));

  @Test
  void clusterModeNeedsASharedStateStoreAndTarget() {
    assertThatThrownBy(() -> ServeCommand.checkCluster(AppConfig.load(Map.of("SQLAGENT_DB_URL", DB)), CLUSTER, Role.ALL))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_CLUSTER=true needs SQLAGENT_STATE_URL");
    assertThatThrownBy(() -> ServeCommand.checkCluster(AppConfig.load(Map.of("SQLAGENT_STATE_URL", STATE)), CLUSTER, Role.WORKER))
        .hasMessageContaining("SQLAGENT_CLUSTER=true needs SQLAGENT_DB_URL");
    assertThatCode(() -> ServeCommand.checkCluster(AppConfig.load(Map.of("SQLAGENT_DB_URL", DB, "SQLAGENT_STATE_URL", STATE)),
        CLUSTER, Role.EDGE)).doesNotThrowAnyException();
  }

  @Test
  void aRoleOtherThanAllNeedsClusterMode() {
    assertThatThrownBy(() -> ServeCommand.checkCluster(AppConfig.load(Map.of()), ClusterSettings.disabled(), Role.EDGE))
        .hasMessageContaining("--role edge is for a cluster: set SQLAGENT_CLUSTER=true");
    assertThatCode(() -> ServeCommand.checkCluster(AppConfig.load(Map.of()), ClusterSettings.disabled(), Role.ALL))
        .doesNotThrowAnyException();
  }
}
