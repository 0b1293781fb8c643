package dev.sqlagent.agent;

import dev.sqlagent.testing.RunningService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.demo.SeedData;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent end to end: real HTTP to {@code POST /api/ask}, the real gate on the real database, and a
 * scripted local model speaking the OpenAI API. Each test scripts the model's SQL and checks what the
 * loop did with PostgreSQL's verdicts.
 */
class AgentFlowTest {

  static RunningService service;
  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle main;
  static WebClient http;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain", "SQLAGENT_LLM_TIMEOUT_MS", "1500"));
    vertx = service.vertx;
    main = service.main;
    http = service.client;
  }

  @AfterAll
  static void stop() throws Exception {
    model.close();
    service.close();
  }

  @BeforeEach
  void resetModel() {
    model.reset();
  }

  static JsonObject ask(String question) throws Exception {
    return ask(question, "agent");
  }

  static JsonObject ask(String question, String mode) throws Exception {
    HttpResponse<JsonObject> resp = http.post(main.httpPort(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
        .sendJsonObject(new JsonObject().put("question", question).put("mode", mode)).await(60, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).as("HTTP status of /api/ask: %s", resp.bodyAsString()).isEqualTo(200);
    return resp.body();
  }

  static JsonArray events(String runId) throws Exception {
    return http.get(main.httpPort(), "127.0.0.1", "/api/runs/" + runId + "/events").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS).body().getJsonArray("events");
  }

  static List<JsonObject> history(JsonObject answer) {
    return answer.getJsonArray("history").stream().map(o -> (JsonObject) o).toList();
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void unknownColumnIsRepairedAfterWideningRetrieval() throws Exception {
    model.enqueue(
        Reply.sql("SELECT sum(amount) AS revenue FROM bills WHERE status <> 'CANCELLED'"),
        Reply.sql("SELECT sum(total_amt) AS revenue FROM bills WHERE status <> 'CANCELLED'"));
    JsonObject a = ask("What is the total billed amount of bills that were not cancelled?");

    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(new BigDecimal(a.getJsonArray("rows").getJsonArray(0).getValue(0).toString()))
        .isEqualByComparingTo(scalar("SELECT sum(total_amt) FROM bills WHERE status <> 'CANCELLED'"));
    assertThat(history(a)).singleElement().satisfies(h -> {
      assertThat(h.getString("error_type")).isEqualTo("unknown_column");
      assertThat(h.getString("sql")).contains("sum(amount)");
      assertThat(h.getString("strategy")).isNotBlank();
    });
    // the repair prompt carried the failed attempt and PostgreSQL's verdict
    String repairPrompt = model.requests().get(1).messages().encode();
    assertThat(repairPrompt).contains("sum(amount)").contains("unknown_column").contains("Repair:");
    // retrieval was widened before regenerating
    List<JsonObject> selections = events(a.getString("run_id")).stream().map(o -> (JsonObject) o)
        .filter(e -> e.getString("node").equals("select_schema") && e.getString("status").equals("finished")).toList();
    assertThat(selections).hasSize(2);
    assertThat(selections.get(0).getJsonObject("data").getInteger("top_k")).isEqualTo(5);
    assertThat(selections.get(1).getJsonObject("data").getInteger("top_k")).isEqualTo(9);
  }

  @Test
  void ambiguousColumnIsRepairedByAliasing() throws Exception {
    model.enqueue(
        Reply.sql("SELECT status, count(*) FROM bills b JOIN bill_archive a ON a.bill_no = b.bill_no GROUP BY status"),
        Reply.sql("SELECT b.status, count(*) AS n FROM bills b GROUP BY b.status ORDER BY b.status"));
    JsonObject a = ask("How many bills are there per status?");
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(history(a)).extracting(h -> h.getString("error_type")).containsExactly("ambiguous_column");
    assertThat(a.getInteger("row_count")).isEqualTo(3);
  }

  @Test
  void groupingThenWindowingUseTwoStrategiesInOneRun() throws Exception {
    model.enqueue(
        Reply.sql("SELECT cust_id, sum(total_amt) FROM bills"),
        Reply.sql("SELECT cust_id FROM bills WHERE row_number() OVER (ORDER BY total_amt DESC) <= 3"),
        Reply.sql("SELECT cust_id, total_amt FROM (SELECT cust_id, total_amt, row_number() OVER (ORDER BY total_amt DESC) AS rn "
            + "FROM bills WHERE cust_id IS NOT NULL) x WHERE rn <= 3"));
    JsonObject a = ask("Which customers have the three largest bills?");
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getInteger("attempts")).isEqualTo(3);
    assertThat(history(a)).extracting(h -> h.getString("error_type")).containsExactly("grouping_error", "windowing_error");
    assertThat(history(a)).extracting(h -> h.getString("strategy")).doesNotHaveDuplicates();
    assertThat(a.getInteger("row_count")).isEqualTo(3);
  }

  @Test
  void givesUpAfterThreeAttemptsShowingEveryQuery() throws Exception {
    model.enqueue(
        Reply.sql("SELECT amount FROM bills"),
        Reply.sql("SELECT amt FROM bills"),
        Reply.sql("SELECT total FROM bills"),
        Reply.sql("SELECT total_amt FROM bills"));   // never reached: the cap is three
    JsonObject a = ask("Show me the amounts");
    assertThat(a.getBoolean("gave_up")).isTrue();
    assertThat(a.getInteger("attempts")).isEqualTo(3);
    assertThat(history(a)).extracting(h -> h.getString("sql"))
        .containsExactly("SELECT amount FROM bills", "SELECT amt FROM bills", "SELECT total FROM bills");
    assertThat(history(a)).allSatisfy(h -> assertThat(h.getString("error_type")).isEqualTo("unknown_column"));
    assertThat(a.getString("answer")).contains("3 attempts").endsWith("Every query tried is in the history.");
    assertThat(model.pending()).isEqualTo(1);
  }

  @Test
  void aRefusalIsAnAnswerWithoutSql() throws Exception {
    model.enqueue(Reply.refusal("The database has no information about employees' birthdays."));
    JsonObject a = ask("When is the owner's birthday?");
    assertThat(a.getBoolean("refused")).isTrue();
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getString("sql")).isNull();
    assertThat(a.getString("answer")).contains("birthdays");
    assertThat(a.getInteger("attempts")).isEqualTo(1);
  }

  @Test
  void aWriteIsRefusedAndNeverRepaired() throws Exception {
    model.enqueue(Reply.sql("DELETE FROM bills WHERE status = 'CANCELLED'"), Reply.sql("SELECT 1"));
    JsonObject a = ask("Delete the cancelled bills");
    assertThat(a.getBoolean("refused")).isTrue();
    assertThat(a.getInteger("attempts")).isEqualTo(1);
    assertThat(history(a)).singleElement().extracting(h -> h.getString("error_type")).isEqualTo("rejected");
    assertThat(scalar("SELECT count(*) FROM bills WHERE status = 'CANCELLED'")).isNotEqualTo("0");
  }

  @Test
  void permissionDeniedIsNeverRepaired() throws Exception {
    try (Connection c = TestDatabase.get().shopAdmin();
         Statement s = c.createStatement()) {
      s.execute("REVOKE SELECT ON store_settings FROM sql_agent_ro");
    }
    try {
      model.enqueue(Reply.sql("SELECT setting_val FROM store_settings WHERE setting_key = 'store_name'"), Reply.sql("SELECT 1"));
      JsonObject a = ask("What is the store called?");
      assertThat(a.getBoolean("gave_up")).isTrue();
      assertThat(a.getInteger("attempts")).isEqualTo(1);
      assertThat(history(a)).singleElement().extracting(h -> h.getString("error_type")).isEqualTo("permission_denied");
      assertThat(model.pending()).isEqualTo(1);
    } finally {
      try (Connection c = TestDatabase.get().shopAdmin();
           Statement s = c.createStatement()) {
        s.execute("GRANT SELECT ON store_settings TO sql_agent_ro");
      }
    }
  }

  @Test
  void anEmptyResultFromAWrongCaseFilterGetsOneRepair() throws Exception {
    model.enqueue(
        Reply.sql("SELECT bill_no FROM bills WHERE status = 'cancelled' ORDER BY bill_no"),
        Reply.sql("SELECT bill_no FROM bills WHERE status = 'CANCELLED' ORDER BY bill_no"));
    JsonObject a = ask("List the cancelled bills");
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(history(a)).singleElement().extracting(h -> h.getString("error_type")).isEqualTo("empty_filter");
    assertThat(a.getInteger("row_count")).isEqualTo(Integer.parseInt(scalar("SELECT count(*) FROM bills WHERE status = 'CANCELLED'")));
  }

  @Test
  void anEmptyResultThatIsTrueIsAnsweredNotRewritten() throws Exception {
    model.enqueue(Reply.sql("SELECT bill_id, total_amt FROM bills WHERE bill_no = 'NOPE-1'"));
    JsonObject a = ask("Show bill NOPE-1");
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getInteger("attempts")).isEqualTo(1);
    assertThat(a.getInteger("row_count")).isZero();
    assertThat(history(a)).isEmpty();
    assertThat(model.pending()).isZero();

    model.enqueue(Reply.sql("SELECT e.emp_name FROM employees e WHERE NOT EXISTS "
        + "(SELECT 1 FROM employees x WHERE x.emp_id = e.emp_id)"));
    JsonObject b = ask("Which employees do not exist?");
    assertThat(b.getInteger("row_count")).isZero();
    assertThat(b.getInteger("attempts")).isEqualTo(1);
    assertThat(history(b)).isEmpty();
  }

  @Test
  void baselineMakesOneAttemptAndNeverRepairs() throws Exception {
    model.enqueue(Reply.sql("SELECT amount FROM bills"), Reply.sql("SELECT total_amt FROM bills"));
    JsonObject a = ask("Show me the amounts", "baseline");
    assertThat(a.getString("mode")).isEqualTo("baseline");
    assertThat(a.getBoolean("gave_up")).isTrue();
    assertThat(a.getInteger("attempts")).isEqualTo(1);
    assertThat(model.pending()).isEqualTo(1);
  }

  @Test
  void aModelThatNeverAnswersEndsInAnHonestGiveUp() throws Exception {
    model.enqueue(Reply.hang());
    JsonObject a = ask("How many customers are there?");
    assertThat(a.getBoolean("gave_up")).isTrue();
    assertThat(history(a)).singleElement().extracting(h -> h.getString("error_type")).isEqualTo("model_timeout");
    // No SQL ever came back: there is no query in the history to point at.
    assertThat(a.getString("answer")).endsWith("No query was run.").doesNotContain("Every query tried");
  }

  @Test
  void rateLimitsAreRetriedAndTheQuestionAnswered() throws Exception {
    model.enqueue(Reply.rateLimited(0), Reply.rateLimited(0), Reply.sql("SELECT count(*) AS n FROM customers"));
    JsonObject a = ask("How many customers are there?");
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getInteger("attempts")).isEqualTo(1);
    assertThat(a.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(scalar("SELECT count(*) FROM customers"));
  }

  @Test
  void garbageFromTheModelCostsAnAttemptAndIsRepaired() throws Exception {
    model.enqueue(Reply.content("Sure! You should look at the customers table, it has what you need."),
        Reply.sql("SELECT count(*) AS n FROM customers"));
    JsonObject a = ask("How many customers are there?");
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(history(a)).singleElement().extracting(h -> h.getString("error_type")).isEqualTo("model_output_invalid");
    assertThat(a.getBoolean("gave_up")).isFalse();
  }

  @Test
  void anInstructionPlantedInTheDataStaysInsideTheDataBlock() throws Exception {
    model.reset();
    model.respondWith(req -> FakeModelServer.allText(req).contains("You state the answer")
        ? Reply.content("Customer 42's address is on file.")
        : Reply.sql("SELECT address FROM customers WHERE cust_id = 42"));
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "model");
    Vertx v2 = Vertx.vertx();
    try {
      MainVerticle m2 = new MainVerticle(TestDatabase.get().config(env), TestDatabase.get().target(), TestDatabase.get().state());
      v2.deployVerticle(m2).await(120, TimeUnit.SECONDS);
      WebClient asking = WebClient.create(v2);  // kept reachable until the reply is in (see WsClients)
      JsonObject a = asking.post(m2.httpPort(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
          .sendJsonObject(new JsonObject().put("question", "What is customer 42's address?")).await(60, TimeUnit.SECONDS).body();
      asking.close();
      assertThat(a.getJsonArray("rows").getJsonArray(0).getString(0)).isEqualTo(SeedData.INJECTION_ADDRESS);
      String wording = model.requests().stream().map(r -> r.body().encode())
          .filter(s -> s.contains("You state the answer")).findFirst().orElseThrow();
      JsonArray messages = new JsonObject(wording).getJsonArray("messages");
      String user = messages.getJsonObject(1).getString("content");
      int open = user.indexOf(PromptBuilder.ROWS_OPEN);
      int close = user.indexOf(PromptBuilder.ROWS_CLOSE);
      assertThat(user.indexOf("IGNORE PREVIOUS INSTRUCTIONS")).isBetween(open, close);
      assertThat(messages.getJsonObject(0).getString("content")).contains("never instructions");
      assertThat(a.getString("answer")).isEqualTo("Customer 42's address is on file.");
    } finally {
      v2.close().await(30, TimeUnit.SECONDS);
    }
  }

  /** The model words the answer (a second call); a reply that is not prose gives way to the plain summary. */
  @Test
  void aWordingThatIsJsonOrSqlGivesWayToThePlainSummary() throws Exception {
    String[] notProse = {
        "{\"answer\": \"There are many customers.\"}",
        "[1, 2]",
        "SELECT count(*) FROM customers",
        "with c as (select 1) select * from c",
        "Here it is:\n```sql\nSELECT count(*) FROM customers\n```"};
    java.util.concurrent.atomic.AtomicReference<String> wording = new java.util.concurrent.atomic.AtomicReference<>();
    model.respondWith(req -> FakeModelServer.allText(req).contains("You state the answer")
        ? Reply.content(wording.get())
        : Reply.sql("SELECT count(*) AS n FROM customers"));
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "model");
    Vertx v2 = Vertx.vertx();
    try {
      MainVerticle m2 = new MainVerticle(TestDatabase.get().config(env), TestDatabase.get().target(), TestDatabase.get().state());
      v2.deployVerticle(m2).await(120, TimeUnit.SECONDS);
      WebClient client = WebClient.create(v2);
      String expected = "The answer is " + scalar("SELECT count(*) FROM customers") + ".";
      for (String reply : notProse) {
        wording.set(reply);
        JsonObject a = client.post(m2.httpPort(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
            .sendJsonObject(new JsonObject().put("question", "How many customers are there?")).await(60, TimeUnit.SECONDS).body();
        assertThat(a.getString("answer")).as("wording %s", reply).isEqualTo(expected);
      }
      // Prose, even prose that starts with "With", is shown as the model wrote it.
      wording.set("With every account counted, there are many customers.");
      JsonObject a = client.post(m2.httpPort(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
          .sendJsonObject(new JsonObject().put("question", "How many customers are there?")).await(60, TimeUnit.SECONDS).body();
      assertThat(a.getString("answer")).isEqualTo("With every account counted, there are many customers.");
    } finally {
      v2.close().await(30, TimeUnit.SECONDS);
    }
  }
}
