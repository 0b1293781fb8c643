package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.MetricDefinition;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.MetricsDatabase;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * Two people asking for revenue get the same number: on a bakery's ledger (not the demo) whose notes file defines
 * {@code revenue} (terms turnover, takings), a question that names the metric or one of its terms brings the metric's
 * tables into the prompt and its definition as the one to use; the scripted model follows what the prompt gives it,
 * and the answer names the metric with its definition. A question that names no metric gets no definition, and an
 * answer whose SQL departs from the definition does not claim it.
 */
class GovernedMetricsTest {

  /** What a model that follows the definition writes (aliases, other case and spacing, != for <>). */
  static final String FOLLOWS = "SELECT SUM(l.qty*l.unit_price) AS revenue FROM ledger_lines l JOIN ledger_sales s"
      + " ON s.sale_id = l.sale_id WHERE s.state != 'VOID' AND s.sold_on >= date_trunc('month', current_date)"
      + " - interval '1 month' AND s.sold_on < date_trunc('month', current_date)";
  /** What a model writes without the definition: every sale counted, void ones too. */
  static final String GUESSES = "SELECT sum(l.qty * l.unit_price) AS revenue FROM ledger_lines l JOIN ledger_sales s"
      + " ON s.sale_id = l.sale_id WHERE s.sold_on >= date_trunc('month', current_date) - interval '1 month'"
      + " AND s.sold_on < date_trunc('month', current_date)";

  static MetricsDatabase db;
  static FakeModelServer model;
  static Databases dbs;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    db = new MetricsDatabase();
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String all = FakeModelServer.allText(req);
      String question = FakeModelServer.lastUserMessage(req);
      if (question.contains("bakers")) return Reply.sql("SELECT count(*) FROM bakers b WHERE b.shift = 'early'");
      if (question.contains("gross")) return Reply.sql(GUESSES);
      return all.contains(PromptBuilder.METRICS_HEADER) && all.contains(MetricsDatabase.REVENUE_SQL)
          ? Reply.sql(FOLLOWS) : Reply.sql(GUESSES);
    });
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
    env.put("SQLAGENT_NOTES", db.notes.toString());
    AppConfig config = AppConfig.load(env);
    dbs = Databases.open(config);
    service = RunningService.start(config, dbs.target(), dbs.state());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (dbs != null) dbs.close();
      if (model != null) model.close();
    } finally {
      if (db != null) db.close();
    }
  }

  static JsonObject ask(String question) throws Exception {
    HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/api/ask")
        .putHeader("Content-Type", "application/json").sendJsonObject(new JsonObject().put("question", question))
        .await(120, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  /** The system prompt of the SQL request the model received for {@code question}. */
  static String promptFor(String question) {
    return model.requests().stream().filter(r -> r.lastUserMessage().contains(question)).findFirst()
        .orElseThrow(() -> new AssertionError("the model was not asked: " + question)).systemMessage();
  }

  /** Last month's revenue as the definition computes it, read directly. */
  static String revenueLastMonth() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection(db.database); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT " + MetricsDatabase.REVENUE_SQL + " FROM ledger_lines JOIN ledger_sales"
             + " USING (sale_id) WHERE " + MetricsDatabase.REVENUE_FILTER + " AND sold_on >= date_trunc('month',"
             + " current_date) - interval '1 month' AND sold_on < date_trunc('month', current_date)")) {
      rs.next();
      return rs.getBigDecimal(1).toPlainString();
    }
  }

  static final MetricDefinition REVENUE = new MetricDefinition("revenue", MetricsDatabase.REVENUE_SQL,
      List.of("ledger_lines", "ledger_sales"), List.of(MetricsDatabase.REVENUE_FILTER),
      "Money taken for what was sold, void sales left out.");

  @Test
  void twoWordingsOfRevenueGetTheSameNumberAndNameTheMetric() throws Exception {
    JsonObject first = ask("revenue last month");
    JsonObject second = ask("What was our turnover last month?");
    for (JsonObject a : List.of(first, second)) {
      assertThat(a.getString("outcome")).as(a.encode()).isEqualTo("answered");
      assertThat(a.getJsonArray("metrics")).as(a.encode())
          .isEqualTo(new JsonArray().add(REVENUE.toJson()));
    }
    assertThat(first.getJsonArray("rows")).isEqualTo(second.getJsonArray("rows"));
    assertThat(first.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo(revenueLastMonth());
  }

  @Test
  void thePromptGivesTheDefinitionAsTheOneToUse() throws Exception {
    ask("Takings last month, please");
    String prompt = promptFor("Takings last month, please");
    assertThat(prompt).contains(PromptBuilder.METRICS_HEADER + "\n- \"revenue\": " + MetricsDatabase.REVENUE_SQL
        + "; tables: ledger_lines, ledger_sales; always filter: " + MetricsDatabase.REVENUE_FILTER
        + "; means: Money taken for what was sold, void sales left out.");
    // Its tables are in the schema the model is shown.
    assertThat(prompt).contains("ledger_lines").contains("ledger_sales");
  }

  @Test
  void retrievalBringsTheMetricsTablesWithTheirReason() throws Exception {
    Retrieval r = new RetrievalClient(service.vertx, 60_000)
        .retrieve(new Retrieval.Request("How did TURNOVER move?", false)).await(60, TimeUnit.SECONDS);
    assertThat(r.metrics()).containsExactly(REVENUE);
    for (String table : List.of("ledger_lines", "ledger_sales")) {
      ScoredTable t = r.tables().stream().filter(s -> s.name().equals(table)).findFirst()
          .orElseThrow(() -> new AssertionError(table + " not chosen: " + r.tableNames()));
      assertThat(t.valueLink()).isEqualTo("the metric 'revenue' reads it");
    }
  }

  @Test
  void thePageShowsTheMetricUnderTheSql() throws Exception {
    try (HeadlessChromium browser = HeadlessChromium.start(1400, 1000)) {
      WebDriver d = browser.driver;
      d.get("http://127.0.0.1:" + service.port() + "/");
      ((JavascriptExecutor) d).executeScript("localStorage.clear();");
      d.navigate().refresh();
      HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
      HeadlessChromium.ask(d, "Revenue last month?");
      WebElement answer = HeadlessChromium.waiting(d, 60).until(x -> {
        List<WebElement> a = x.findElements(By.cssSelector("#runs > details.run .answer"));
        return !a.isEmpty() && a.get(0).isDisplayed() ? a.get(0) : null;
      });
      WebElement metrics = HeadlessChromium.waiting(d, 15).until(x -> answer.findElement(By.cssSelector(".metrics-used")));
      assertThat(metrics.findElement(By.cssSelector(".label")).getAttribute("textContent")).isEqualTo("Metric used");
      assertThat(metrics.findElement(By.cssSelector(".metric-name")).getText()).isEqualTo("revenue");
      assertThat(metrics.findElement(By.cssSelector(".metric-sql")).getText()).isEqualTo(MetricsDatabase.REVENUE_SQL);
      assertThat(metrics.findElement(By.cssSelector(".metric-filters")).getText())
          .isEqualTo("where " + MetricsDatabase.REVENUE_FILTER);
      assertThat(metrics.findElement(By.cssSelector(".metric-description")).getText())
          .isEqualTo("Money taken for what was sold, void sales left out.");
      // Under the SQL it describes.
      assertThat((Boolean) ((JavascriptExecutor) d).executeScript(
          "const sql = arguments[0].querySelector('.final-sql'), m = arguments[0].querySelector('.metrics-used');"
              + " return !!(sql.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING);", answer)).isTrue();
    }
  }

  @Test
  void aQuestionThatNamesNoMetricGetsNoDefinition() throws Exception {
    JsonObject a = ask("How many bakers work the early shift?");
    assertThat(a.getString("outcome")).as(a.encode()).isEqualTo("answered");
    assertThat(a.containsKey("metrics")).isFalse();
    assertThat(promptFor("How many bakers work the early shift?")).doesNotContain(PromptBuilder.METRICS_HEADER);
  }

  @Test
  void anAnswerThatLeavesOutAFilterDoesNotClaimTheMetric() throws Exception {
    JsonObject a = ask("gross revenue last month");
    assertThat(a.getString("outcome")).as(a.encode()).isEqualTo("answered");
    assertThat(promptFor("gross revenue last month")).contains(PromptBuilder.METRICS_HEADER);
    assertThat(a.containsKey("metrics")).as(a.encode()).isFalse();
  }
}
