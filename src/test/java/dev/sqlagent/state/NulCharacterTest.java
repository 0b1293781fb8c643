package dev.sqlagent.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.codec.BodyCodec;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A NUL character (U+0000) cannot be stored by PostgreSQL. Typed by a person (a question, SQL, a feedback comment, a
 * verified query) it is refused with 400 and says why; in what the model or the service wrote (a refusal's words) it
 * is dropped, and the run's turn is kept.
 */
class NulCharacterTest {

  static final String COUNT = "SELECT count(*) AS n FROM customers";

  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
  }

  @BeforeEach
  void resetModel() {
    model.reset();
  }

  static HttpResponse<JsonObject> post(String path, JsonObject body) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", path).as(BodyCodec.jsonObject()).sendJsonObject(body)
        .await(60, TimeUnit.SECONDS);
  }

  static HttpResponse<JsonObject> get(String path) throws Exception {
    return service.client.get(service.port(), "127.0.0.1", path).as(BodyCodec.jsonObject()).send()
        .await(30, TimeUnit.SECONDS);
  }

  static void assertRefusedForNul(HttpResponse<JsonObject> r) {
    assertThat(r.statusCode()).as(String.valueOf(r.body())).isEqualTo(400);
    assertThat(r.body().getString("error_type")).isEqualTo("bad_request");
    assertThat(r.body().getString("message")).contains("NUL character");
  }

  static JsonObject answered(String question) throws Exception {
    model.enqueue(Reply.sql(COUNT));
    HttpResponse<JsonObject> r = post("/api/ask", new JsonObject().put("question", question));
    assertThat(r.statusCode()).as(String.valueOf(r.body())).isEqualTo(200);
    return r.body();
  }

  @Test
  void aQuestionWithNulIsRefusedBeforeAnythingRuns() throws Exception {
    HttpResponse<JsonObject> r = post("/api/ask", new JsonObject().put("question", "How many customers\u0000 are there?"));
    assertRefusedForNul(r);
    assertThat(model.requestCount()).as("nothing was asked of the model").isZero();
  }

  @Test
  void aFeedbackCommentWithNulIsRefusedAndAPlainOneIsKept() throws Exception {
    String runId = answered("How many customers are there?").getString("run_id");
    assertRefusedForNul(post("/api/runs/" + runId + "/feedback",
        new JsonObject().put("rating", "up").put("comment", "right\u0000 on")));
    HttpResponse<JsonObject> kept = post("/api/runs/" + runId + "/feedback",
        new JsonObject().put("rating", "up").put("comment", "right on"));
    assertThat(kept.statusCode()).as(String.valueOf(kept.body())).isEqualTo(200);
  }

  @Test
  void editedSqlWithNulIsRefused() throws Exception {
    String runId = answered("How many customers are there?").getString("run_id");
    assertRefusedForNul(post("/api/runs/" + runId + "/rerun", new JsonObject().put("sql", COUNT + "\u0000")));
  }

  @Test
  void aVerifiedQueryWithNulInItsQuestionOrSqlIsRefused() throws Exception {
    assertRefusedForNul(post("/api/verified", new JsonObject().put("question", "How many\u0000 customers?").put("sql", COUNT)));
    assertRefusedForNul(post("/api/verified", new JsonObject().put("question", "How many customers?").put("sql", COUNT + "\u0000")));
  }

  @Test
  void aModelReplyWithNulIsStoredWithoutItAndTheTurnIsKept() throws Exception {
    model.enqueue(Reply.refusal("there is no\u0000 such table"));
    HttpResponse<JsonObject> r = post("/api/ask", new JsonObject().put("question", "What is the weather on Mars?"));
    assertThat(r.statusCode()).as(String.valueOf(r.body())).isEqualTo(200);
    String runId = r.body().getString("run_id");
    String conversation = r.body().getString("conversation_id");

    HttpResponse<JsonObject> stored = get("/api/conversations/" + conversation);
    assertThat(stored.statusCode()).as(String.valueOf(stored.body())).isEqualTo(200);
    JsonObject turn = stored.body().getJsonArray("turns").getJsonObject(0);
    assertThat(turn.getString("run_id")).isEqualTo(runId);
    assertThat(turn.getString("answer")).contains("there is no such table").doesNotContain("\u0000");
    // The run is there for what comes after it: a rating.
    assertThat(post("/api/runs/" + runId + "/feedback", new JsonObject().put("rating", "down")).statusCode()).isEqualTo(200);
  }
}
