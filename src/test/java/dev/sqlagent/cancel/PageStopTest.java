package dev.sqlagent.cancel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.RunningService;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The page's Stop button in headless Chromium: a question whose statement would run for minutes shows its
 * running step while it runs, is stopped from the page, the card says so, and the database has no statement of the
 * agent role left running.
 */
class PageStopTest {

  @Test
  void theStopButtonStopsTheQuestionInTheDatabase() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql(CancelTest.ENDLESS));
      Map<String, String> env = CancelTest.endlessEnv(model);
      try (RunningService service = RunningService.start(env); HeadlessChromium browser = HeadlessChromium.start(1200, 900)) {
        WebDriver d = browser.driver;
        WebDriverWait wait = new WebDriverWait(d, Duration.ofSeconds(20));
        wait.pollingEvery(Duration.ofMillis(50));
        d.get("http://127.0.0.1:" + service.port() + "/");
        wait.until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
        d.findElement(By.id("question")).sendKeys("How many pairs of numbers are there?", Keys.ENTER);
        WebElement run = wait.until(x -> x.findElement(By.cssSelector("#runs > details.run")));
        WebElement stop = run.findElement(By.cssSelector(".stop-button"));
        wait.until(x -> stop.isEnabled());
        CancelTest.awaitActive(1, 15_000);
        // The statement is running, and the page says so while it does: the attempt's step is "running…".
        wait.until(x -> run.findElement(By.cssSelector(".attempt .attempt-status")).getText().equals("running…"));
        assertThat(run.findElement(By.cssSelector(".attempt")).getAttribute("data-state")).isEqualTo("running");
        assertThat(stop.isDisplayed()).isTrue();
        assertThat(stop.isEnabled()).isTrue();
        stop.click();
        wait.until(x -> run.findElement(By.cssSelector(".run-state")).getText().equals("Stopped"));
        CancelTest.awaitActive(0, 2_000);
        assertThat(stop.isDisplayed()).isFalse();
        assertThat(run.findElement(By.cssSelector(".answer")).getText()).contains("cancelled");
      }
    }
  }
}
