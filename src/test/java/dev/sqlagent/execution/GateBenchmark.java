package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import dev.sqlagent.testing.ProcFiles;
import dev.sqlagent.testing.Percentiles;
import static dev.sqlagent.testing.BenchmarkMachine.loadAverage;
import static dev.sqlagent.testing.BenchmarkMachine.settle;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Measures, asserts nothing about time. Run:
 * {@code mvn -B test -Dtest=GateBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 * <ol>
 *   <li>the static check alone over the valid corpus: throughput and p50/p99 latency;
 *   <li>the whole gate per query (static check, description, prepare, EXPLAIN, execution; the reset follows the
 *       reply) against running the same bounded SQL directly on a plain pool of the same role, each query a repeat
 *       (the gate has seen its text in the warm-up: its verdict and columns are remembered);
 *   <li>the same with every text new to the gate (first sight), as an agent's fresh attempts are;
 *   <li>where the time goes: CPU per query of PostgreSQL and of the event loops, the gate's repeats against the same
 *       SQL directly, back to back.
 * </ol>
 * Both with the ratio of the p50s and the median of each pair's own ratio (gate and direct run back to back, so a
 * load that comes and goes touches both alike), and the load average at the start and the end: compare numbers
 * taken close together, on a quiet machine. Prints the numbers and writes them to target/gate-benchmark.txt.
 */
@Tag("benchmark")
class GateBenchmark {

  @Test
  void staticCheckAndGateOverhead() throws Exception {
    List<String> corpus = GateCorpusTest.corpus("valid.jsonl").stream().map(j -> j.getString("sql")).toList();
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "machine: %d cores, %s %s; load average at start: %s%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.version"),
        loadAverage()));

    TestDatabase db = TestDatabase.get();
    Vertx vertx = Vertx.vertx();
    Gate gate = Gate.start(vertx, Gate.Database.of(db.target().roOptions()),
        Gate.Settings.DEFAULTS).await(60, TimeUnit.SECONDS);
    Pool direct = PgBuilder.pool().with(new PoolOptions().setMaxSize(4)).connectingTo(db.target().roOptions())
        .using(vertx).build();
    try {
      // 1. The static check alone, single-threaded.
      StaticCheck check = new StaticCheck(gate.schema(), StaticCheck.Limits.DEFAULT);
      for (int i = 0; i < 5; i++) corpus.forEach(check::check);
      int rounds = 30;
      long[] ns = new long[rounds * corpus.size()];
      int k = 0;
      int parsed = 0;
      long t0 = System.nanoTime();
      for (int r = 0; r < rounds; r++) {
        for (String sql : corpus) {
          long s = System.nanoTime();
          StaticCheck.Verdict v = check.check(sql);
          ns[k++] = System.nanoTime() - s;
          if (r == 0 && v.parsed()) parsed++;
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      // The slowest queries by median check time, to show where the time goes.
      List<double[]> perQuery = new ArrayList<>();
      for (int q = 0; q < corpus.size(); q++) {
        long[] times = new long[rounds];
        for (int r = 0; r < rounds; r++) times[r] = ns[r * corpus.size() + q];
        Arrays.sort(times);
        perQuery.add(new double[] {times[rounds / 2] / 1e6, q});
      }
      perQuery.sort((a, b) -> Double.compare(b[0], a[0]));
      for (int i = 0; i < 5; i++) {
        String sql = corpus.get((int) perQuery.get(i)[1]);
        out.append(String.format(Locale.ROOT, "  slowest check #%d: median %.2f ms (%s): %s%n", i + 1, perQuery.get(i)[0],
            check.check(sql).staticCheck(), sql.length() > 90 ? sql.substring(0, 90) + "..." : sql));
      }
      Arrays.sort(ns);
      out.append(String.format(Locale.ROOT, "static check: %d queries (%d parsed by JSqlParser, %d PostgreSQL fallback) x %d "
              + "rounds: %.0f checks/s, p50 %.3f ms, p99 %.3f ms, max %.3f ms%n", corpus.size(), parsed,
          corpus.size() - parsed, rounds, ns.length / seconds, pct(ns, 50), pct(ns, 99), ns[ns.length - 1] / 1e6));

      // 2. The whole gate against the same bounded SQL run directly (interleaved, after a warm-up).
      List<String> bounded = new ArrayList<>();
      for (String sql : corpus) bounded.add(gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).toJson().getString("sql"));
      // A long warm-up: with 2 rounds the first measured section still ran partly interpreted (it came out slower than
      // the first-sight section after it, which does more).
      for (int i = 0; i < 10; i++) {
        for (int q = 0; q < corpus.size(); q++) {
          gate.submit(GateRequest.run(corpus.get(q))).await(30, TimeUnit.SECONDS).toJson();
          direct.preparedQuery(bounded.get(q)).execute().await(30, TimeUnit.SECONDS);
        }
      }
      int gateRounds = 5;
      long[] gateNs = new long[gateRounds * corpus.size()];
      long[] directNs = new long[gateRounds * corpus.size()];
      long[] overheadNs = new long[gateRounds * corpus.size()];
      k = 0;
      for (int r = 0; r < gateRounds; r++) {
        for (int q = 0; q < corpus.size(); q++) {
          long s = System.nanoTime();
          JsonObject reply = gate.submit(GateRequest.run(corpus.get(q))).await(30, TimeUnit.SECONDS).toJson();
          gateNs[k] = System.nanoTime() - s;
          settle();
          if (!reply.getBoolean("ok")) throw new AssertionError("refused in the benchmark: " + reply.encode());
          s = System.nanoTime();
          direct.preparedQuery(bounded.get(q)).execute().await(30, TimeUnit.SECONDS);
          directNs[k] = System.nanoTime() - s;
          settle();
          overheadNs[k] = gateNs[k] - directNs[k];
          k++;
        }
      }
      double pairRatio = medianRatio(gateNs, directNs);
      Arrays.sort(gateNs);
      Arrays.sort(directNs);
      Arrays.sort(overheadNs);
      out.append(String.format(Locale.ROOT, "whole gate per query (%d queries x %d rounds): p50 %.2f ms, p99 %.2f ms%n",
          corpus.size(), gateRounds, pct(gateNs, 50), pct(gateNs, 99)));
      out.append(String.format(Locale.ROOT, "same bounded SQL directly (preparedQuery on a plain pool): p50 %.2f ms, p99 %.2f ms%n",
          pct(directNs, 50), pct(directNs, 99)));
      out.append(String.format(Locale.ROOT, "gate overhead per query (gate - direct, same query): p50 %.2f ms, p99 %.2f ms%n",
          pct(overheadNs, 50), pct(overheadNs, 99)));
      out.append(String.format(Locale.ROOT, "ratio gate / direct at p50: %.2fx (median of each query's own ratio: %.2fx)%n",
          pct(gateNs, 50) / pct(directNs, 50), pairRatio));

      // 3. The same on first sight: every text new to the gate (a leading comment numbered per submission), as an
      //    agent's fresh attempts are; the direct run is the same text too.
      long[] freshNs = new long[gateRounds * corpus.size()];
      long[] freshDirectNs = new long[gateRounds * corpus.size()];
      k = 0;
      int seq = 0;
      for (int r = 0; r < gateRounds; r++) {
        for (int q = 0; q < corpus.size(); q++) {
          String tag = "/* first sight " + (++seq) + " */ ";
          long s = System.nanoTime();
          JsonObject reply = gate.submit(GateRequest.run(tag + corpus.get(q))).await(30, TimeUnit.SECONDS).toJson();
          freshNs[k] = System.nanoTime() - s;
          settle();
          if (!reply.getBoolean("ok")) throw new AssertionError("refused in the benchmark: " + reply.encode());
          s = System.nanoTime();
          direct.preparedQuery(tag + bounded.get(q)).execute().await(30, TimeUnit.SECONDS);
          freshDirectNs[k] = System.nanoTime() - s;
          settle();
          k++;
        }
      }
      double freshPairRatio = medianRatio(freshNs, freshDirectNs);
      Arrays.sort(freshNs);
      Arrays.sort(freshDirectNs);
      out.append(String.format(Locale.ROOT, "first sight (each text new): whole gate p50 %.2f ms, p99 %.2f ms; directly p50 %.2f ms, "
          + "p99 %.2f ms; ratio at p50 %.2fx (median of each query's own ratio: %.2fx)%n", pct(freshNs, 50), pct(freshNs, 99),
          pct(freshDirectNs, 50), pct(freshDirectNs, 99), pct(freshNs, 50) / pct(freshDirectNs, 50), freshPairRatio));

      // 4. Where the time goes: CPU per query, the gate's repeats and then the same SQL directly, back to back.
      out.append(cpuPerQuery("whole gate, repeat", corpus, sql -> gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS)));
      out.append(cpuPerQuery("directly", bounded, sql -> direct.preparedQuery(sql).execute().await(30, TimeUnit.SECONDS)));
    } finally {
      direct.close().await(10, TimeUnit.SECONDS);
      gate.close().await(10, TimeUnit.SECONDS);
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    out.append("load average at end: ").append(loadAverage()).append('\n');
    System.out.print(out);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "gate-benchmark.txt"), out);
  }

  /**
   * CPU time per query over ten rounds of {@code queries}, each one {@code run}: PostgreSQL's processes and this JVM's
   * event-loop threads, from /proc (Linux; clock ticks of 10 ms, so enough queries to average over).
   */
  private static String cpuPerQuery(String what, List<String> queries, Query run) throws Exception {
    long pg0 = cpuTicks(Path.of("/proc"), "postgres");
    long loop0 = cpuTicks(Path.of("/proc/self/task"), "vert.x-eventloo");
    long t0 = System.nanoTime();
    for (int r = 0; r < 10; r++) {
      for (String sql : queries) run.run(sql);
    }
    int ran = 10 * queries.size();
    long wall = System.nanoTime() - t0;
    long pg = cpuTicks(Path.of("/proc"), "postgres") - pg0;
    long loop = cpuTicks(Path.of("/proc/self/task"), "vert.x-eventloo") - loop0;
    return String.format(Locale.ROOT, "cpu per query, %s (%d queries back to back): wall %.2f ms, PostgreSQL %.2f ms, "
        + "event loops %.2f ms%n", what, ran, wall / 1e6 / ran, pg * 10.0 / ran, loop * 10.0 / ran);
  }

  /** One query, run to its end. */
  private interface Query {
    void run(String sql) throws Exception;
  }

  /** The user and system clock ticks of every process (or thread) under {@code dir} whose name starts so. */
  static long cpuTicks(Path dir, String namePrefix) throws Exception {
    long ticks = 0;
    try (var entries = Files.newDirectoryStream(dir, e -> e.getFileName().toString().matches("\\d+"))) {
      for (Path e : entries) {
        try {
          if (!ProcFiles.read(e.resolve("comm")).startsWith(namePrefix)) continue;
          String stat = ProcFiles.read(e.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (java.io.IOException gone) {
          // ended meanwhile
        }
      }
    }
    return ticks;
  }



  /** The median of a[i] / b[i]: each pair ran back to back, so a load that comes and goes touches both alike. */
  private static double medianRatio(long[] a, long[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) r[i] = (double) a[i] / Math.max(1, b[i]);
    Arrays.sort(r);
    return r[r.length / 2];
  }

  private static double pct(long[] sorted, int p) {
    return Percentiles.of(sorted, p) / 1e6;
  }
}
