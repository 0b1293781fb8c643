package dev.sqlagent.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.UsersFiles;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rerun, choose, export and feedback name a run: one still running is a conflict (409: its answer is not there yet),
 * not an unknown run;
 * on /ws another user's run closes the socket with 4403 before anything is accepted, as for replay and cancel.
 */
class RerunRefusalsTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();

  static FakeModelServer model;
  static RunningService service;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    usersFile = UsersFiles.aliceBobAndAdmin(ALICE, BOB, ROOT);
    model = FakeModelServer.start();
    model.respondWith(req -> FakeModelServer.lastUserMessage(req).contains("slowly")
        ? Reply.sql("SELECT count(*) AS customers FROM customers").delayed(60_000)
        : Reply.sql("SELECT count(*) AS customers FROM customers"));
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
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

  static LiveClient socket(String token) throws Exception {
    return LiveClient.connect(service.vertx, new WebSocketConnectOptions().setHost("127.0.0.1").setPort(service.port())
        .setURI("/ws?access_token=" + token));
  }

  static HttpResponse<Buffer> post(String token, String path, JsonObject body) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  /** Bob's rerun or choose of Alice's run: the socket closes with 4403 and nothing was accepted. */
  static void closesWith4403(String runId, JsonObject message) throws Exception {
    LiveClient bob = socket(BOB);
    try {
      bob.send(message.put("run_id", runId));
      assertThat(bob.closed.get(20, TimeUnit.SECONDS)).isEqualTo((short) 4403);
      List<JsonObject> frames = List.copyOf(bob.frames);
      assertThat(frames).as(frames.toString()).noneMatch(f -> "accepted".equals(f.getString("type")));
    } finally {
      bob.close();
    }
  }

  @Test
  void aRunStillRunningIsAConflictAndAnotherUsersRunClosesTheSocket() throws Exception {
    LiveClient alice = socket(ALICE);
    try {
      alice.send(new JsonObject().put("type", "ask").put("question", "Count the customers slowly"));
      JsonObject accepted = alice.until(LiveClient.type("accepted"), 20).get(0);
      String running = accepted.getString("run_id");

      HttpResponse<Buffer> rerun = post(ALICE, "/api/runs/" + running + "/rerun", new JsonObject().put("sql", "SELECT 1"));
      assertThat(rerun.statusCode()).as(rerun.bodyAsString()).isEqualTo(409);
      assertThat(rerun.bodyAsJsonObject().getString("message")).contains("still running");
      HttpResponse<Buffer> choose = post(ALICE, "/api/runs/" + running + "/choose", new JsonObject().put("reading", 1));
      assertThat(choose.statusCode()).as(choose.bodyAsString()).isEqualTo(409);
      HttpResponse<Buffer> export = service.client.get(service.port(), "127.0.0.1", "/api/runs/" + running + "/export?format=csv")
          .bearerTokenAuthentication(ALICE).send().await(60, TimeUnit.SECONDS);
      assertThat(export.statusCode()).as(export.bodyAsString()).isEqualTo(409);
      assertThat(export.bodyAsJsonObject().getString("message")).contains("still running");
      HttpResponse<Buffer> rated = post(ALICE, "/api/runs/" + running + "/feedback", new JsonObject().put("rating", "up"));
      assertThat(rated.statusCode()).as(rated.bodyAsString()).isEqualTo(409);

      closesWith4403(running, new JsonObject().put("type", "rerun").put("sql", "SELECT 1"));
      closesWith4403(running, new JsonObject().put("type", "choose").put("reading", 1));
    } finally {
      alice.close();
    }
  }

  @Test
  void anotherUsersAnsweredRunClosesTheSocketBeforeAnythingIsAccepted() throws Exception {
    HttpResponse<Buffer> asked = post(ALICE, "/api/ask", new JsonObject().put("question", "How many customers are there?"));
    assertThat(asked.statusCode()).as(asked.bodyAsString()).isEqualTo(200);
    String answered = asked.bodyAsJsonObject().getString("run_id");
    closesWith4403(answered, new JsonObject().put("type", "rerun").put("sql", "SELECT 1"));
    closesWith4403(answered, new JsonObject().put("type", "choose").put("reading", 1));
  }
}
