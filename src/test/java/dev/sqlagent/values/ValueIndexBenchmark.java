package dev.sqlagent.values;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Measures, asserts nothing about time. Run:
 * {@code mvn -B test -Dtest=ValueIndexBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 * <ol>
 *   <li>building the index over 1,000,000 distinct values (50 columns of 20,000, the per-column cap): time,
 *       index bytes and the heap it holds;
 *   <li>one lookup per question (every phrase of a 10-word question against the whole index, typos included),
 *       over 2,000 questions after warm-up: p50, p99, max. The goal is a p99 under 20 ms.
 * </ol>
 * Prints the numbers and writes them to target/benchmarks/value-index.txt.
 */
@Tag("benchmark")
class ValueIndexBenchmark {

  private static final String[] SYLLABLES = {"ka", "ro", "mi", "ta", "lo", "ne", "su", "va", "ri", "do", "pe", "gu",
      "in", "es", "ba", "li", "mo", "ha", "ze", "fi", "an", "or", "el", "ti", "ra", "co", "nu", "se", "wi", "ya",
      "ju", "pa", "de", "ge", "ki", "lu", "ma", "no", "po", "sa"};

  /** A three-syllable word: 64,000 of them. */
  static String word(int i) {
    int n = SYLLABLES.length;
    return SYLLABLES[i % n] + SYLLABLES[(i / n) % n] + SYLLABLES[(i / (n * n)) % n];
  }

  @Test
  void buildAndLookup() throws Exception {
    int columns = 50;
    int perColumn = 20_000;
    List<ColumnValues> data = new ArrayList<>();
    for (int c = 0; c < columns; c++) {
      List<String> values = new ArrayList<>(perColumn);
      for (int i = 0; i < perColumn; i++) {
        int k = c * perColumn + i;   // distinct pairs: (k mod 64,000, k / 64,000)
        values.add((word(k % 64_000) + " " + word(k / 64_000 * 997 + 13)).toUpperCase(Locale.ROOT));
      }
      data.add(new ColumnValues("t" + (c / 5), "c" + c, false, "distinct", values));
    }
    long distinct = data.stream().flatMap(d -> d.values().stream()).distinct().count();

    Runtime rt = Runtime.getRuntime();
    gc();
    long heapBefore = rt.totalMemory() - rt.freeMemory();
    long t0 = System.nanoTime();
    ValueIndex index = ValueIndex.build(data);
    long buildMs = (System.nanoTime() - t0) / 1_000_000;
    data = null;
    gc();
    long heapAfter = rt.totalMemory() - rt.freeMemory();

    Random random = new Random(12);
    Set<String> tables = new HashSet<>(List.of("t0", "t1", "t2", "t3", "t4"));
    Set<String> schemaWords = Set.of("orders", "order", "customers", "customer");
    List<String> questions = new ArrayList<>();
    for (int q = 0; q < 2_500; q++) {
      int k = random.nextInt(1_000_000);
      String first = word(k % 64_000);
      if (q % 3 == 0) first = first.substring(0, 2) + "x" + first.substring(3);  // one edit
      questions.add("how many orders did " + first + " " + word(k / 64_000 * 997 + 13)
          + " place in the north region during 2024");
    }
    int found = 0;
    for (String q : questions.subList(0, 500)) found += ValueMatcher.match(index, q, tables, schemaWords).isEmpty() ? 0 : 1;
    long[] ns = new long[2_000];
    long[] cpu = new long[ns.length];
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    found = 0;
    for (int i = 0; i < ns.length; i++) {
      long c = threads.getCurrentThreadCpuTime();
      long s = System.nanoTime();
      List<ValueMatch> m = ValueMatcher.match(index, questions.get(500 + i), tables, schemaWords);
      ns[i] = System.nanoTime() - s;
      cpu[i] = threads.getCurrentThreadCpuTime() - c;
      if (!m.isEmpty()) found++;
    }
    Arrays.sort(ns);
    Arrays.sort(cpu);
    // The same questions again, the near words a lookup keeps forgotten before each: what a question of new words costs.
    long[] cold = new long[500];
    for (int i = 0; i < cold.length; i++) {
      index.forgetNearWords();
      long s = System.nanoTime();
      ValueMatcher.match(index, questions.get(500 + i), tables, schemaWords);
      cold[i] = System.nanoTime() - s;
    }
    Arrays.sort(cold);

    String report = String.format(Locale.ROOT, """
        machine: %d cores, %s %s, max heap %d MiB
        values: %,d distinct in %d columns (%,d per column)
        build: %,d ms; index %,d bytes (%.1f MiB); heap held after build %.1f MiB (%.1f MiB before)
        lookup per question (10 words, 1 in 3 with a typo), %d questions: p50 %.2f ms, p99 %.2f ms, max %.2f ms
        the same, CPU time of the looking thread (less moved by other processes): p50 %.2f ms, p99 %.2f ms
        no near words kept (every word's automaton built anew), %d questions: p50 %.2f ms, p99 %.2f ms
        questions with a match: %d of %d; load average at the end %.1f
        """, rt.availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.version"),
        rt.maxMemory() >> 20, distinct, columns, perColumn, buildMs, index.indexBytes(), index.indexBytes() / 1048576.0,
        (heapAfter) / 1048576.0, heapBefore / 1048576.0, ns.length, ns[ns.length / 2] / 1e6, ns[(int) (ns.length * 0.99)] / 1e6,
        ns[ns.length - 1] / 1e6, cpu[cpu.length / 2] / 1e6, cpu[(int) (cpu.length * 0.99)] / 1e6, cold.length,
        cold[cold.length / 2] / 1e6, cold[(int) (cold.length * 0.99)] / 1e6, found, ns.length,
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.print(report);
    Files.createDirectories(Path.of("target/benchmarks"));
    Files.writeString(Path.of("target/benchmarks/value-index.txt"), report);
    index.close();
  }

  private static void gc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
  }
}
