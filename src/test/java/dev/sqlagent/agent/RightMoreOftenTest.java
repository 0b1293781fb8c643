package dev.sqlagent.agent;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.RunRequest;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.StoredValuesReady;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
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
 * Issue 12 end to end on the demo: empty aggregates probed like empty results, stored values in the first
 * prompt, and several candidates voted by their results. The real gate on the real database, a scripted model.
 */
class RightMoreOftenTest {

  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle main;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    main = service.main;
    StoredValuesReady.await(vertx);
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

  /** The answer as it goes out on the wire, which the assertions below read. */
  static JsonObject ask(String question, int candidates) throws Exception {
    return new AgentClient(vertx, 60_000).ask(AskRequest.of(question, null)
            .withOptions(new RunOptions(true, false, false, candidates, null)))
        .await(70, TimeUnit.SECONDS).toJson();
  }

  static JsonArray events(String runId) throws Exception {
    return new JsonArray(new AgentClient(vertx, 10_000).events(RunRequest.events(runId, 0, null))
        .await(10, TimeUnit.SECONDS).events().stream().map(GraphEvent::toJson).toList());
  }

  static List<JsonObject> events(JsonObject answer, String node, String status) throws Exception {
    return events(answer.getString("run_id")).stream().map(JsonObject.class::cast)
        .filter(e -> e.getString("node").equals(node) && e.getString("status").equals(status)).toList();
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  static Object firstCell(JsonObject answer) {
    return answer.getJsonArray("rows").getJsonArray(0).getValue(0);
  }

  static BigDecimal number(Object cell) {
    return new BigDecimal(String.valueOf(cell));
  }

  // ---- 1. empty aggregates ----

  @Test
  void aZeroCountOverAWrongCaseFilterIsRepairedToTheStoredForm() throws Exception {
    model.enqueue(Reply.sql("SELECT count(*) FROM bills WHERE status = 'paid'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"));
    JsonObject a = ask("How many bills were paid?", 1);
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(a.getJsonArray("history").getJsonObject(0).getString("error_type")).isEqualTo("empty_filter");
    assertThat(a.getJsonArray("history").getJsonObject(0).getString("message")).contains("aggregates came to zero");
    assertThat(number(firstCell(a))).isEqualByComparingTo(scalar("SELECT count(*) FROM bills WHERE status = 'PAID'"));
    assertThat(events(a, "inspect_result", "finished")).anySatisfy(e ->
        assertThat(e.getJsonObject("data").getString("probe")).isEqualTo("empty_aggregate"));
  }

  @Test
  void nullSumsAndAveragesOverAWrongCaseFilterAreRepairedToo() throws Exception {
    model.enqueue(Reply.sql("SELECT sum(total_amt) AS s FROM bills WHERE status = ' Paid'"),
        Reply.sql("SELECT sum(total_amt) AS s FROM bills WHERE status = 'PAID'"));
    JsonObject sum = ask("What is the total of paid bills?", 1);
    assertThat(sum.getInteger("attempts")).isEqualTo(2);
    assertThat(sum.getJsonArray("history").getJsonObject(0).getString("error_type")).isEqualTo("empty_filter");

    model.enqueue(Reply.sql("SELECT round(avg(total_amt), 2) FROM bills WHERE status = 'cancelled'"),
        Reply.sql("SELECT round(avg(total_amt), 2) FROM bills WHERE status = 'CANCELLED'"));
    JsonObject avg = ask("What is the average cancelled bill?", 1);
    assertThat(avg.getInteger("attempts")).isEqualTo(2);
    assertThat(number(firstCell(avg))).isEqualByComparingTo(
        scalar("SELECT round(avg(total_amt), 2) FROM bills WHERE status = 'CANCELLED'"));
  }

  @Test
  void groupedCountsThatAreAllZeroAreProbed() throws Exception {
    model.enqueue(Reply.sql("SELECT e.emp_name, count(b.bill_id) AS n FROM employees e"
            + " LEFT JOIN bills b ON b.emp_id = e.emp_id AND b.status = 'partial' GROUP BY e.emp_name"),
        Reply.sql("SELECT e.emp_name, count(b.bill_id) AS n FROM employees e"
            + " LEFT JOIN bills b ON b.emp_id = e.emp_id AND b.status = 'PARTIAL' GROUP BY e.emp_name"));
    JsonObject a = ask("How many partly paid bills did each employee take?", 1);
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    assertThat(a.getJsonArray("history").getJsonObject(0).getString("error_type")).isEqualTo("empty_filter");
  }

  @Test
  void genuineZerosAreAnsweredInOneAttempt() throws Exception {
    model.enqueue(Reply.sql("SELECT count(*) FROM bills WHERE bill_no = 'B99-999999'"));
    JsonObject noBill = ask("How many bills have the number B99-999999?", 1);
    assertThat(noBill.getInteger("attempts")).isEqualTo(1);
    assertThat(noBill.getBoolean("gave_up")).isFalse();
    assertThat(number(firstCell(noBill))).isZero();
    assertThat(events(noBill, "inspect_result", "finished")).anySatisfy(e ->
        assertThat(e.getJsonObject("data").getString("verdict")).isEqualTo("empty_confirmed"));

    model.enqueue(Reply.sql("SELECT sum(total_amt) FROM bills WHERE bill_dt >= '2019-01-01' AND bill_dt < '2019-02-01'"));
    JsonObject noSales = ask("What were the sales in January 2019?", 1);
    assertThat(noSales.getInteger("attempts")).isEqualTo(1);
    assertThat(firstCell(noSales)).isNull();
    assertThat(model.requestCount()).isEqualTo(2);
  }

  // ---- 2. stored values ----

  @Test
  void theStoredFormIsInTheFirstPromptAndTheSelectSchemaEvent() throws Exception {
    model.enqueue(Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"));
    JsonObject a = ask("How many bills were paid?", 1);
    assertThat(a.getInteger("attempts")).isEqualTo(1);
    String prompt = model.requests().get(0).systemMessage();
    assertThat(prompt).containsPattern("-- 'paid' → .*bills\\.status = 'PAID'");
    assertThat(prompt).containsPattern("status character varying\\(12\\),? *-- stored values: 'CANCELLED', 'PAID', 'PARTIAL'");
    JsonObject selected = events(a, "select_schema", "finished").get(0).getJsonObject("data");
    assertThat(selected.getJsonArray("value_matches")).anySatisfy(m ->
        assertThat(((JsonObject) m).getJsonArray("stored")).contains(new JsonObject().put("table", "bills")
            .put("column", "status").put("value", "PAID")));
  }

  // ---- 3. candidates ----

  @Test
  void aMajorityOfRightCandidatesBeatsAWrongFirstOne() throws Exception {
    model.honourN(true).enqueue(
        Reply.sql("SELECT count(*) FROM bills").usage(300, 30),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT COUNT(bill_id) AS paid FROM bills WHERE status = 'PAID'"));
    JsonObject a = ask("How many bills were paid?", 3);
    assertThat(model.requestCount()).as("the API's n answered all three in one call").isEqualTo(1);
    assertThat(model.requests().get(0).body().getInteger("n")).isEqualTo(3);
    assertThat(model.requests().get(0).body().getDouble("temperature")).isEqualTo(0.7);
    assertThat(number(firstCell(a))).isEqualByComparingTo(scalar("SELECT count(*) FROM bills WHERE status = 'PAID'"));
    assertThat(a.getString("sql")).contains("status = 'PAID'");
    JsonArray c = a.getJsonArray("candidates");
    assertThat(c).hasSize(3);
    assertThat(c.getJsonObject(0).getInteger("votes")).isEqualTo(1);
    assertThat(c.getJsonObject(1).getInteger("votes")).isEqualTo(2);
    assertThat(c.getJsonObject(1).getString("fingerprint")).isEqualTo(c.getJsonObject(2).getString("fingerprint"));
    assertThat(c.getJsonObject(1).getBoolean("chosen")).isTrue();
    assertThat(a.getJsonObject("tokens").getLong("prompt")).isEqualTo(300);
    JsonObject vote = events(a, "vote", "finished").get(0).getJsonObject("data");
    assertThat(vote.getInteger("winner")).isEqualTo(1);
    assertThat(vote.getBoolean("changed")).isTrue();
    assertThat(events(a, "candidate", "finished")).hasSize(3);
  }

  @Test
  void aRightMinorityLosesHonestlyAndEveryCallIsCounted() throws Exception {
    model.enqueue(
        Reply.sql("SELECT count(*) FROM bills").usage(100, 10),
        Reply.sql("SELECT count(bill_id) FROM bills").usage(100, 10),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'").usage(100, 10));
    JsonObject a = ask("How many bills were paid?", 3);
    assertThat(model.requestCount()).as("a server that ignores n: topped up with single calls").isEqualTo(3);
    assertThat(number(firstCell(a))).isEqualByComparingTo(scalar("SELECT count(*) FROM bills"));
    assertThat(a.getJsonArray("candidates").getJsonObject(0).getInteger("votes")).isEqualTo(2);
    assertThat(a.getJsonArray("candidates").getJsonObject(0).getBoolean("chosen")).isTrue();
    assertThat(a.getJsonObject("tokens").getLong("prompt")).isEqualTo(300);
    assertThat(a.getJsonObject("tokens").getLong("completion")).isEqualTo(30);
  }

  @Test
  void whenEveryCandidateFailsTheRepairSeesEveryError() throws Exception {
    model.honourN(true).enqueue(
        Reply.sql("SELECT count(*) FROM bilz WHERE status = 'PAID'"),
        Reply.sql("SELECT count(paid_flag) FROM bills"),
        Reply.sql("SELECT count(*) FROM bills WHERE total_amt > 'lots'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"),
        Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"));
    JsonObject a = ask("How many bills were paid?", 3);
    assertThat(a.getBoolean("gave_up")).isFalse();
    assertThat(a.getInteger("attempts")).isEqualTo(2);
    List<String> errors = a.getJsonArray("history").stream().map(h -> ((JsonObject) h).getString("error_type")).toList();
    assertThat(errors).hasSize(3).contains("unknown_table", "unknown_column");
    String repairPrompt = model.requests().get(1).messages().encode();
    assertThat(repairPrompt).contains("bilz").contains("paid_flag").contains("'lots'").contains("Repair:");
    assertThat(number(firstCell(a))).isEqualByComparingTo(scalar("SELECT count(*) FROM bills WHERE status = 'PAID'"));
  }

  @Test
  void oneCandidateIsTheDefaultAndAddsNothingToTheAnswer() throws Exception {
    model.enqueue(Reply.sql("SELECT count(*) FROM bills WHERE status = 'PAID'"));
    JsonObject a = new AgentClient(vertx, 60_000).ask(AskRequest.of("How many bills were paid?", null))
        .await(70, TimeUnit.SECONDS).toJson();
    assertThat(a.containsKey("candidates")).isFalse();
    assertThat(model.requests().get(0).body().getInteger("temperature")).isZero();
    assertThat(model.requests().get(0).body().containsKey("n")).isFalse();
  }

  @Test
  void aBadCandidateCountIsRefusedWithAClearMessage() {
    // Raw JSON on purpose: the agent's own check of a count no typed request can carry.
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> vertx.eventBus().request(Addresses.ASK,
        new JsonObject().put("question", "How many bills?").put("candidates", 99)).await(10, TimeUnit.SECONDS));
    assertThat(t).hasMessageContaining("candidates must be a whole number from 1 to 16");
  }
}
