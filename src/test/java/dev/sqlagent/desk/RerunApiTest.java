package dev.sqlagent.desk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.UsersFiles;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.users.User;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/runs/{id}/rerun}: an edited answer's SQL as a new run (its own id, events, query-log row and a
 * conversation turn marked edited) for the run's owner or an admin; a failure shows PostgreSQL's error and hint and is
 * not repaired by the model; empty SQL 400, not a SELECT 422 with the gate's refusal, unknown run 404; a good edited
 * answer can be rated and verified.
 */
class RerunApiTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();

  static final String VERIFIED_QUESTION = "How many customers have an id under 10, by the desk test?";

  static FakeModelServer model;
  static RunningService service;
  static Vertx vertx;
  static MainVerticle main;
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
  }

  @AfterAll
  static void stop() throws Exception {
    // The verified query made here must not answer another test's question about customers.
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("DELETE FROM verified_queries WHERE question = ?")) {
      ps.setString(1, VERIFIED_QUESTION);
      ps.executeUpdate();
    }
    try {
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static HttpResponse<Buffer> post(String token, String path, Object body) throws Exception {
    var request = service.client.post(main.httpPort(), "127.0.0.1", path).bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json");
    return (body instanceof JsonObject j ? request.sendJsonObject(j) : request.sendBuffer(Buffer.buffer(String.valueOf(body))))
        .await(60, TimeUnit.SECONDS);
  }

  static JsonObject ask(String token, String question) throws Exception {
    HttpResponse<Buffer> r = post(token, "/api/ask", new JsonObject().put("question", question));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  static HttpResponse<Buffer> rerun(String token, String runId, Object sql) throws Exception {
    return post(token, "/api/runs/" + runId + "/rerun", new JsonObject().put("sql", sql));
  }

  static List<String> nodes(String runId) throws Exception {
    return new AgentClient(vertx, 10_000).events(RunRequest.events(runId, 0, new User("root", "The Admin", true, null)))
        .await(10, TimeUnit.SECONDS).events().stream().map(GraphEvent::toJson)
        .map(e -> e.getString("node") + ":" + e.getString("status")).toList();
  }

  static String logged(String runId) throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < until) {
      try (Connection c = TestDatabase.get().state().ownerConnection();
           PreparedStatement ps = c.prepareStatement("SELECT final_sql FROM agent_query_log WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) return rs.getString(1);
        }
      }
      Thread.sleep(100);
    }
    return null;
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection(); var s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void anEditedQueryIsANewRunAndTurnMarkedEditedWithTheSameEventsAndNoModelCall() throws Exception {
    JsonObject first = ask(ALICE, "How many customers are there?");
    int before = model.requestCount();
    HttpResponse<Buffer> r = rerun(ALICE, first.getString("run_id"), "SELECT count(*) AS n FROM customers WHERE cust_id < 10");
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject edited = r.bodyAsJsonObject();
    assertThat(model.requestCount()).isEqualTo(before);
    assertThat(edited.getString("run_id")).isNotEqualTo(first.getString("run_id")).isEqualTo(r.getHeader("X-Run-Id"));
    assertThat(edited.getString("edited_from")).isEqualTo(first.getString("run_id"));
    assertThat(edited.getString("answer_source")).isEqualTo("person");
    assertThat(edited.getString("user")).isEqualTo("alice");
    assertThat(edited.getString("question")).isEqualTo("How many customers are there?");
    assertThat(edited.getString("conversation_id")).isEqualTo(first.getString("conversation_id"));
    assertThat(edited.getJsonArray("rows").getJsonArray(0).getValue(0).toString())
        .isEqualTo(scalar("SELECT count(*) FROM customers WHERE cust_id < 10"));
    assertThat(nodes(edited.getString("run_id"))).containsSubsequence("validate_sql:started", "validate_sql:finished",
        "execute_sql:started", "execute_sql:finished", "inspect_result:finished", "decide:finished", "answer:finished");
    assertThat(nodes(edited.getString("run_id"))).noneMatch(n -> n.startsWith("generate_sql") || n.startsWith("select_schema"));
    assertThat(logged(edited.getString("run_id"))).contains("cust_id < 10");

    JsonArray turns = service.client.get(main.httpPort(), "127.0.0.1", "/api/conversations/" + first.getString("conversation_id"))
        .bearerTokenAuthentication(ALICE).send().await(30, TimeUnit.SECONDS).bodyAsJsonObject().getJsonArray("turns");
    assertThat(turns).hasSize(2);
    assertThat(turns.getJsonObject(0).containsKey("edited_from")).isFalse();
    assertThat(turns.getJsonObject(1).getString("chosen_by")).isEqualTo("edited");
    assertThat(turns.getJsonObject(1).getString("edited_from")).isEqualTo(first.getString("run_id"));
    assertThat(turns.getJsonObject(1).getString("sql")).contains("cust_id < 10");

    // Rated and verified like any answer.
    HttpResponse<Buffer> up = post(ALICE, "/api/runs/" + edited.getString("run_id") + "/feedback", new JsonObject().put("rating", "up"));
    assertThat(up.statusCode()).as(up.bodyAsString()).isEqualTo(200);
    HttpResponse<Buffer> verified = post(ALICE, "/api/runs/" + edited.getString("run_id") + "/verify",
        new JsonObject().put("question", VERIFIED_QUESTION));
    assertThat(verified.statusCode()).as(verified.bodyAsString()).isBetween(200, 201);
    assertThat(verified.bodyAsString()).contains("cust_id < 10");
  }

  @Test
  void aFailedEditShowsPostgresqlsErrorAndHintAndIsNotRepaired() throws Exception {
    JsonObject first = ask(ALICE, "How many customers are there, please?");
    int before = model.requestCount();
    HttpResponse<Buffer> r = rerun(ALICE, first.getString("run_id"), "SELECT count(*) FROM customers WHERE nmae = 'x'");
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonObject a = r.bodyAsJsonObject();
    assertThat(model.requestCount()).isEqualTo(before);
    assertThat(a.getBoolean("gave_up")).isTrue();
    assertThat(a.getInteger("attempts")).isEqualTo(1);
    JsonObject failed = a.getJsonArray("history").getJsonObject(0);
    assertThat(failed.getString("error_type")).isEqualTo("unknown_column");
    assertThat(failed.getString("message")).contains("nmae");
    assertThat(a.getString("answer")).contains("The query did not run: unknown_column").contains("nmae")
        .contains("not repaired by the model");
    assertThat(nodes(a.getString("run_id"))).contains("validate_sql:failed", "give_up:finished")
        .doesNotContain("prepare_repair:finished");
  }

  @Test
  void ownerOrAdminOnlyAndEachBadInputHasItsOwnClearError() throws Exception {
    JsonObject first = ask(ALICE, "How many customers do we have?");
    String id = first.getString("run_id");
    HttpResponse<Buffer> bob = rerun(BOB, id, "SELECT 1");
    assertThat(bob.statusCode()).as(bob.bodyAsString()).isEqualTo(403);
    assertThat(bob.bodyAsJsonObject().getString("message")).contains("another user's");
    HttpResponse<Buffer> admin = rerun(ROOT, id, "SELECT 2 AS two");
    assertThat(admin.statusCode()).as(admin.bodyAsString()).isEqualTo(200);
    assertThat(admin.bodyAsJsonObject().getString("edited_from")).isEqualTo(id);

    HttpResponse<Buffer> empty = rerun(ALICE, id, "   ");
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(empty.bodyAsJsonObject().getString("message")).contains("sql must be a non-empty string");
    assertThat(rerun(ALICE, id, 42).statusCode()).isEqualTo(400);
    assertThat(post(ALICE, "/api/runs/" + id + "/rerun", "not json").statusCode()).isEqualTo(400);

    HttpResponse<Buffer> unknown = rerun(ALICE, UUID.randomUUID().toString(), "SELECT 1");
    assertThat(unknown.statusCode()).as(unknown.bodyAsString()).isEqualTo(404);
    assertThat(unknown.bodyAsJsonObject().getString("message")).contains("no run");

    HttpResponse<Buffer> write = rerun(ALICE, id, "DELETE FROM customers");
    assertThat(write.statusCode()).as(write.bodyAsString()).isEqualTo(422);
    JsonObject refusal = write.bodyAsJsonObject();
    assertThat(refusal.getBoolean("ok")).isFalse();
    assertThat(refusal.getString("message")).isNotBlank().doesNotContain("Exception");
    assertThat(refusal.getString("run_id")).isNotBlank();
    HttpResponse<Buffer> two = rerun(ALICE, id, "SELECT 1; SELECT 2");
    assertThat(two.statusCode()).as(two.bodyAsString()).isEqualTo(422);
    assertThat(two.bodyAsJsonObject().getString("error_type")).isEqualTo("rejected");
    assertThat(scalar("SELECT count(*) > 0 FROM customers")).isEqualTo("t");
  }
}
