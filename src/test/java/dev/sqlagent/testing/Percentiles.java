package dev.sqlagent.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * The benchmarks' percentiles, one definition for all of them: nearest rank (the smallest value with at least p% of
 * the values at or below it), so a p99 of 100 values is the 99th smallest, never an average of two.
 */
public final class Percentiles {
  private Percentiles() {}

  /** The p-th percentile (0 < p ≤ 100) of {@code values}, which need not be sorted. */
  public static <T extends Comparable<? super T>> T of(Collection<T> values, int p) {
    List<T> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(rank(sorted.size(), p));
  }

  public static long of(long[] values, int p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[rank(sorted.length, p)];
  }

  public static double of(double[] values, int p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[rank(sorted.length, p)];
  }

  public static <T extends Comparable<? super T>> T median(Collection<T> values) {
    return of(values, 50);
  }

  public static double median(double[] values) {
    return of(values, 50);
  }

  private static int rank(int n, int p) {
    if (n == 0) throw new IllegalArgumentException("no values to take a percentile of");
    return Math.max(0, Math.min(n - 1, (int) Math.ceil(p / 100.0 * n) - 1));
  }
}
