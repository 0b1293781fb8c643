package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.UsersFiles;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.tools.DatabaseTools;
import dev.sqlagent.tools.ToolResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Conversations and feedback belong to users: Bob can neither read nor continue Alice's conversation (404, as
 * for an id that never existed, over HTTP and MCP), nor rate or promote her run (403); the admin reads it; her
 * own rating stores her name, and her promoted query names her.
 */
class ConversationOwnershipTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();
  static final User BOB_USER = new User("bob", "Bob", false, null);

  static FakeModelServer model;
  static Vertx vertx;
  static MainVerticle main;
  static RunningService service;
  static WebClient web;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    usersFile = UsersFiles.aliceBobAndAdmin(ALICE, BOB, ROOT);
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS customers FROM customers"));
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    service = RunningService.start(model, env);
    vertx = service.vertx;
    main = service.main;
    web = service.client;
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

  static HttpResponse<Buffer> post(String token, String path, JsonObject body) throws Exception {
    return web.post(main.httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> get(String token, String path) throws Exception {
    return web.get(main.httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token).send().await(60, TimeUnit.SECONDS);
  }

  static JsonObject ask(String token, String question, String conversationId) throws Exception {
    JsonObject body = new JsonObject().put("question", question);
    if (conversationId != null) body.put("conversation_id", conversationId);
    HttpResponse<Buffer> r = post(token, "/api/ask", body);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  @Test
  void anotherUsersConversationIsUnknownToThemAndTheAdminReadsIt() throws Exception {
    JsonObject first = ask(ALICE, "How many customers are there?", null);
    String id = first.getString("conversation_id");
    assertThat(id).isNotBlank();

    HttpResponse<Buffer> mine = get(ALICE, "/api/conversations/" + id);
    assertThat(mine.statusCode()).as(mine.bodyAsString()).isEqualTo(200);
    assertThat(mine.bodyAsJsonObject().getString("user")).isEqualTo("alice");
    assertThat(mine.bodyAsJsonObject().getJsonArray("turns")).hasSize(1);

    // Bob is told exactly what an id that never existed tells him: nothing confirms Alice's id.
    String never = UUID.randomUUID().toString();
    HttpResponse<Buffer> unknown = get(BOB, "/api/conversations/" + never);
    HttpResponse<Buffer> theirs = get(BOB, "/api/conversations/" + id);
    assertThat(theirs.statusCode()).isEqualTo(404).isEqualTo(unknown.statusCode());
    assertThat(theirs.bodyAsJsonObject().getString("message").replace(id, never))
        .isEqualTo(unknown.bodyAsJsonObject().getString("message"));
    assertThat(theirs.bodyAsString()).doesNotContain("customers");

    // Nor can he continue it, over HTTP or MCP; nothing is added to it.
    int before = model.requestCount();
    HttpResponse<Buffer> cont = post(BOB, "/api/ask", new JsonObject().put("question", "and how many products?")
        .put("conversation_id", id));
    assertThat(cont.statusCode()).as(cont.bodyAsString()).isEqualTo(404);
    assertThat(cont.bodyAsJsonObject().getString("message")).contains("no conversation");
    ToolResult viaMcp = new DatabaseTools(vertx, dev.sqlagent.config.AppConfig.load(java.util.Map.of()).deadlines()).call(DatabaseTools.ASK, new JsonObject()
        .put("question", "and how many products?").put("conversation_id", id), BOB_USER, null).await(60, TimeUnit.SECONDS);
    assertThat(viaMcp.errorType()).isEqualTo("not_found");
    assertThat(model.requestCount()).isEqualTo(before);

    // The admin reads it; Alice continues it.
    HttpResponse<Buffer> admin = get(ROOT, "/api/conversations/" + id);
    assertThat(admin.statusCode()).as(admin.bodyAsString()).isEqualTo(200);
    assertThat(admin.bodyAsJsonObject().getString("user")).isEqualTo("alice");
    assertThat(ask(ALICE, "and how many products?", id).getString("conversation_id")).isEqualTo(id);
    assertThat(get(ALICE, "/api/conversations/" + id).bodyAsJsonObject().getJsonArray("turns")).hasSize(2);
  }

  @Test
  void onlyTheRunsOwnerRatesOrPromotesItAndTheRatingNamesThem() throws Exception {
    String question = "How many customers are there, counted for " + UUID.randomUUID() + "?";
    String run = ask(ALICE, question, null).getString("run_id");

    HttpResponse<Buffer> bobRates = post(BOB, "/api/runs/" + run + "/feedback", new JsonObject().put("rating", "down"));
    assertThat(bobRates.statusCode()).as(bobRates.bodyAsString()).isEqualTo(403);
    assertThat(bobRates.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden");
    ToolResult bobViaMcp = new DatabaseTools(vertx, dev.sqlagent.config.AppConfig.load(java.util.Map.of()).deadlines()).call(DatabaseTools.FEEDBACK, new JsonObject()
        .put("run_id", run).put("rating", "down"), BOB_USER, null).await(30, TimeUnit.SECONDS);
    assertThat(bobViaMcp.errorType()).isEqualTo("forbidden");
    assertThat(feedbackRow(run)).isNull();

    HttpResponse<Buffer> rated = post(ALICE, "/api/runs/" + run + "/feedback", new JsonObject().put("rating", "up"));
    assertThat(rated.statusCode()).as(rated.bodyAsString()).isEqualTo(200);
    assertThat(rated.bodyAsJsonObject().getString("user")).isEqualTo("alice");
    assertThat(feedbackRow(run)).isEqualTo("up by alice");

    // Rated up, it still cannot be promoted by Bob.
    HttpResponse<Buffer> bobPromotes = post(BOB, "/api/runs/" + run + "/verify", new JsonObject());
    assertThat(bobPromotes.statusCode()).as(bobPromotes.bodyAsString()).isEqualTo(403);
    HttpResponse<Buffer> promoted = post(ALICE, "/api/runs/" + run + "/verify", new JsonObject());
    assertThat(promoted.statusCode()).as(promoted.bodyAsString()).isEqualTo(200);
    assertThat(promoted.bodyAsJsonObject().getString("verified_by")).isEqualTo("alice");
    // Out of the shared library again, so other tests' questions are not matched to it.
    long verifiedId = promoted.bodyAsJsonObject().getLong("verified_id");
    assertThat(web.delete(main.httpPort(), "127.0.0.1", "/api/verified/" + verifiedId).bearerTokenAuthentication(ROOT).send()
        .await(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  /** "rating by user" of the run's stored feedback, or null when there is none. */
  static String feedbackRow(String runId) throws Exception {
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("SELECT rating, user_name FROM run_feedback WHERE run_id = ?")) {
      ps.setString(1, runId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) + " by " + rs.getString(2) : null;
      }
    }
  }
}
