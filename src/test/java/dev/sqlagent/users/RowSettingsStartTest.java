package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Row settings are set with set_config: a start whose agent role may not EXECUTE it (the demo's role, hardened by
 * revoking it from PUBLIC) is refused, naming the role and the GRANT, rather than failing every user's statement.
 */
class RowSettingsStartTest {

  @Test
  void aRoleThatMayNotRunSetConfigStopsTheStartWithTheGrant() throws Exception {
    Path users = Files.createTempFile("sqlagent-users", ".yaml");
    Files.writeString(users, """
        users:
          - name: svc
            token_sha256: %s
            settings:
              app.tenant_id: 7
        """.formatted(Users.sha256Hex("svc-secret")));
    try (FakeModelServer model = FakeModelServer.start()) {
      assertThatThrownBy(() -> RunningService.start(model, Map.of("SQLAGENT_USERS", users.toString())).close())
          .hasMessageContaining("set_config").hasMessageContaining("GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO");
    } finally {
      Files.deleteIfExists(users);
    }
  }
}
