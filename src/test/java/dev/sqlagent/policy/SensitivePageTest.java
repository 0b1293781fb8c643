package dev.sqlagent.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/** The page, asked about customers on a database built for the test: the answer's table shows sensitive columns masked. */
class SensitivePageTest {

  @Test
  void thePageShowsSensitiveColumnsMasked() throws Exception {
    try (PolicyDatabase db = new PolicyDatabase(); FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql("SELECT c.name, c.email, c.phone, c.salary FROM customers c ORDER BY c.id LIMIT 4"));
      Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
      env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
      env.put("SQLAGENT_NOTES", db.notes.toString());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      AppConfig config = AppConfig.load(env);
      try (Databases dbs = Databases.open(config);
           RunningService service = RunningService.start(config, dbs.target(), dbs.state());
           HeadlessChromium browser = HeadlessChromium.start(1400, 1000)) {
        WebDriver d = browser.driver;
        d.get("http://127.0.0.1:" + service.port() + "/");
        ((JavascriptExecutor) d).executeScript("localStorage.clear();");
        d.navigate().refresh();
        HeadlessChromium.waiting(d, 30).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
        HeadlessChromium.ask(d, "Who are our first customers, with their contact details?");
        WebElement answer = HeadlessChromium.waiting(d, 60).until(x -> {
          List<WebElement> a = x.findElements(By.cssSelector("#runs > details.run .answer"));
          return a.isEmpty() || !a.get(0).isDisplayed() ? null : a.get(0);
        });
        List<WebElement> rows = answer.findElements(By.cssSelector("table.result tbody tr"));
        assertThat(rows).hasSize(4);
        List<String> first = rows.get(0).findElements(By.cssSelector("td")).stream().map(WebElement::getText).toList();
        assertThat(first.get(0)).isEqualTo(PolicyDatabase.NAMES.get(0));
        assertThat(first.get(1)).matches("#[0-9a-f]{12}");
        assertThat(first.get(2)).isEqualTo("****0123");
        assertThat(first.get(3)).isEqualTo("[redacted]");
        assertThat(PolicyDatabase.leaked(d.getPageSource())).as("sensitive values on the page").isEmpty();
      }
    }
  }
}
