package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TlsServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole service against a TLS-only target, its state store on the same server owned by a NOSUPERUSER
 * CREATEROLE role, once per way of connecting: it starts (the read-only proofs included), answers through
 * {@code /api/query} and {@code /api/ask}, and the target is exactly as it was.
 */
class OwnTlsServeTest {

  static TlsServer server;
  static FakeModelServer model;
  static Path home;
  static Path pgpass;

  @BeforeAll
  static void start() throws Exception {
    server = TlsServer.start();
    model = FakeModelServer.start();
    model.respondWith(req -> FakeModelServer.lastUserMessage(req).contains("How many items")
        ? Reply.sql("SELECT count(*) AS n FROM items") : Reply.refusal("not in this database"));
    home = Files.createTempDirectory("sql-agent-tls-home");
    pgpass = home.resolve("pgpass");
    Files.writeString(pgpass, "*:" + server.port() + ":*:md5_user:" + TlsServer.PASSWORD + "\n");
    Files.setPosixFilePermissions(pgpass, PosixFilePermissions.fromString("rw-------"));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (model != null) model.close();
    } finally {
      if (server != null) server.close();
    }
  }

  static Stream<Arguments> connections() {
    int port = server.port();
    String db = TlsServer.TARGET_DB;
    return Stream.of(
        Arguments.of("scram, verify-full with a CA file", "postgresql://" + TlsServer.READER + ":" + TlsServer.PASSWORD
            + "@localhost:" + port + "/" + db + "?sslmode=verify-full&sslrootcert=" + server.ca),
        Arguments.of("client certificate, keyword/value form", "host=localhost port=" + port + " dbname=" + db
            + " user=cert_user sslmode=verify-full sslrootcert='" + server.ca + "' sslcert='" + server.clientCert
            + "' sslkey='" + server.clientKey + "'"),
        Arguments.of("md5, password from PGPASSFILE, require", "postgresql://md5_user@localhost:" + port + "/" + db
            + "?sslmode=require"),
        Arguments.of("peer over the Unix socket", "postgresql://" + server.peerRole + "@/" + db + "?host="
            + server.socketDir + "&port=" + port),
        Arguments.of("host list, the first down, read-write", "host=127.0.0.1,localhost port=1," + port + " dbname=" + db
            + " user=" + TlsServer.READER + " password=" + TlsServer.PASSWORD + " sslmode=verify-ca sslrootcert=" + server.ca
            + " target_session_attrs=read-write"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("connections")
  void servesAndLeavesTheTargetAsItWas(String name, String url) throws Exception {
    String before = server.fingerprint();
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_DB_URL", url);
    env.put("SQLAGENT_STATE_URL", "postgresql://" + TlsServer.STATE_OWNER + ":" + TlsServer.PASSWORD + "@localhost:"
        + server.port() + "/" + TlsServer.STATE_DB + "?sslmode=verify-full&sslrootcert=" + server.ca);
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_HTTP_PORT", "0");
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("PGPASSFILE", pgpass.toString());
    try (OwnService service = OwnService.start(AppConfig.load(env))) {
      HttpResponse<Buffer> q = service.post("/api/query", new JsonObject().put("sql", "SELECT name FROM items WHERE id = 3"));
      assertThat(q.statusCode()).as(q.bodyAsString()).isEqualTo(200);
      assertThat(q.bodyAsJsonObject().getJsonArray("rows")).containsExactly(new JsonArray().add("item 3"));
      HttpResponse<Buffer> w = service.post("/api/query", new JsonObject().put("sql", "DELETE FROM items"));
      assertThat(w.statusCode()).as(w.bodyAsString()).isEqualTo(422);
      JsonObject a = service.ask("How many items are there?");
      assertThat(a.getBoolean("gave_up")).as(a.encodePrettily()).isFalse();
      assertThat(a.getJsonArray("rows")).as(a.encodePrettily()).containsExactly(new JsonArray().add(20));
    }
    assertThat(server.fingerprint()).as(name).isEqualTo(before);
  }
}
