package dev.sqlagent.desk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.tools.DatabaseTools;
import dev.sqlagent.tools.ToolResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Asking back, with a scripted model on the real gate and database: a split vote ends in needs_clarification with
 * its readings; a majority answers as before; the model's own readings ask too; choosing a reading answers from it
 * without another model call (the model's requests are counted), as the next turn of the conversation.
 */
class ClarificationScenarioTest {

  static final String ALL = "SELECT count(*) AS bills FROM bills";
  static final String PAID = "SELECT count(*) AS bills FROM bills WHERE status = 'PAID'";
  static final String OPEN = "SELECT count(*) AS bills FROM bills WHERE status <> 'PAID'";

  static FakeModelServer model;
  static RunningService service;
  static Vertx vertx;
  static MainVerticle main;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    main = service.main;
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

  static JsonObject ask(String question, int candidates) throws Exception {
    return new AgentClient(vertx, 60_000).ask(AskRequest.of(question, "http")
            .withOptions(new RunOptions(true, false, false, candidates, null)))
        .await(70, TimeUnit.SECONDS).toJson();
  }

  static List<JsonObject> events(String runId, String node, String status) throws Exception {
    return new AgentClient(vertx, 10_000).events(RunRequest.events(runId, 0, null)).await(10, TimeUnit.SECONDS)
        .events().stream().map(GraphEvent::toJson)
        .filter(e -> e.getString("node").equals(node) && e.getString("status").equals(status)).toList();
  }

  static long scalar(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static HttpResponse<Buffer> post(String path, JsonObject body) throws Exception {
    return service.client.post(main.httpPort(), "127.0.0.1", path).putHeader("Content-Type", "application/json")
        .sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  @Test
  void aSplitVoteAsksWithEachReadingAndChoosingOneAnswersWithoutTheModel() throws Exception {
    model.honourN(true).enqueue(Reply.sql(ALL), Reply.sql(PAID), Reply.sql(OPEN));
    JsonObject a = ask("How many bills are there?", 3);

    assertThat(a.getString("answer")).contains("can be read in 3 ways").contains("Which one did you mean?");
    assertThat(a.getString("outcome")).isEqualTo("needs_clarification");
    JsonObject clarification = a.getJsonObject("clarification");
    assertThat(clarification.getString("reason")).isEqualTo("split_vote");
    JsonArray readings = clarification.getJsonArray("readings");
    assertThat(readings).hasSize(3);
    long[] expected = {scalar(ALL), scalar(PAID), scalar(OPEN)};
    for (int i = 0; i < 3; i++) {
      JsonObject r = readings.getJsonObject(i);
      assertThat(r.getInteger("reading")).isEqualTo(i + 1);
      assertThat(r.getInteger("row_count")).isEqualTo(1);
      assertThat(r.getInteger("votes")).isEqualTo(1);
      assertThat(r.getJsonArray("sample").getJsonArray(0).getValue(0).toString()).isEqualTo(String.valueOf(expected[i]));
      assertThat(r.getString("description")).isNotBlank().doesNotContain("\n");
    }
    assertThat(readings.getJsonObject(1).getString("description")).isEqualTo("Only where status = 'PAID'");
    assertThat(readings.getJsonObject(2).getString("description")).isEqualTo("Only where status <> 'PAID'");
    assertThat(readings.getJsonObject(0).getString("description"))
        .isEqualTo("Without the other readings' conditions (status = 'PAID'; status <> 'PAID')");
    assertThat(readings.getJsonObject(0).getBoolean("vote_pick")).isTrue();
    // A client that cannot ask still has the vote's pick as the SQL and rows.
    assertThat(a.getString("sql")).containsIgnoringCase("from bills").doesNotContain("PAID");
    assertThat(a.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(String.valueOf(expected[0]));
    List<JsonObject> clarify = events(a.getString("run_id"), "clarify", "finished");
    assertThat(clarify).hasSize(1);
    assertThat(clarify.get(0).getJsonObject("data").getJsonObject("clarification").getJsonArray("readings")).hasSize(3);
    assertThat(events(a.getString("run_id"), "answer", "finished")).isEmpty();

    // Choosing reading 2: no model call, its result, the next turn of the same conversation.
    int before = model.requestCount();
    HttpResponse<Buffer> chosen = post("/api/runs/" + a.getString("run_id") + "/choose", new JsonObject().put("reading", 2));
    assertThat(chosen.statusCode()).as(chosen.bodyAsString()).isEqualTo(200);
    JsonObject b = chosen.bodyAsJsonObject();
    assertThat(model.requestCount()).isEqualTo(before);
    assertThat(b.getString("run_id")).isNotEqualTo(a.getString("run_id"));
    assertThat(b.getString("edited_from")).isEqualTo(a.getString("run_id"));
    assertThat(b.getInteger("chosen_reading")).isEqualTo(2);
    assertThat(b.getString("outcome")).isEqualTo("answered");
    assertThat(b.getString("answer_source")).isEqualTo("person");
    assertThat(b.getString("conversation_id")).isEqualTo(a.getString("conversation_id"));
    assertThat(b.getString("sql")).contains("'PAID'");
    assertThat(b.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(String.valueOf(expected[1]));
    assertThat(b.containsKey("clarification")).isFalse();
    assertThat(events(b.getString("run_id"), "execute_sql", "finished")).hasSize(1);
    assertThat(events(b.getString("run_id"), "generate_sql", "started")).isEmpty();

    JsonObject conversation = service.client.get(main.httpPort(), "127.0.0.1",
        "/api/conversations/" + a.getString("conversation_id")).send().await(30, TimeUnit.SECONDS).bodyAsJsonObject();
    JsonArray turns = conversation.getJsonArray("turns");
    assertThat(turns).hasSize(2);
    assertThat(turns.getJsonObject(0).getString("outcome")).isEqualTo("needs_clarification");
    assertThat(turns.getJsonObject(0).getJsonObject("clarification").getJsonArray("readings")).hasSize(3);
    assertThat(turns.getJsonObject(1).getString("chosen_by")).isEqualTo("clarified");
    assertThat(turns.getJsonObject(1).getInteger("chosen_reading")).isEqualTo(2);

    // A reading the run did not offer, and a run that did not ask: 400 with what to send.
    HttpResponse<Buffer> none = post("/api/runs/" + a.getString("run_id") + "/choose", new JsonObject().put("reading", 4));
    assertThat(none.statusCode()).isEqualTo(400);
    assertThat(none.bodyAsJsonObject().getString("message")).contains("offered 3 readings; reading must be 1 to 3");
    HttpResponse<Buffer> notAsked = post("/api/runs/" + b.getString("run_id") + "/choose", new JsonObject().put("reading", 1));
    assertThat(notAsked.statusCode()).isEqualTo(400);
    assertThat(notAsked.bodyAsJsonObject().getString("message")).contains("did not ask which reading was meant");
    HttpResponse<Buffer> word = post("/api/runs/" + a.getString("run_id") + "/choose", new JsonObject().put("reading", "two"));
    assertThat(word.statusCode()).isEqualTo(400);
    assertThat(model.requestCount()).isEqualTo(before);
  }

  @Test
  void aMajorityAnswersWithoutAsking() throws Exception {
    model.honourN(true).enqueue(Reply.sql(PAID), Reply.sql(ALL), Reply.sql("SELECT count(bill_id) FROM bills WHERE status = 'PAID'"));
    JsonObject a = ask("How many bills were paid?", 3);
    assertThat(a.containsKey("clarification")).isFalse();
    assertThat(a.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(String.valueOf(scalar(PAID)));
    assertThat(events(a.getString("run_id"), "clarify", "finished")).isEmpty();
    assertThat(events(a.getString("run_id"), "answer", "finished")).hasSize(1);
  }

  @Test
  void twoOfFourIsNotAMajorityAndAsksWithTwoReadings() throws Exception {
    model.honourN(true).enqueue(Reply.sql(ALL), Reply.sql(PAID), Reply.sql("SELECT count(bill_id) FROM bills"),
        Reply.sql("SELECT count(bill_id) FROM bills WHERE status = 'PAID'"));
    JsonObject a = ask("How many bills?", 4);
    JsonArray readings = a.getJsonObject("clarification").getJsonArray("readings");
    assertThat(readings).hasSize(2);
    assertThat(readings.getJsonObject(0).getInteger("votes")).isEqualTo(2);
    assertThat(readings.getJsonObject(1).getInteger("votes")).isEqualTo(2);
  }

  @Test
  void theModelsOwnReadingsAskWithItsWordsWithOneCandidate() throws Exception {
    model.enqueue(Reply.content(new JsonObject().put("sql", PAID).put("explanation", "paid bills")
        .put("readings", new JsonArray()
            .add(new JsonObject().put("sql", PAID).put("description", "Bills paid in full"))
            .add(new JsonObject().put("sql", ALL).put("description", "Every bill, whatever its status"))).encode()));
    JsonObject a = ask("How many bills do we have?", 1);
    JsonObject clarification = a.getJsonObject("clarification");
    assertThat(clarification.getString("reason")).isEqualTo("model_readings");
    assertThat(clarification.getJsonArray("readings")).extracting(r -> ((JsonObject) r).getString("description"))
        .containsExactly("Bills paid in full", "Every bill, whatever its status");
    assertThat(model.requestCount()).isEqualTo(1);
  }

  @Test
  void theModelsReadingsThatAgreeAnswerWithoutAsking() throws Exception {
    model.enqueue(Reply.content(new JsonObject().put("sql", PAID).put("explanation", "paid bills")
        .put("readings", new JsonArray()
            .add(new JsonObject().put("sql", PAID).put("description", "Bills paid in full"))
            .add(new JsonObject().put("sql", "SELECT count(bill_id) FROM bills WHERE status = 'PAID'")
                .put("description", "Paid bills, counted by id"))).encode()));
    JsonObject a = ask("How many bills were paid in full?", 1);
    assertThat(a.containsKey("clarification")).isFalse();
    assertThat(a.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(String.valueOf(scalar(PAID)));
  }

  @Test
  void overMcpTheAskResultListsTheReadingsAndChooseReadingAnswersFromOne() throws Exception {
    model.honourN(true).enqueue(Reply.sql(ALL), Reply.sql(PAID), Reply.sql(OPEN));
    DatabaseTools tools = new DatabaseTools(vertx, dev.sqlagent.config.AppConfig.load(Map.of("SQLAGENT_CANDIDATES", "3")).deadlines());
    // The MCP ask asks with the configured candidates; here the service's are 1, so the bus request names 3.
    JsonObject asked = ask("How many bills are on file?", 3);
    ToolResult bad = tools.call(DatabaseTools.CHOOSE_READING, new JsonObject().put("run_id", asked.getString("run_id"))
        .put("reading", 0), null, null).await(60, TimeUnit.SECONDS);
    assertThat(bad.errorType()).isEqualTo("bad_request");
    int before = model.requestCount();
    ToolResult chosen = tools.call(DatabaseTools.CHOOSE_READING, new JsonObject().put("run_id", asked.getString("run_id"))
        .put("reading", 2), null, null).await(60, TimeUnit.SECONDS);
    assertThat(chosen.error()).as(chosen.text()).isFalse();
    assertThat(chosen.data().getString("source")).isEqualTo("mcp");
    assertThat(chosen.data().getInteger("chosen_reading")).isEqualTo(2);
    assertThat(chosen.text()).contains("'PAID'");
    assertThat(model.requestCount()).isEqualTo(before);
    // The text an MCP client reads for the asking answer lists each reading with its SQL.
    assertThat(dev.sqlagent.display.ResultText.answer(asked)).contains("1. ").contains("2. Only where status = 'PAID' (1 row)")
        .contains("3. Only where status <> 'PAID' (1 row)");
  }

  @Test
  void choosingOverTheBusNamesTheRunItCameFrom() throws Exception {
    model.honourN(true).enqueue(Reply.sql(ALL), Reply.sql(PAID), Reply.sql(OPEN));
    JsonObject a = ask("How many bills are there, really?", 3);
    int before = model.requestCount();
    JsonObject b = new AgentClient(vertx, 60_000).rerun(RerunRequest.chosen(a.getString("run_id"), 3, null, "eventbus",
        null)).await(60, TimeUnit.SECONDS).toJson();
    assertThat(model.requestCount()).isEqualTo(before);
    assertThat(b.getString("source")).isEqualTo("eventbus");
    assertThat(b.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(String.valueOf(scalar(OPEN)));
  }
}
