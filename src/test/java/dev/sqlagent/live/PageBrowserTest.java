package dev.sqlagent.live;

import dev.sqlagent.testing.RunningService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.SavedRuns;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The page in headless Chromium against the running service, the real database and the scripted fake
 * model: a question whose first SQL names a column that does not exist and whose second is right.
 */
class PageBrowserTest {

  static final String QUESTION = "What is the total billed amount for each bill status?";
  static final String BAD_SQL = "SELECT status, sum(total_amount) AS total FROM bills GROUP BY status ORDER BY status";
  static final String GOOD_SQL = "SELECT status, sum(total_amt) AS total FROM bills GROUP BY status ORDER BY status";

  static RunningService service;
  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle main;
  static HeadlessChromium browser;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    saveEvalRun();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    main = service.main;
    browser = HeadlessChromium.start(1400, 1000);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) browser.close();
    service.close();
    model.close();
    SavedRuns.clearAll();
  }

  static final String EVAL_RUN = "20261129-170000-000";

  /** One saved evaluation summary in the state store, as `sql-agent eval` writes it, and the only one there. */
  static void saveEvalRun() throws Exception {
    SavedRuns.clearAll();
    JsonObject agent = new JsonObject().put("questions", 64).put("accuracy", 0.7969).put("exact_matches", 44)
        .put("correct_refusals", 17).put("refusals_expected", 19).put("first_attempt_failures", 21).put("rescued_by_repair", 14)
        .put("median_latency_ms", 4210);
    JsonObject baseline = agent.copy().put("accuracy", 0.5938).put("rescued_by_repair", 0);
    SavedRuns.saveSummary(EVAL_RUN, new JsonObject().put("run_id", EVAL_RUN)
        .put("finished_at", "2026-11-29T17:04:11.532Z").put("model", "fake-model")
        .put("modes", new JsonObject().put("agent", agent).put("baseline", baseline)));
  }

  /**
   * The page without an earlier test's conversation: the page keeps its thread across reloads, so each test
   * starts a new one (as "New conversation" does) and sees its own runs alone.
   */
  static void openWithoutThread(WebDriver d) {
    d.get("http://127.0.0.1:" + main.httpPort() + "/");
    ((JavascriptExecutor) d).executeScript("localStorage.clear();");
    d.navigate().refresh();
  }

  static void ask(WebDriver d, String question, boolean baseline) {
    d.findElement(By.cssSelector(baseline ? "label[for=mode-baseline]" : "label[for=mode-agent]")).click();
    HeadlessChromium.ask(d, question);
  }

  @Test
  void theTimelineShowsTheFailedAttemptItsRepairThenTheAnswer() throws Exception {
    model.reset();
    // Streamed slowly enough to be seen: the page shows tokens while the model writes.
    model.enqueue(Reply.sql(BAD_SQL, "status totals").streamedIn(6).chunkDelay(150),
        Reply.sql(GOOD_SQL, "status totals").streamedIn(6).chunkDelay(150));
    WebDriver d = browser.driver;
    openWithoutThread(d);
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    // The schema beside the question box: the shop's tables with their notes and row counts.
    HeadlessChromium.waiting(d, 15).until(x -> x.findElements(By.cssSelector("#schema .table-name")).size() >= 10);
    assertThat(d.findElements(By.cssSelector("#schema .table-name")).stream().map(WebElement::getText).toList())
        .contains("bills", "customers", "payments").doesNotContain("agent_query_log");

    // The latest evaluation, agent beside baseline.
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("eval")).isDisplayed());
    String eval = d.findElement(By.id("eval")).getText();
    assertThat(eval).contains("accuracy", "79.7%", "59.4%", "rescued by repair", "14 of 21", "0 of 21");

    ask(d, QUESTION, false);
    WebElement run = HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.cssSelector("#runs > details.run")));
    // Tokens appear while attempt 1 is generated.
    HeadlessChromium.waiting(d, 15).until(x -> !run.findElement(By.cssSelector(".attempt[data-attempt='1'] .stream")).getText().isEmpty());

    // Attempt 1 fails with its error type; the repair strategy follows.
    WebElement first = HeadlessChromium.waiting(d, 30).until(x -> {
      List<WebElement> a = run.findElements(By.cssSelector(".attempt[data-attempt='1'][data-state='bad']"));
      return a.isEmpty() ? null : a.get(0);
    });
    assertThat(first.findElement(By.cssSelector(".attempt-status")).getText()).contains("failed").contains("unknown_column");
    HeadlessChromium.waiting(d, 15).until(x -> first.findElement(By.cssSelector(".attempt-repair")).isDisplayed());
    assertThat(first.findElement(By.cssSelector(".attempt-repair")).getText()).contains("repair");
    assertThat(first.findElement(By.cssSelector(".attempt-msg")).getAttribute("textContent")).contains("total_amount");

    // Attempt 2 succeeds, then the answer with its SQL and table.
    WebElement second = HeadlessChromium.waiting(d, 30).until(x -> {
      List<WebElement> a = run.findElements(By.cssSelector(".attempt[data-attempt='2'][data-state='ok']"));
      return a.isEmpty() ? null : a.get(0);
    });
    assertThat(second.findElement(By.cssSelector(".attempt-status")).getAttribute("textContent")).isEqualTo("succeeded");
    WebElement answer = HeadlessChromium.waiting(d, 30).until(x -> {
      WebElement a = run.findElement(By.cssSelector(".answer"));
      return a.isDisplayed() ? a : null;
    });
    assertThat(run.findElement(By.cssSelector(".run-state")).getText()).isEqualTo("Answered");
    assertThat(answer.findElement(By.cssSelector(".final-sql")).getText()).contains("sum(total_amt)").doesNotContain("total_amount");
    List<String> header = answer.findElements(By.cssSelector("table.result thead .col-name")).stream().map(WebElement::getText).toList();
    assertThat(header).containsExactly("status", "total");
    List<WebElement> rows = answer.findElements(By.cssSelector("table.result tbody tr"));
    assertThat(rows).hasSize(3);
    assertThat(rows.stream().map(r -> r.findElement(By.cssSelector("td")).getText()).toList())
        .containsExactly("CANCELLED", "PAID", "PARTIAL");
    WebElement amount = rows.get(0).findElements(By.cssSelector("td")).get(1);
    assertThat(amount.getAttribute("class")).contains("num");
    assertThat(amount.getCssValue("text-align")).isEqualTo("right");
    // A category and a number: bars, drawn from the column types.
    assertThat(answer.findElements(By.cssSelector("figure.chart svg rect.bar"))).hasSize(3);
    // The timeline order: schema, attempt 1 (failed), attempt 2 (ok), answer.
    List<String> steps = run.findElements(By.cssSelector(".timeline > li")).stream()
        .map(li -> li.getAttribute("class") + ":" + li.getAttribute("data-state")).toList();
    assertThat(steps).containsExactly("step-card schema-card:ok", "step-card attempt:bad", "step-card attempt:ok",
        "step-card end-card:ok");
    // The failed attempt folded away once the run succeeded.
    assertThat(first.findElement(By.tagName("details")).getAttribute("open")).isNull();
    assertThat(d.findElement(By.cssSelector(".timeline")).getAttribute("aria-live")).isEqualTo("polite");

    browser.screenshot(Path.of("target", "screenshots", "page-repair.png"));
    // The answered turn's timeline is collapsed to the answer; one click shows its steps again.
    assertThat(run.findElement(By.cssSelector(".steps")).getAttribute("open")).isNull();
    run.findElement(By.cssSelector(".steps > summary")).click();
    first.findElement(By.tagName("summary")).click();
    browser.screenshot(Path.of("target", "screenshots", "page-repair-expanded.png"));

    // A second question in a row, without a reload, in baseline mode: one attempt, no repair.
    model.enqueue(Reply.sql("SELECT count(*) AS customers FROM customers"));
    ask(d, "How many customers are there?", true);
    // A follow-up: the thread grows downwards, the question box under the last answer.
    HeadlessChromium.waiting(d, 30).until(x -> x.findElements(By.cssSelector("#runs > details.run")).size() == 2
        && x.findElement(By.cssSelector("#runs > details.run:last-of-type .run-state")).getText().equals("Answered"));
    WebElement latest = d.findElement(By.cssSelector("#runs > details.run:last-of-type"));
    assertThat(latest.findElement(By.cssSelector(".badge-mode")).getText()).isEqualTo("single-shot baseline");
    assertThat(latest.findElements(By.cssSelector(".attempt"))).hasSize(1);
    assertThat(latest.findElement(By.cssSelector(".answer-text")).getText()).startsWith("The answer is");
    // The earlier turn still shows its answer, its timeline collapsed.
    WebElement earlier = d.findElements(By.cssSelector("#runs > details.run")).get(0);
    assertThat(earlier.findElement(By.cssSelector(".answer")).isDisplayed()).isTrue();
    assertThat(latest.findElement(By.cssSelector(".steps")).getAttribute("open")).isNull();

    // A third: more rows than the cap, a NULL and an empty string.
    model.enqueue(Reply.sql("SELECT bill_no, NULL::text AS note, '' AS blank FROM bills ORDER BY bill_no"));
    ask(d, "List every bill number", false);
    HeadlessChromium.waiting(d, 30).until(x -> x.findElements(By.cssSelector("#runs > details.run")).size() == 3
        && x.findElement(By.cssSelector("#runs > details.run:last-of-type .run-state")).getText().equals("Answered"));
    WebElement listing = d.findElement(By.cssSelector("#runs > details.run:last-of-type"));
    assertThat(listing.findElement(By.cssSelector(".truncated")).getText()).contains("Truncated");
    assertThat(listing.findElement(By.cssSelector("table.result caption")).getText()).contains("200 rows").contains("truncated");
    WebElement firstRow = listing.findElement(By.cssSelector("table.result tbody tr"));
    WebElement nullCell = firstRow.findElements(By.cssSelector("td")).get(1);
    WebElement emptyCell = firstRow.findElements(By.cssSelector("td")).get(2);
    assertThat(nullCell.getAttribute("class")).contains("null");
    assertThat(nullCell.getText()).isEqualTo("NULL");
    assertThat(emptyCell.getAttribute("class")).contains("empty");
    assertThat(emptyCell.getText()).isNotEqualTo("NULL");
    assertThat(emptyCell.getAttribute("aria-label")).isEqualTo("empty string");
    assertThat(listing.findElements(By.cssSelector("figure.chart"))).as("three columns: no chart").isEmpty();
    browser.screenshot(Path.of("target", "screenshots", "page-three-questions.png"));
  }

  @Test
  void theResultTableShowsNumbersWithSeparatorsAndKeepsYearsAndIds() throws Exception {
    model.reset();
    model.enqueue(Reply.sql("SELECT 2025 AS year, count(*) * 100 AS customer_id, count(*) * 1000 AS customers,"
        + " count(*) * 8230.5 AS billed, 2.5 / 3 AS share FROM customers"));
    WebDriver d = browser.driver;
    openWithoutThread(d);
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    ask(d, "How many customers, and what did they buy?", false);
    WebElement answer = HeadlessChromium.waiting(d, 30).until(x -> {
      List<WebElement> a = x.findElements(By.cssSelector("#runs > details.run .answer table.result"));
      return a.isEmpty() ? null : a.get(0);
    });
    List<WebElement> cells = answer.findElements(By.cssSelector("tbody tr td"));
    assertThat(cells.stream().map(WebElement::getText).toList())
        .containsExactly("2025", "15000", "150,000", "1,234,575.00", "0.8333");
    for (WebElement c : cells) assertThat(c.getCssValue("text-align")).isEqualTo("right");
    // The exact value stays one hover away, as the JSON carries it.
    assertThat(cells.get(3).getAttribute("title")).isEqualTo("1234575.0");
    assertThat(d.findElement(By.cssSelector("#runs > details.run .answer-text")).getText())
        .isEqualTo("1 row; the first: year = 2025, customer_id = 15000, customers = 150,000, billed = 1,234,575.00,"
            + " share = 0.8333.");
  }

  @Test
  void theFirstContactSaysWhereTheModelRunsAndHowFastAndTheSecondsItReadsThePrompt() throws Exception {
    model.reset();
    model.modelMeta(new JsonObject().put("file", "tiny-q4.gguf").put("architecture", "llama").put("quantization", "Q4_1")
        .put("size", 98_362_432).put("n_ctx", 8192).put("loaded", true)
        .put("measured", new JsonObject().put("prompt_per_second", 100.0).put("predicted_per_second", 20.5)));
    // A model that reads its prompt for 4.5 s before its first word.
    model.enqueue(Reply.sql("SELECT count(*) AS bills FROM bills").delayed(4_500));
    WebDriver d = browser.driver;
    openWithoutThread(d);
    HeadlessChromium.waiting(d, 30).until(x -> x.findElement(By.cssSelector("#first-contact .model-where")).isDisplayed());
    assertThat(d.findElement(By.cssSelector("#first-contact .model-where")).getText())
        .contains("tiny-q4.gguf", "llama", "Q4_1", "98 MB", "reads 100 prompt tokens/s", "writes 20.5 tokens/s", "about 30 s");
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    ask(d, "How many bills are there?", false);
    WebElement run = HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.cssSelector("#runs > details.run")));
    By status = By.cssSelector(".attempt[data-attempt='1'] .attempt-status");
    String reading = HeadlessChromium.waiting(d, 15).until(x -> {
      List<WebElement> s = run.findElements(status);
      return !s.isEmpty() && s.get(0).getText().startsWith("the model is reading the prompt") ? s.get(0).getText() : null;
    });
    assertThat(reading).matches("the model is reading the prompt… [23] s");
    // It counts on, then gives way to the answer.
    HeadlessChromium.waiting(d, 15).until(x -> run.findElement(status).getText().matches(".*reading the prompt… [3-9] s"));
    HeadlessChromium.waiting(d, 30).until(x -> run.findElement(By.cssSelector(".answer")).isDisplayed());
    assertThat(run.findElement(status).getAttribute("textContent")).doesNotContain("reading");
  }

  @Test
  void withoutAReachableModelThePageSaysSo() throws Exception {
    TestDatabase db = TestDatabase.get();
    Map<String, String> env = new HashMap<>();
    env.put("SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1");   // the discard port: nothing listens
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_HOME", Files.createTempDirectory("sqlagent-page-empty-home").toString());
    Vertx other = Vertx.vertx();
    SavedRuns.clearAll();
    try {
      MainVerticle noModel = new MainVerticle(db.config(env), db.target(), TestDatabase.get().state());
      other.deployVerticle(noModel).await(120, TimeUnit.SECONDS);
      WebDriver d = browser.driver;
      d.get("http://127.0.0.1:" + noModel.httpPort() + "/");
      HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
      ask(d, "How many bills are there?", false);
      WebElement run = HeadlessChromium.waiting(d, 60).until(x -> {
        WebElement r = x.findElement(By.cssSelector("#runs > details.run"));
        return r.findElement(By.cssSelector(".answer")).isDisplayed() ? r : null;
      });
      assertThat(run.findElement(By.cssSelector(".run-state")).getText()).isEqualTo("Model unavailable");
      assertThat(run.findElement(By.cssSelector(".answer")).getText()).contains("No language model is reachable");
      assertThat(d.findElement(By.id("banner")).getText()).contains("No language model is reachable");
      // No evaluation saved in the state store: the panel stays hidden (the route answers 404).
      assertThat(d.findElement(By.id("eval")).isDisplayed()).isFalse();
      browser.screenshot(Path.of("target", "screenshots", "page-model-unavailable.png"));
    } finally {
      other.close().await(30, TimeUnit.SECONDS);
      saveEvalRun();
    }
  }

  /**
   * A local model, as serve runs it (a GGUF named and its child's URL put in the settings): the page says it runs on
   * the server, without the child's loopback URL, which means nothing to whoever reads the page.
   */
  @Test
  void aLocalModelIsSaidToRunOnTheServerWithoutItsLoopbackUrl() throws Exception {
    model.reset();
    model.modelMeta(new JsonObject().put("file", "tiny-q4.gguf").put("architecture", "llama").put("quantization", "Q4_1")
        .put("size", 98_362_432).put("n_ctx", 8192).put("loaded", true)
        .put("measured", new JsonObject().put("prompt_per_second", 100.0).put("predicted_per_second", 20.5)));
    Path gguf = Files.write(Files.createTempDirectory("sqlagent-page-local").resolve("tiny-q4.gguf"), new byte[] {'G', 'G', 'U', 'F'});
    Map<String, String> env = new HashMap<>(Map.of("SQLAGENT_LLM_MODEL_PATH", gguf.toString(),
        "SQLAGENT_HOME", Files.createTempDirectory("sqlagent-page-local-home").toString()));
    dev.sqlagent.config.AppConfig config = TestDatabase.get().config(env)
        .withModelServer(model.env().get("SQLAGENT_LLM_BASE_URL"), model.env().get("SQLAGENT_LLM_MODEL"));
    try (RunningService local = RunningService.start(config, TestDatabase.get().target(), TestDatabase.get().state())) {
      WebDriver d = browser.driver;
      d.get("http://127.0.0.1:" + local.port() + "/");
      HeadlessChromium.waiting(d, 30).until(x -> x.findElement(By.cssSelector("#first-contact .model-where")).isDisplayed());
      assertThat(d.findElement(By.cssSelector("#first-contact .model-line")).getText())
          .contains(model.env().get("SQLAGENT_LLM_MODEL"), "reachable").doesNotContain("127.0.0.1");
      assertThat(d.findElement(By.cssSelector("#first-contact .model-where")).getText())
          .startsWith("Where Runs on the sql-agent server").contains("tiny-q4.gguf", "Q4_1", "about 30 s");
      browser.screenshot(Path.of("target", "screenshots", "page-local-model.png"));
    }
  }
}
