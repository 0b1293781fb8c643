package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.HeadlessChromium;
import dev.sqlagent.testing.RunningService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.dhatim.fastexcel.reader.CellType;
import org.dhatim.fastexcel.reader.ReadableWorkbook;
import org.dhatim.fastexcel.reader.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The page in headless Chromium: before any question it says which database it reads and whether the model is
 * reachable, and when it is not, how to point at one, while the schema and the SQL console still work; a large result
 * pages through 100 rows at a time; an answer shows what its SQL does; the export buttons download the whole result
 * (the file on disk is read back).
 */
class ExportPageTest {

  static final String CUSTOMERS = "SELECT cust_id, cust_name, created_dt FROM customers ORDER BY cust_id";

  HeadlessChromium browser;
  Path downloads;

  @BeforeEach
  void open() throws Exception {
    browser = HeadlessChromium.start(1400, 1000);
    downloads = Files.createTempDirectory("sqlagent-downloads");
    browser.driver.executeCdpCommand("Browser.setDownloadBehavior",
        Map.of("behavior", "allow", "downloadPath", downloads.toString()));
  }

  @AfterEach
  void close() throws IOException {
    if (browser != null) browser.close();
    try (Stream<Path> files = Files.walk(downloads)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** The one file downloaded with this extension, once it is complete. */
  Path downloaded(String extension) {
    HeadlessChromium.waiting(browser.driver, 60).until(d -> {
      try (Stream<Path> files = Files.list(downloads)) {
        return files.anyMatch(p -> p.toString().endsWith(extension));
      } catch (IOException e) {
        return false;
      }
    });
    try (Stream<Path> files = Files.list(downloads)) {
      return files.filter(p -> p.toString().endsWith(extension)).findFirst().orElseThrow();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void withoutAModelThePageSaysHowToPointAtOneAndTheConsolePagesAndExports() throws Exception {
    // Nothing listens on port 9: the model is unreachable from the start.
    try (RunningService service = RunningService.start(Map.of("SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1"))) {
      WebDriver d = browser.driver;
      d.get("http://127.0.0.1:" + service.port() + "/");
      HeadlessChromium.waiting(d, 60).until(x -> x.findElement(By.id("first-contact")).isDisplayed());
      WebElement first = d.findElement(By.id("first-contact"));
      assertThat(first.findElement(By.cssSelector(".model-line")).getText()).contains("not reachable");
      assertThat(first.findElement(By.cssSelector(".model-help")).getText())
          .contains("SQLAGENT_LLM_BASE_URL").contains("SQLAGENT_LLM_MODEL").contains("SQLAGENT_LLM_API_KEY")
          .contains("the SQL console work without one");
      assertThat(first.findElement(By.cssSelector(".target-line")).getText()).contains("shop").contains("tables visible");
      // The schema still loads.
      HeadlessChromium.waiting(d, 30).until(x -> x.findElement(By.id("schema")).getText().contains("customers"));

      // The console: 200 rows (the row cap) in pages of 100.
      WebElement sql = d.findElement(By.id("console-sql"));
      sql.sendKeys("SELECT n, 'row ' || n AS label FROM generate_series(1, 250) AS n ORDER BY n");
      d.findElement(By.id("console-run")).click();
      HeadlessChromium.waiting(d, 30).until(x -> !x.findElements(By.cssSelector("#console-result .pager-where")).isEmpty());
      WebElement result = d.findElement(By.id("console-result"));
      assertThat(result.findElement(By.cssSelector(".pager-where")).getText()).isEqualTo("Rows 1–100 of 200");
      assertThat(result.findElements(By.cssSelector("tbody tr"))).hasSize(100);
      result.findElement(By.cssSelector(".pager-next")).click();
      assertThat(result.findElement(By.cssSelector(".pager-where")).getText()).isEqualTo("Rows 101–200 of 200");
      List<WebElement> rows = result.findElements(By.cssSelector("tbody tr"));
      assertThat(rows).hasSize(100);
      assertThat(rows.get(0).findElement(By.cssSelector("td")).getText()).isEqualTo("101");
      assertThat(result.findElement(By.cssSelector(".pager-next")).isEnabled()).isFalse();

      // Its export has every row, past the row cap.
      result.findElement(By.cssSelector(".export-csv")).click();
      Path csv = downloaded(".csv");
      HeadlessChromium.waiting(d, 30).until(x -> {
        try {
          return Files.readAllLines(csv, StandardCharsets.UTF_8).size() == 251;
        } catch (IOException e) {
          return false;
        }
      });
      List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
      assertThat(lines.get(0)).isEqualTo("n,label");
      assertThat(lines.get(250)).isEqualTo("250,row 250");
      assertThat(result.findElement(By.cssSelector(".export-status")).getText()).startsWith("Downloaded sql-agent-query");
    }
  }

  @Test
  void anAnswerShowsWhatItsSqlDoesAndDownloadsAsXlsx() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql(CUSTOMERS));
      try (RunningService service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"))) {
        WebDriver d = browser.driver;
        d.get("http://127.0.0.1:" + service.port() + "/");
        HeadlessChromium.waiting(d, 60).until(x -> x.findElement(By.id("connection")).getText().equals("Live"));
        HeadlessChromium.waiting(d, 60).until(x -> x.findElement(By.id("first-contact")).isDisplayed());
        assertThat(d.findElement(By.cssSelector("#first-contact .model-line")).getText()).endsWith(": reachable");
        assertThat(d.findElements(By.cssSelector("#first-contact .model-help"))).isEmpty();

        HeadlessChromium.ask(d, "Who are our customers?");
        HeadlessChromium.waiting(d, 60).until(x -> !x.findElements(By.cssSelector("#runs .explanation")).isEmpty());
        WebElement answer = d.findElement(By.cssSelector("#runs .answer"));
        assertThat(answer.findElement(By.cssSelector(".explanation")).getText())
            .containsIgnoringCase("What this SQL does").contains("Reads customers.").contains("Sorts by cust_id.");
        answer.findElement(By.cssSelector(".export-xlsx")).click();
        Path xlsx = downloaded(".xlsx");
        HeadlessChromium.waiting(d, 30).until(x -> answer.findElement(By.cssSelector(".export-status")).getText()
            .startsWith("Downloaded"));
        try (ReadableWorkbook wb = new ReadableWorkbook(xlsx.toFile())) {
          List<Row> rows = wb.getFirstSheet().read();
          assertThat(rows.get(0).getCell(1).asString()).isEqualTo("cust_name");
          assertThat(rows.size()).isGreaterThan(100);
          assertThat(rows.get(1).getCell(0).getType()).isEqualTo(CellType.NUMBER);
          assertThat(rows.get(1).getCell(2).getType()).isEqualTo(CellType.NUMBER);
        }
      }
    }
  }
}
