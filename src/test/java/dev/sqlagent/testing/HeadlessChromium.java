package dev.sqlagent.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven by Debian's chromedriver, both by explicit path, so Selenium Manager
 * never tries to download a browser or a driver. A fresh profile per instance, deleted on close.
 */
public final class HeadlessChromium implements AutoCloseable {

  public static final String CHROMIUM = System.getProperty("sqlagent.chromium", "/usr/bin/chromium");
  public static final String CHROMEDRIVER = System.getProperty("sqlagent.chromedriver", "/usr/bin/chromedriver");

  public final ChromeDriver driver;
  private final ChromeDriverService service;
  private final Path profile;

  private HeadlessChromium(ChromeDriver driver, ChromeDriverService service, Path profile) {
    this.driver = driver;
    this.service = service;
    this.profile = profile;
  }

  public static boolean installed() {
    return new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute();
  }

  public static HeadlessChromium start(int width, int height) throws IOException {
    if (!installed()) {
      throw new IllegalStateException("the browser test needs Debian's chromium and chromium-driver ("
          + CHROMIUM + ", " + CHROMEDRIVER + "): apt-get install -y chromium chromium-driver (.ci/run does)");
    }
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
    Path profile = Files.createTempDirectory("sqlagent-chromium");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=" + width + "," + height);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(width, height));
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
    return new HeadlessChromium(driver, service, profile);
  }

  /** A PNG of the whole page (the window is grown to the document's height first). */
  public Path screenshot(Path file) throws IOException {
    Object h = driver.executeScript("return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)");
    Dimension size = driver.manage().window().getSize();
    int height = Math.min(6000, Math.max(size.getHeight(), ((Number) h).intValue() + 40));
    driver.manage().window().setSize(new Dimension(size.getWidth(), height));
    Files.createDirectories(file.getParent());
    Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    driver.manage().window().setSize(size);
    return file;
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // a leftover temp profile is harmless
      }
    }
  }

  /** A wait on the page that looks every 50 ms (the page's live updates are quick). */
  public static WebDriverWait waiting(WebDriver d, int seconds) {
    WebDriverWait w = new WebDriverWait(d, Duration.ofSeconds(seconds));
    w.pollingEvery(Duration.ofMillis(50));
    return w;
  }

  /** Types a question into the page's box and sends it. */
  public static void ask(WebDriver d, String question) {
    WebElement box = d.findElement(By.id("question"));
    box.clear();
    box.sendKeys(question, Keys.ENTER);
  }
}
