package dev.sqlagent.desk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The page in headless Chromium: a question whose three candidates disagree shows its readings as choices; choosing
 * one answers from it without a model call, as the next turn; its SQL edited with a mistake shows PostgreSQL's error
 * and is not repaired; edited again it answers, marked edited, with the rating bar of any answer.
 */
class DeskPageTest {

  static FakeModelServer model;
  static RunningService service;
  static MainVerticle main;
  static HeadlessChromium browser;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain", "SQLAGENT_CANDIDATES", "3"));
    main = service.main;
    browser = HeadlessChromium.start(1400, 1100);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) browser.close();
    service.close();
    model.close();
  }

  static List<WebElement> turns(WebDriver d) {
    return d.findElements(By.cssSelector("#runs > details.run"));
  }

  static String state(WebDriver d, int turn) {
    List<WebElement> t = turns(d);
    return t.size() > turn ? t.get(turn).findElement(By.cssSelector(".run-state")).getText() : "";
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void aClarificationIsAChoiceAndAnAnswersSqlCanBeEditedAndRunAgain() throws Exception {
    WebDriver d = browser.driver;
    d.get("http://127.0.0.1:" + main.httpPort() + "/");
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));

    model.honourN(true).enqueue(Reply.sql(ClarificationScenarioTest.ALL), Reply.sql(ClarificationScenarioTest.PAID),
        Reply.sql(ClarificationScenarioTest.OPEN));
    HeadlessChromium.ask(d, "How many bills are there on the books?");
    HeadlessChromium.waiting(d, 60).until(x -> state(x, 0).equals("Needs a choice"));
    WebElement first = turns(d).get(0);
    List<WebElement> readings = first.findElements(By.cssSelector(".reading"));
    assertThat(readings).hasSize(3);
    assertThat(readings.get(1).findElement(By.cssSelector(".reading-description")).getText())
        .isEqualTo("Only where status = 'PAID'");
    assertThat(readings.get(1).findElement(By.cssSelector(".reading-sample")).getText())
        .contains(scalar(ClarificationScenarioTest.PAID));
    assertThat(first.findElement(By.cssSelector(".timeline")).getAttribute("textContent")).contains("3 readings offered");
    browser.screenshot(Path.of("target", "screenshots", "desk-readings.png"));

    // Saved as a note: the notes-file entry to add, shown.
    readings.get(1).findElement(By.cssSelector(".reading-note")).click();
    assertThat(readings.get(1).findElement(By.cssSelector(".reading-note-yaml")).getText())
        .contains("term: \"How many bills are there on the books?\"").contains("means: \"Only where status = 'PAID'\"");

    // Chosen: answered from the reading, no model call, the next turn.
    int calls = model.requestCount();
    readings.get(1).findElement(By.cssSelector(".reading-choose")).click();
    HeadlessChromium.waiting(d, 60).until(x -> state(x, 1).equals("Answered"));
    assertThat(model.requestCount()).isEqualTo(calls);
    WebElement chosen = turns(d).get(1);
    assertThat(chosen.findElement(By.cssSelector(".badge-desk")).getText()).isEqualTo("reading 2");
    assertThat(chosen.findElement(By.cssSelector(".final-sql")).getText()).contains("'PAID'");
    assertThat(chosen.findElement(By.cssSelector("table.result")).getText().replace(",", "")).contains(scalar(ClarificationScenarioTest.PAID));

    // Its SQL edited with a mistake: PostgreSQL's error, not repaired by the model.
    chosen.findElement(By.cssSelector(".rerun-open")).click();
    WebElement box = chosen.findElement(By.cssSelector(".rerun-sql"));
    box.clear();
    box.sendKeys("SELECT count(*) AS bills FROM bills WHERE statuss = 'PAID'");
    chosen.findElement(By.cssSelector(".rerun-run")).click();
    HeadlessChromium.waiting(d, 60).until(x -> state(x, 2).equals("Gave up"));
    WebElement failed = turns(d).get(2);
    assertThat(failed.findElement(By.cssSelector(".badge-desk")).getText()).isEqualTo("edited");
    assertThat(failed.findElement(By.cssSelector(".answer-text")).getText()).contains("unknown_column").contains("statuss")
        .contains("not repaired by the model");
    assertThat(model.requestCount()).isEqualTo(calls);

    // Corrected from the failed turn: answered, marked edited, rated like any answer.
    failed.findElement(By.cssSelector(".rerun-open")).click();
    WebElement again = failed.findElement(By.cssSelector(".rerun-sql"));
    again.clear();
    again.sendKeys("SELECT count(*) AS bills FROM bills WHERE status = 'PAID' AND total_amt > 100");
    failed.findElement(By.cssSelector(".rerun-run")).click();
    HeadlessChromium.waiting(d, 60).until(x -> state(x, 3).equals("Answered"));
    WebElement fixed = turns(d).get(3);
    assertThat(fixed.findElement(By.cssSelector(".badge-desk")).getText()).isEqualTo("edited");
    assertThat(fixed.findElement(By.cssSelector("table.result")).getText().replace(",", ""))
        .contains(scalar("SELECT count(*) FROM bills WHERE status = 'PAID' AND total_amt > 100"));
    assertThat(fixed.findElement(By.cssSelector(".timeline")).getAttribute("textContent")).doesNotContain("Generate SQL");
    assertThat(fixed.findElements(By.cssSelector(".fb-up"))).hasSize(1);
    assertThat(model.requestCount()).isEqualTo(calls);
    browser.screenshot(Path.of("target", "screenshots", "desk-edited.png"));

    // A reload keeps the thread: the question asked back with its readings, the turns badged as chosen.
    d.navigate().refresh();
    HeadlessChromium.waiting(d, 30).until(x -> x.findElements(By.cssSelector("#runs > details.stored-turn")).size() == 4);
    List<WebElement> stored = turns(d);
    assertThat(stored.get(0).findElement(By.cssSelector(".run-state")).getText()).isEqualTo("Needs a choice");
    assertThat(stored.get(0).findElements(By.cssSelector(".reading"))).hasSize(3);
    assertThat(stored.get(1).findElement(By.cssSelector(".badge-desk")).getText()).isEqualTo("reading 2");
    assertThat(stored.get(3).findElement(By.cssSelector(".badge-desk")).getText()).isEqualTo("edited");
  }
}
