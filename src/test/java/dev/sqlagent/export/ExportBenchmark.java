package dev.sqlagent.export;

import dev.sqlagent.testing.Percentiles;
import static dev.sqlagent.testing.BenchmarkMachine.loadAverage;
import static dev.sqlagent.testing.BenchmarkMachine.settle;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An export of 100,000 rows × 10 columns ({@link ExportDatabase}): the time and peak heap of the CSV and the XLSX,
 * each in a JVM of its own ({@link ExportHeapProbe}, 256 MB heap), side by side with {@code psql \copy} of the same
 * query to a CSV file (skipped when psql is absent). Three runs each; the median is reported.
 *
 * <p>{@code mvn -o -B test -Dtest=ExportBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class ExportBenchmark {

  static final String PSQL = System.getProperty("sqlagent.psql", "/usr/lib/postgresql/15/bin/psql");
  static final int RUNS = 3;

  record Run(long ms, long peakMb, long bytes) {}

  @Test
  void aHundredThousandRowsAsCsvAndXlsxBesidePsqlCopy() throws Exception {
    try (ExportDatabase db = new ExportDatabase()) {
      settle();
      String load = loadAverage();
      List<Run> csv = new ArrayList<>();
      List<Run> xlsx = new ArrayList<>();
      List<Long> psql = new ArrayList<>();
      boolean hasPsql = new File(PSQL).canExecute();
      for (int i = 0; i < RUNS; i++) {
        csv.add(probe(db, "csv"));
        xlsx.add(probe(db, "xlsx"));
        if (hasPsql) psql.add(psqlCopy(db));
      }
      Run c = median(csv);
      Run x = median(xlsx);
      StringBuilder report = new StringBuilder("\nExport of " + ExportDatabase.ROWS + " rows x 10 columns (median of " + RUNS
          + " runs; load average " + load + ")\n");
      report.append(String.format("  CSV : %6d ms, peak heap %4d MB, %,d bytes%n", c.ms(), c.peakMb(), c.bytes()));
      report.append(String.format("  XLSX: %6d ms, peak heap %4d MB, %,d bytes%n", x.ms(), x.peakMb(), x.bytes()));
      if (hasPsql) {
        long p = Percentiles.median(psql);
        report.append(String.format("  psql \\copy to CSV: %d ms%n", p));
        report.append(String.format("  ratio CSV / psql: %.1fx, XLSX / psql: %.1fx%n", (double) c.ms() / p, (double) x.ms() / p));
      } else {
        report.append("  psql not found at " + PSQL + ": no comparison\n");
      }
      System.out.println(report);
      assertThat(c.bytes()).isGreaterThan(10_000_000L);
    }
  }

  static Run probe(ExportDatabase db, String format) throws Exception {
    Process p = ExportHeapTest.probe("-Xmx256m", ExportHeapProbe.class, db.ro.withSecret(), format, ExportDatabase.ALL,
        String.valueOf(ExportDatabase.ROWS));
    String out = ExportHeapTest.run(p);
    assertThat(p.exitValue()).as(out).isZero();
    return new Run(field(out, "ms"), field(out, "peak_heap_mb"), field(out, "bytes"));
  }

  static long field(String out, String name) {
    return Long.parseLong(out.replaceAll("(?s).*\\b" + name + "=(\\d+).*", "$1"));
  }

  static long psqlCopy(ExportDatabase db) throws Exception {
    Path file = Files.createTempFile("export-psql", ".csv");
    try {
      long t0 = System.nanoTime();
      Process p = new ProcessBuilder(PSQL, db.ro.withSecret(), "-q", "-c",
          "\\copy (" + ExportDatabase.ALL + ") TO '" + file + "' WITH (FORMAT csv, HEADER)")
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(Files.size(file)).isGreaterThan(1_000_000L);
      return ms;
    } finally {
      Files.deleteIfExists(file);
    }
  }

  static Run median(List<Run> runs) {
    List<Run> sorted = new ArrayList<>(runs);
    sorted.sort((a, b) -> Long.compare(a.ms(), b.ms()));
    return sorted.get(sorted.size() / 2);
  }
}
