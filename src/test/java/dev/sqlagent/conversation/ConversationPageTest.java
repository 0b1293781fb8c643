package dev.sqlagent.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The page in headless Chromium: a two-turn conversation ("and for 2024?" under the first answer), a reload that
 * keeps the thread, a 👍 and "Verify" on an answer, and a new conversation. On a copy of the shop (shop_verified_page),
 * so the verified query it makes never answers another test's question.
 */
class ConversationPageTest {

  static Target copy;
  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle main;
  static RunningService service;
  static HeadlessChromium browser;

  @BeforeAll
  static void start() throws Exception {
    copy = DatabaseCopy.of("shop_verified_page");
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("DELETE FROM verified_queries WHERE target = ?")) {
      ps.setString(1, copy.key());
      ps.executeUpdate();
    }
    model = FakeModelServer.start();
    service = RunningService.on(copy, model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain", "SQLAGENT_DB_URL", copy.url().withSecret()));
    vertx = service.vertx;
    main = service.main;
    browser = HeadlessChromium.start(1400, 1000);
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

  @Test
  void aTwoTurnConversationSurvivesAReloadAndAThumbsUpBecomesAVerifiedQuery() throws Exception {
    WebDriver d = browser.driver;
    d.get("http://127.0.0.1:" + main.httpPort() + "/");
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
    // An empty library, counted in good English.
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("verified")).isDisplayed());
    assertThat(d.findElement(By.id("verified-body")).getText()).isEqualTo("0 verified queries in use");

    model.enqueue(Reply.sql(ConversationFlowTest.REVENUE_2025));
    HeadlessChromium.ask(d, "What was the revenue per month in 2025?");
    HeadlessChromium.waiting(d, 30).until(x -> turns(x).size() == 1
        && turns(x).get(0).findElement(By.cssSelector(".run-state")).getText().equals("Answered"));

    // The follow-up box now sits under the answer; the follow-up is understood from the first turn.
    assertThat(((String) browser.driver.executeScript(
        "return document.getElementById('runs').nextElementSibling.id"))).isEqualTo("ask-form");
    assertThat(d.findElement(By.cssSelector(".ask-label")).getText()).contains("follow-up");
    model.respondWith(ConversationFlowTest::followUp);
    HeadlessChromium.ask(d, "and for 2024?");
    HeadlessChromium.waiting(d, 30).until(x -> turns(x).size() == 2
        && turns(x).get(1).findElement(By.cssSelector(".run-state")).getText().equals("Answered"));
    WebElement second = turns(d).get(1);
    assertThat(second.findElement(By.cssSelector(".final-sql")).getText()).contains("2024").contains("bill_archive");
    assertThat(turns(d).get(0).findElement(By.cssSelector(".answer")).isDisplayed()).isTrue();
    assertThat(turns(d).get(0).findElement(By.cssSelector(".steps")).getAttribute("open")).isNull();
    assertThat(d.findElement(By.id("thread-count")).getText()).isEqualTo("Conversation · 2 turns");
    browser.screenshot(Path.of("target", "screenshots", "conversation-two-turns.png"));

    // A reload keeps the thread: both turns, from the state store.
    d.navigate().refresh();
    HeadlessChromium.waiting(d, 15).until(x -> x.findElements(By.cssSelector("#runs > details.stored-turn")).size() == 2);
    List<WebElement> stored = turns(d);
    assertThat(stored.get(0).findElement(By.cssSelector(".run-title")).getText()).isEqualTo("What was the revenue per month in 2025?");
    assertThat(stored.get(1).findElement(By.cssSelector(".final-sql")).getText()).contains("2024");

    // 👍 then Verify on the follow-up's answer: checked through the gate and saved.
    WebElement last = stored.get(1);
    last.findElement(By.cssSelector(".fb-up")).click();
    WebElement verify = HeadlessChromium.waiting(d, 15).until(x -> {
      WebElement v = last.findElement(By.cssSelector(".verify-button"));
      return v.isDisplayed() ? v : null;
    });
    assertThat(last.findElement(By.cssSelector(".fb-up")).getAttribute("aria-pressed")).isEqualTo("true");
    // "and for 2024?" means nothing alone: verifying it as it stands is refused with the reason...
    verify.click();
    HeadlessChromium.waiting(d, 30).until(x -> last.findElement(By.cssSelector(".feedback-status")).getText().contains("follow-up"));
    // ...and accepted once the question is written in full.
    WebElement full = last.findElement(By.cssSelector(".verify-question"));
    full.clear();
    full.sendKeys("What was the revenue per month in 2024?");
    verify.click();
    HeadlessChromium.waiting(d, 30).until(x -> last.findElement(By.cssSelector(".feedback-status")).getText().startsWith("Verified as #"));
    HeadlessChromium.waiting(d, 15).until(x -> x.findElement(By.id("verified")).isDisplayed()
        // #verified-body stays while its contents are replaced (a .verified-counts found may go stale before read)
        && x.findElement(By.id("verified-body")).getText().startsWith("1 verified query in use"));
    browser.screenshot(Path.of("target", "screenshots", "conversation-verified.png"));

    // The same question again is answered from the verified query, without the model, and says so.
    int calls = model.requestCount();
    d.findElement(By.id("new-conversation")).click();
    HeadlessChromium.waiting(d, 5).until(x -> turns(x).isEmpty() && x.findElement(By.id("thread-bar")).getAttribute("hidden") != null);
    HeadlessChromium.ask(d, "What was the revenue per month in 2024?");
    HeadlessChromium.waiting(d, 30).until(x -> turns(x).size() == 1
        && turns(x).get(0).findElement(By.cssSelector(".run-state")).getText().equals("Answered"));
    assertThat(turns(d).get(0).findElement(By.cssSelector(".verified-badge")).getText()).contains("verified query #");
    assertThat(model.requestCount()).isEqualTo(calls);
  }
}
