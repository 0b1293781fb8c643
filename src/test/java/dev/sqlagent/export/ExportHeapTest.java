package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A CSV of a 100,000-row, ten-column result streamed in a JVM whose heap is far smaller than the result: held whole,
 * its rows alone would not fit in the heap ({@link #HEAP}), so the export must stream them. The same JVM is then
 * shown to fail when it has to hold the result whole (the gate's grading mode returns every row), so the heap is
 * truly too small for that and the first run proves streaming.
 */
class ExportHeapTest {

  /** A heap the result does not fit in as rows (about 60 MB as JSON cells), and the service's code does. */
  static final String HEAP = "-Xmx40m";

  static ExportDatabase database;

  @BeforeAll
  static void create() throws Exception {
    database = new ExportDatabase();
  }

  @AfterAll
  static void drop() throws Exception {
    if (database != null) database.close();
  }

  static Process probe(String heap, Class<?> main, String... args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(java, heap, "-XX:+UseSerialGC"));
    // Extra options for a probe's JVM (a flight recording while profiling), never set by the suite.
    String extra = System.getProperty("export.probe.jvm", "");
    if (!extra.isBlank()) command.addAll(List.of(extra.trim().split("\\s+")));
    command.addAll(List.of("-cp", classpath, main.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  static String run(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
    return out;
  }

  @Test
  void aHundredThousandRowsStreamThroughAHeapTooSmallToHoldThem() throws Exception {
    Process p = probe(HEAP, ExportHeapProbe.class, database.ro.withSecret(), "csv", ExportDatabase.ALL, "100000");
    String out = run(p);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("rows=100000 ");
    long bytes = Long.parseLong(out.replaceAll("(?s).*bytes=(\\d+).*", "$1"));
    assertThat(bytes).as("the CSV's size").isGreaterThan(10_000_000L);

    Process whole = probe(HEAP, WholeResultProbe.class, database.ro.withSecret(), ExportDatabase.ALL);
    String wholeOut = run(whole);
    assertThat(whole.exitValue()).as("holding the result whole in the same heap: " + wholeOut).isNotZero();
    assertThat(wholeOut).contains("OutOfMemoryError");
  }
}
