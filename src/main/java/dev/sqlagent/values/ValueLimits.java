package dev.sqlagent.values;

/**
 * The bounds that keep reading stored values cheap on a big database.
 *
 * @param lowCardinality a column with at most this many distinct values has all of them in the schema text
 * @param perColumn most distinct values read from one column into the index
 * @param total most values indexed over all columns; columns past it are skipped
 * @param budgetMs the whole read stops after this long (columns left are skipped and counted)
 * @param maxAvgWidth a column whose values average more bytes than this (pg_stats) is free text: skipped
 * @param maxValueChars a longer value is not indexed (names, titles and codes are shorter)
 * @param statementTimeoutMs each DISTINCT read's statement_timeout
 */
public record ValueLimits(int lowCardinality, int perColumn, int total, long budgetMs, int maxAvgWidth,
    int maxValueChars, long statementTimeoutMs) {

  public static ValueLimits defaults(long statementTimeoutMs) {
    return new ValueLimits(30, 20_000, 1_000_000, 60_000, 64, 120, statementTimeoutMs);
  }
}
