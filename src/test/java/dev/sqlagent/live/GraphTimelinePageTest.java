package dev.sqlagent.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.codec.BodyCodec;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
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
 * The page in headless Chromium draws a run's steps from the graph the service serves ({@code GET /api/graph}):
 * with a verified query in the library, a question's first step is {@code lookup_verified}, under the label the
 * server gives it, whether the verified query answers (no model call) or the model does; an answer's SQL edited
 * and run again still starts its run from the page; the watch page names each step by its served label and marks a
 * run ended. On a copy of the shop (shop_graph_page), so its verified query answers no other test's question.
 */
class GraphTimelinePageTest {

  static final String QUESTION = "How many named customers may buy on credit?";
  static final String SQL = "SELECT count(*) AS credit_customers FROM customers WHERE is_credit_customer";
  static final String OTHER = "How many named customers may buy on credit with a limit above 5000?";
  static final String OTHER_SQL = "SELECT count(*) AS customers FROM customers WHERE is_credit_customer AND credit_limit > 5000";

  static Target copy;
  static FakeModelServer model;
  static RunningService service;
  static MainVerticle main;
  static HeadlessChromium browser;
  static long verifiedId;

  @BeforeAll
  static void start() throws Exception {
    copy = DatabaseCopy.of("shop_graph_page");
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("DELETE FROM verified_queries WHERE target = ?")) {
      ps.setString(1, copy.key());
      ps.executeUpdate();
    }
    model = FakeModelServer.start();
    service = RunningService.on(copy, model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain", "SQLAGENT_DB_URL", copy.url().withSecret()));
    main = service.main;
    HttpResponse<JsonObject> added = service.client.post(main.httpPort(), "127.0.0.1", "/api/verified")
        .as(BodyCodec.jsonObject()).sendJsonObject(new JsonObject().put("question", QUESTION).put("sql", SQL))
        .await(120, TimeUnit.SECONDS);
    assertThat(added.statusCode()).as(added.bodyAsString()).isEqualTo(200);
    verifiedId = added.body().getLong("verified_id");
    browser = HeadlessChromium.start(1400, 1000);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) browser.close();
    if (service != null) service.close();
    if (model != null) model.close();
  }

  static JsonObject servedGraph() throws Exception {
    return service.client.get(main.httpPort(), "127.0.0.1", "/api/graph").as(BodyCodec.jsonObject())
        .send().await(30, TimeUnit.SECONDS).body();
  }

  /** The label the service gives a node in GET /api/graph. */
  static String servedLabel(String node) throws Exception {
    JsonObject graph = servedGraph();
    return graph.getJsonArray("nodes").stream().map(n -> (JsonObject) n).filter(n -> node.equals(n.getString("name")))
        .findFirst().orElseThrow(() -> new AssertionError(node + " is not in the served graph: " + graph.encode()))
        .getString("label");
  }

  /** The served edges leaving a node, as "label of where it goes (when)", in the graph's order. */
  static List<String> servedEdges(String from) throws Exception {
    List<String> out = new java.util.ArrayList<>();
    for (Object e : servedGraph().getJsonArray("edges")) {
      JsonObject edge = (JsonObject) e;
      if (from.equals(edge.getString("from"))) out.add(servedLabel(edge.getString("to")) + " (" + edge.getString("when") + ")");
    }
    return out;
  }

  static List<WebElement> turns(WebDriver d) {
    return d.findElements(By.cssSelector("#runs > details.run"));
  }

  static WebElement answered(WebDriver d, int turn) {
    return HeadlessChromium.waiting(d, 60).until(x -> {
      List<WebElement> t = turns(x);
      return t.size() > turn && t.get(turn).findElement(By.cssSelector(".run-state")).getText().equals("Answered")
          ? t.get(turn) : null;
    });
  }

  /** The top-level steps of a turn's timeline, each as "node or class:state". */
  static List<String> steps(WebElement turn) {
    return turn.findElements(By.cssSelector(".timeline > li")).stream().map(li -> {
      String node = li.getAttribute("data-node");
      String cls = li.getAttribute("class").replace("step-card ", "");
      return (node == null || node.isEmpty() ? cls : node) + ":" + li.getAttribute("data-state");
    }).toList();
  }

  /** The lines of a turn's attempts that name their node, each as "node title". */
  static List<String> lines(WebElement turn) {
    return turn.findElements(By.cssSelector(".attempt .line[data-node]")).stream()
        .map(li -> li.getAttribute("data-node") + " " + li.findElement(By.cssSelector(".line-title")).getAttribute("textContent"))
        .toList();
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = copy.roConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void aQuestionsFirstStepIsTheVerifiedLookupUnderTheServersLabel() throws Exception {
    String lookupLabel = servedLabel("lookup_verified");
    WebDriver d = browser.driver;
    d.get("http://127.0.0.1:" + main.httpPort() + "/");
    ((JavascriptExecutor) d).executeScript("localStorage.clear();");
    d.navigate().refresh();
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));

    // The verified query answers its own question: no model call, and the lookup drawn first.
    int calls = model.requestCount();
    HeadlessChromium.ask(d, QUESTION);
    WebElement first = answered(d, 0);
    assertThat(model.requestCount()).isEqualTo(calls);
    assertThat(first.findElement(By.cssSelector(".verified-badge")).getText()).contains("verified query #" + verifiedId);
    assertThat(steps(first)).containsExactly("lookup_verified:ok", "attempt:ok", "answer:ok");
    WebElement lookup = first.findElement(By.cssSelector(".timeline > li:first-child"));
    assertThat(lookup.findElement(By.cssSelector(".step-head strong")).getAttribute("textContent")).isEqualTo(lookupLabel);
    assertThat(lookup.getAttribute("data-kind")).isEqualTo("retriever");
    // Where a run goes from there, from the served edges: the verified query's SQL checked, or the tables chosen.
    List<String> leaving = servedEdges("lookup_verified");
    assertThat(leaving).hasSize(2);
    assertThat(lookup.findElement(By.cssSelector(".step-head")).getAttribute("title")).isEqualTo("Next: " + String.join("; ", leaving));
    assertThat(lookup.findElement(By.cssSelector(".step-status")).getAttribute("textContent"))
        .contains("verified query #" + verifiedId);
    assertThat(lookup.findElement(By.cssSelector(".verified-match.direct")).getAttribute("textContent")).contains(QUESTION);
    // The verified query's SQL checked and run, each step under its served label.
    assertThat(lines(first)).containsExactly("validate_sql " + servedLabel("validate_sql"), "execute_sql " + servedLabel("execute_sql"));
    assertThat(first.findElement(By.cssSelector("table.result")).getText().replace(",", ""))
        .contains(scalar("SELECT count(*) FROM customers WHERE is_credit_customer"));

    // Another question: compared with the library first, then answered by the model from the schema.
    model.enqueue(Reply.sql(OTHER_SQL));
    HeadlessChromium.ask(d, OTHER);
    WebElement second = answered(d, 1);
    assertThat(model.requestCount()).isGreaterThan(calls);
    assertThat(steps(second)).containsExactly("lookup_verified:ok", "select_schema:ok", "attempt:ok", "answer:ok");
    WebElement compared = second.findElement(By.cssSelector(".timeline > li:first-child"));
    assertThat(compared.findElement(By.cssSelector(".step-head strong")).getAttribute("textContent")).isEqualTo(lookupLabel);
    assertThat(compared.findElement(By.cssSelector(".step-status")).getAttribute("textContent"))
        .isEqualTo("1 verified query compared, none close enough to answer");
    assertThat(second.findElement(By.cssSelector(".timeline > li[data-node='select_schema'] .step-head strong"))
        .getAttribute("textContent")).isEqualTo(servedLabel("select_schema"));
    assertThat(second.findElement(By.cssSelector(".final-sql")).getText()).contains("credit_limit > 5000");
    first.findElement(By.cssSelector(".steps > summary")).click();
    second.findElement(By.cssSelector(".steps > summary")).click();
    browser.screenshot(Path.of("target", "screenshots", "page-graph-lookup.png"));

    // The first answer's SQL, edited and run again: a new turn, started from the answer, marked edited.
    WebElement box = first.findElement(By.cssSelector(".rerun-sql"));
    assertThat(box.isDisplayed()).as("the edit box opens with Edit SQL").isFalse();
    first.findElement(By.cssSelector(".rerun-open")).click();
    box.clear();
    box.sendKeys("SELECT count(*) AS credit_customers FROM customers WHERE NOT is_credit_customer");
    first.findElement(By.cssSelector(".rerun-run")).click();
    WebElement edited = answered(d, 2);
    assertThat(edited.findElement(By.cssSelector(".badge-desk")).getText()).isEqualTo("edited");
    assertThat(edited.findElement(By.cssSelector("table.result")).getText().replace(",", ""))
        .contains(scalar("SELECT count(*) FROM customers WHERE NOT is_credit_customer"));
    assertThat(steps(edited)).containsExactly("attempt:ok", "answer:ok");
  }

  @Test
  void theWatchPageNamesEachStepByItsServedLabelAndMarksTheRunEnded() throws Exception {
    WebDriver d = browser.driver;
    d.get("http://127.0.0.1:" + main.httpPort() + "/watch.html");
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    HttpResponse<JsonObject> asked = service.client.post(main.httpPort(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
        .sendJsonObject(new JsonObject().put("question", QUESTION)).await(60, TimeUnit.SECONDS);
    assertThat(asked.statusCode()).as(asked.bodyAsString()).isEqualTo(200);
    String runId = asked.body().getString("run_id");
    WebElement card = HeadlessChromium.waiting(d, 30).until(x -> {
      List<WebElement> c = x.findElements(By.cssSelector(".watch-run[data-run-id='" + runId + "'].ended"));
      return c.isEmpty() ? null : c.get(0);
    });
    assertThat(card.findElement(By.tagName("h2")).getText()).startsWith(QUESTION).endsWith(servedLabel("answer"));
    List<WebElement> lines = card.findElements(By.cssSelector(".watch-events li"));
    assertThat(lines.get(0).getAttribute("data-node")).isEqualTo("lookup_verified");
    assertThat(lines.get(0).getText()).startsWith("#1 attempt ").endsWith(" " + servedLabel("lookup_verified") + " started");
    String ran = servedLabel("execute_sql") + " finished 1 rows";
    assertThat(lines.stream().map(WebElement::getText).toList()).anyMatch(t -> t.contains(ran));
  }
}
