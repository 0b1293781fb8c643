package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A command started beside a running service on the same SQLAGENT_HOME: one line saying what to do. */
class HomeInUseTest {

  @Test
  void openingAHomeWhoseEmbeddedPostgresIsRunningSaysWhatToDo() throws Exception {
    Path home = Files.createTempDirectory("sql-agent-home-in-use");
    try (EmbeddedDatabase running = EmbeddedDatabase.start(home.resolve("pgdata"), dev.sqlagent.testing.TestDatabase.binaries(),
        new Credentials(home).embeddedAdminPassword())) {
      AppConfig config = AppConfig.load(Map.of("SQLAGENT_HOME", home.toString(), "SQLAGENT_HTTP_PORT", "8123"));
      assertThatThrownBy(() -> Databases.open(config))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("a sql-agent service is already running on SQLAGENT_HOME=" + home)
          .hasMessageContaining("curl -s 127.0.0.1:8123/api/ask")
          .hasMessageContaining("stop it, or use another SQLAGENT_HOME")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
      // The running server is untouched.
      try (var c = running.adminUrl().connect("home-in-use-test"); var s = c.createStatement();
          var r = s.executeQuery("SELECT 1")) {
        assertThat(r.next()).isTrue();
      }
    }
  }
}
