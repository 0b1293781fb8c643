package dev.sqlagent.export;

import static dev.sqlagent.testing.BenchmarkMachine.loadAverage;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FreePorts;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exports as a user meets them: {@code POST /api/query/export} of 100,000 rows × 10 columns ({@link ExportDatabase})
 * against the service running as its jar, timed from the request to the file's last byte. Per format, a fresh service
 * JVM takes two exports in a row: the first is <em>cold</em> (JIT, pools and caches fresh), the second <em>warm</em>.
 * Beside each, {@code psql \copy (…) TO STDOUT WITH (FORMAT csv, HEADER)} of the same query as the same role. With
 * {@code -Dexport.baseline.jar=…} (a jar built from another commit) the same runs for that jar interleave with this
 * one's in every round, so both meet the same machine load.
 *
 * <pre>
 * mvn -o -q package -DskipTests
 * mvn -o -B test -Dtest=ExportServiceBenchmark -Dgroups=benchmark -Dtest.excludedGroups= \
 *   [-Dexport.baseline.jar=/tmp/old-export/target/sql-agent.jar] [-Dexport.rounds=3] [-Dexport.afterIndexing=true]
 *   [-Dexport.jfr=/tmp/jfr [-Dexport.jfr.settings=profile]]   (a flight recording of each export, cold and warm)
 *   [-Dexport.threads=true]   (the warm export's service CPU by thread: the JIT's share shows)
 *   [-Dexport.jvmArgs="..."]   (more options for the service's JVM)
 *   [-Dexport.formats=csv]   (the formats measured, comma-separated: csv,xlsx by default)
 * </pre>
 */
@Tag("benchmark")
class ExportServiceBenchmark {

  static final String JAR = System.getProperty("export.jar", "target/sql-agent.jar");
  static final String BASELINE = System.getProperty("export.baseline.jar", "");
  static final int ROUNDS = Integer.getInteger("export.rounds", 3);
  /** The formats measured ({@code -Dexport.formats=csv}: one of them). */
  static final List<String> FORMATS = List.of(System.getProperty("export.formats", "csv,xlsx").split(","));
  static final String PSQL = System.getProperty("sqlagent.psql", "psql");
  /** A directory for a flight recording of each export (cold and warm apart), for a profile; empty: none. */
  static final String JFR = System.getProperty("export.jfr", "");
  /**
   * With {@code -Dexport.afterIndexing=true} the cold export waits until the service's start-up work is done (its
   * stored values indexed and its exports warmed up, both in the background after it is ready, and the JIT idle after
   * them), so the cold time is the first export's own, as a user meets it once the service has been up a few seconds,
   * and not shared with that work. Without it, the cold export starts the moment the service is ready.
   */
  static final boolean AFTER_INDEXING = Boolean.getBoolean("export.afterIndexing");
  /** More options for the service's JVM ({@code -Dexport.jvmArgs="-XX:+PrintCompilation"}: what the JIT compiles when). */
  static final String JVM_ARGS = System.getProperty("export.jvmArgs", "");

  @Test
  void csvAndXlsxColdAndWarmBesidePsqlCopy() throws Exception {
    Map<String, String> jars = new LinkedHashMap<>();
    jars.put("this", Path.of(JAR).toAbsolutePath().toString());
    if (!BASELINE.isBlank()) jars.put("baseline", Path.of(BASELINE).toAbsolutePath().toString());
    for (String jar : jars.values()) assertThat(Path.of(jar)).as("build the jar first").exists();
    Map<String, List<Long>> times = new LinkedHashMap<>();
    // The service JVM's own CPU time per export: what the export costs, whatever else the machine runs.
    Map<String, List<Long>> cpu = new LinkedHashMap<>();
    List<String> loads = new ArrayList<>();
    try (ExportDatabase db = new ExportDatabase()) {
      for (int round = 0; round < ROUNDS; round++) {
        loads.add(loadAverage());
        List<String> order = new ArrayList<>(jars.keySet());
        if (round % 2 == 1) java.util.Collections.reverse(order);
        for (String name : order) {
          for (String format : FORMATS) {
            long[] coldWarm = twoExports(jars.get(name), db, format);
            times.computeIfAbsent(name + " " + format + " cold", k -> new ArrayList<>()).add(coldWarm[0]);
            times.computeIfAbsent(name + " " + format + " warm", k -> new ArrayList<>()).add(coldWarm[1]);
            cpu.computeIfAbsent(name + " " + format + " cold", k -> new ArrayList<>()).add(coldWarm[2]);
            cpu.computeIfAbsent(name + " " + format + " warm", k -> new ArrayList<>()).add(coldWarm[3]);
            times.computeIfAbsent("psql", k -> new ArrayList<>()).add(psqlCopy(db));
          }
        }
        loads.add(loadAverage());
      }
    }
    long psql = median(times.get("psql"));
    StringBuilder report = new StringBuilder("\nExport of " + ExportDatabase.ROWS + " rows x 10 columns over HTTP, median of "
        + ROUNDS + " rounds (load average during the rounds: " + String.join(" | ", loads) + ")\n");
    report.append(String.format("  psql \\copy ... TO STDOUT: %d ms %s%n", psql, times.get("psql")));
    for (var e : times.entrySet()) {
      if (e.getKey().equals("psql")) continue;
      long ms = median(e.getValue());
      report.append(String.format("  %-20s %6d ms  %5.1fx psql  %s; service CPU %d ms %s%n", e.getKey(), ms,
          (double) ms / psql, e.getValue(), median(cpu.get(e.getKey())), cpu.get(e.getKey())));
    }
    System.out.println(report);
  }

  /** A fresh service from {@code jar}: the first export's time and the second's, then their service CPU time, in ms. */
  static long[] twoExports(String jar, ExportDatabase db, String format) throws Exception {
    int port = FreePorts.next();
    Path home = Files.createTempDirectory("export-bench");
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.put("SQLAGENT_DB_URL", db.ro.withSecret());
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_HTTP_PORT", String.valueOf(port));
    // Nothing read in the background while the exports run.
    env.put("SQLAGENT_MODEL_SEES", "schema");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-XX:MaxRAMPercentage=50"));
    if (!JVM_ARGS.isBlank()) command.addAll(List.of(JVM_ARGS.trim().split("\\s+")));
    command.addAll(List.of("-jar", jar));
    ProcessBuilder pb = new ProcessBuilder(command)
        .redirectErrorStream(true).redirectOutput(home.resolve("service.log").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("SQLAGENT_"));
    pb.environment().putAll(env);
    Process service = pb.start();
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      awaitReady(http, port, service, home);
      if (AFTER_INDEXING) {
        awaitLogLine(home.resolve("service.log"), "stored values ready");
        if (warmsUp(jar)) awaitLogLine(home.resolve("service.log"), "exports warmed up");
        awaitJitIdle(service);
      }
      String tag = Path.of(jar).getParent().getParent().getFileName() + "-" + format;
      record(service, "start", tag + "-cold");
      long cpu0 = cpuMs(service);
      Map<String, Long> coldThreads0 = threadCpuMs(service);
      long cold = export(http, port, format);
      long cpu1 = cpuMs(service);
      if (THREADS) System.out.println(tag + " cold, service CPU by thread: " + since(coldThreads0, threadCpuMs(service)));
      record(service, "stop", tag + "-cold");
      record(service, "start", tag + "-warm");
      long cpu2a = cpuMs(service);
      Map<String, Long> threads0 = threadCpuMs(service);
      long warm = export(http, port, format);
      long cpu2 = cpuMs(service);
      if (THREADS) System.out.println(tag + " warm, service CPU by thread: " + since(threads0, threadCpuMs(service)));
      record(service, "stop", tag + "-warm");
      return new long[] {cold, warm, cpu1 - cpu0, cpu2 - cpu2a};
    } finally {
      service.destroy();
      if (!service.waitFor(30, TimeUnit.SECONDS)) service.destroyForcibly();
    }
  }

  /** Starts or stops a flight recording {@code name} in the service (with {@code -Dexport.jfr} only). */
  static void record(Process service, String what, String name) throws Exception {
    if (JFR.isBlank()) return;
    Files.createDirectories(Path.of(JFR));
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    List<String> cmd = new ArrayList<>(List.of(jcmd, String.valueOf(service.pid()), "JFR." + what, "name=" + name));
    if (what.equals("start")) cmd.add("settings=" + System.getProperty("export.jfr.settings", "profile"));
    else cmd.add("filename=" + Path.of(JFR, name + ".jfr").toAbsolutePath());
    Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
  }

  /**
   * Waits (30 s at most) until the service's JIT compilers have been idle for half a second: what start-up left them
   * to compile is done (Linux; elsewhere at once).
   */
  static void awaitJitIdle(Process service) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long before = compilerCpuMs(service);
    while (System.nanoTime() < deadline) {
      Thread.sleep(500);
      long now = compilerCpuMs(service);
      if (now - before <= 20) return;
      before = now;
    }
  }

  static long compilerCpuMs(Process service) {
    return threadCpuMs(service, true).entrySet().stream().filter(e -> e.getKey().contains("CompilerThre"))
        .mapToLong(Map.Entry::getValue).sum();
  }

  /** Whether the service in {@code jar} exports to itself after its start (a build before that does not). */
  static boolean warmsUp(String jar) throws java.io.IOException {
    try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar)) {
      return j.getEntry("dev/sqlagent/export/ExportWarmUp.class") != null;
    }
  }

  /** Waits (a minute at most) for {@code line} in the service's log. */
  static void awaitLogLine(Path log, String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (System.nanoTime() < deadline && !Files.readString(log).contains(line)) Thread.sleep(100);
  }

  /** With {@code -Dexport.threads=true}: each export's service CPU time by thread (Linux), where the time goes. */
  static final boolean THREADS = Boolean.getBoolean("export.threads");

  /** CPU ms by thread name (digits dropped, so a pool's threads add up), from {@code /proc}; empty off Linux. */
  static Map<String, Long> threadCpuMs(Process p) {
    return threadCpuMs(p, THREADS);
  }

  static Map<String, Long> threadCpuMs(Process p, boolean read) {
    Map<String, Long> ms = new java.util.TreeMap<>();
    if (!read) return ms;
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(p.pid()), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          String name = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "#");
          ms.merge(name, ticks * 10, Long::sum);
        } catch (java.io.IOException | RuntimeException gone) {
          // the thread ended
        }
      }
    } catch (java.io.IOException noProc) {
      return ms;
    }
    return ms;
  }

  static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> d = new LinkedHashMap<>();
    after.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
        .filter(e -> e.getValue() > 0).sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .forEach(e -> d.put(e.getKey(), e.getValue()));
    return d;
  }

  static long cpuMs(Process p) {
    return p.info().totalCpuDuration().map(java.time.Duration::toMillis).orElse(-1L);
  }

  static void awaitReady(HttpClient http, int port, Process service, Path home) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (System.nanoTime() < deadline) {
      assertThat(service.isAlive()).as("the service ended: " + Files.readString(home.resolve("service.log"))).isTrue();
      try {
        var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/health")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) return;
      } catch (java.io.IOException notYet) {
        // still starting
      }
      Thread.sleep(250);
    }
    throw new AssertionError("the service did not start: " + Files.readString(home.resolve("service.log")));
  }

  /** One export, read to its last byte as fast as it comes: its time in ms. */
  static long export(HttpClient http, int port, String format) throws Exception {
    String body = new JsonObject().put("sql", ExportDatabase.ALL).put("format", format).encode();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/query/export"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    long t0 = System.nanoTime();
    HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    long bytes = 0;
    try (InputStream in = r.body()) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) bytes += n;
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(bytes).isGreaterThan(5_000_000L);
    return ms;
  }

  static long psqlCopy(ExportDatabase db) throws Exception {
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(PSQL, db.ro.withSecret(), "-q", "-c",
        "\\copy (" + ExportDatabase.ALL + ") TO STDOUT WITH (FORMAT csv, HEADER)")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(false).start();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(p.exitValue()).isZero();
    return ms;
  }

  static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(Long::compare);
    return sorted.get(sorted.size() / 2);
  }
}
