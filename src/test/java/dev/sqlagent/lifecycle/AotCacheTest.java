package dev.sqlagent.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlagent.testing.AotJdk;
import dev.sqlagent.testing.ServiceProcess;
import dev.sqlagent.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The faster start the deployment guide describes for JDK 25 and later: a training run stopped with SIGTERM, as an
 * orchestrator stops it, writes the ahead-of-time cache as its JVM exits (the drain and the shutdown end in a normal
 * exit, never a halt), and the next start loads the service's own classes from that cache and is ready. Skipped with
 * no JDK of 25 or later beside the suite's ({@code .ci/run} says which it found).
 */
class AotCacheTest {

  @Test
  void aTrainingRunStoppedBySigtermWritesTheCacheAndTheNextStartServesFromIt(@TempDir Path dir) throws Exception {
    Optional<Path> java = AotJdk.java();
    assumeTrue(java.isPresent(), "no JDK of 25 or later beside this one");
    String classPath = AotJdk.jarClassPath(dir);
    Map<String, String> env = TestDatabase.get().env(Map.of());
    Path cache = dir.resolve("sql-agent.aot");

    try (ServiceProcess training = ServiceProcess.start("aot-training", java.get(), classPath,
        List.of("-XX:AOTCacheOutput=" + cache), env)) {
      training.awaitReady(180);
      assertThat(readiness(training.httpPort)).isEqualTo(200);
      training.terminate();
      assertThat(training.process.waitFor(180, TimeUnit.SECONDS)).as("the training run exits").isTrue();
      assertThat(training.output()).contains("AOTCache creation is complete");
    }
    assertThat(Files.size(cache)).as("the cache holds the classes the start loaded").isGreaterThan(10L << 20);

    Path loaded = dir.resolve("classes.log");
    try (ServiceProcess fromCache = ServiceProcess.start("aot-start", java.get(), classPath,
        List.of("-XX:AOTCache=" + cache, "-Xlog:class+load=info:file=" + loaded), env)) {
      fromCache.awaitReady(180);
      assertThat(readiness(fromCache.httpPort)).isEqualTo(200);
      assertThat(fromCache.output()).doesNotContain("][aot]");
      // The service's own classes came from the cache, not from its jar.
      assertThat(Files.readString(loaded))
          .contains("dev.sqlagent.cli.Main source: shared objects file")
          .contains("dev.sqlagent.cli.ServeCommand source: shared objects file");
    }
  }

  /** {@code /api/health}'s status once it is 200, or the last one after a minute. */
  private static int readiness(int port) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/health"))
        .timeout(Duration.ofSeconds(10)).build();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    int status;
    do {
      status = http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
      if (status != 200) Thread.sleep(250);
    } while (status != 200 && System.nanoTime() < deadline);
    return status;
  }
}
