package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.users.Users;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code GET /api/learned} over HTTP, with identities: an admin reads it, anyone else is told no, in JSON. */
class LearnedRouteTest {

  static final String ADMIN = "admin-token-" + UUID.randomUUID();
  static final String USER = "user-token-" + UUID.randomUUID();
  static FakeModelServer model;
  static RunningService service;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    usersFile = Files.createTempFile("sqlagent-users", ".yaml");
    Files.writeString(usersFile, """
        users:
          - name: ada
            display_name: Ada
            token_sha256: %s
            admin: true
          - name: bo
            display_name: Bo
            token_sha256: %s
        """.formatted(Users.sha256Hex(ADMIN), Users.sha256Hex(USER)));
    model = FakeModelServer.start();
    Map<String, String> env = new HashMap<>();
    env.put("SQLAGENT_USERS", usersFile.toString());
    service = RunningService.start(model, env);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static io.vertx.ext.web.client.HttpResponse<io.vertx.core.buffer.Buffer> get(String token) throws Exception {
    return service.client.get(service.port(), "127.0.0.1", "/api/learned").bearerTokenAuthentication(token).send()
        .await(120, TimeUnit.SECONDS);
  }

  @Test
  void anAdminReadsWhatWasLearnedAndOthersAreRefused() throws Exception {
    var refused = get(USER);
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden");
    assertThat(refused.bodyAsJsonObject().getString("message")).contains("admin");

    var r = get(ADMIN);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject body = r.bodyAsJsonObject();
    JsonArray sources = body.getJsonArray("sources");
    assertThat(sources.stream().map(o -> ((JsonObject) o).getString("name")))
        .containsExactly("pg_stat_statements", "query_log", "verified");
    JsonObject stats = sources.getJsonObject(0);
    // The demo's database has no pg_stat_statements: the reply says so and what would enable it.
    assertThat(stats.getBoolean("read")).isFalse();
    assertThat(stats.getString("detail")).contains("CREATE EXTENSION pg_stat_statements", "GRANT pg_read_all_stats");
    assertThat(sources.getJsonObject(1).getBoolean("read")).isTrue();
    assertThat(body.getJsonArray("joins")).isNotNull();
    assertThat(body.getString("notes")).contains("Suggestions only");
  }
}
