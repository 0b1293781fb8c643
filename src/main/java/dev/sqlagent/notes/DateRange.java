package dev.sqlagent.notes;

import java.time.LocalDate;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A span of days, both ends included; a null end is open ({@code from 2025-01-01} runs on). What a table's
 * rows cover (the notes' {@code dates}) and what a question asks about ("in 2025") are both date ranges.
 */
public record DateRange(LocalDate from, LocalDate to) {

  private static final Pattern YEAR = Pattern.compile("\\d{4}");
  private static final Pattern MONTH = Pattern.compile("\\d{4}-\\d{2}");

  public DateRange {
    if (from != null && to != null && to.isBefore(from)) {
      throw new IllegalArgumentException("ends (" + to + ") before it starts (" + from + ")");
    }
  }

  /** The whole of one year. */
  public static DateRange year(int year) {
    return new DateRange(LocalDate.of(year, 1, 1), LocalDate.of(year, 12, 31));
  }

  /** The whole of one month. */
  public static DateRange month(YearMonth month) {
    return new DateRange(month.atDay(1), month.atEndOfMonth());
  }

  /**
   * The period a notes value names: a year ({@code 2024}), a month ({@code 2024-03}) or a day
   * ({@code 2024-03-31}). Empty when it is none of these.
   */
  public static Optional<DateRange> period(String text) {
    String t = text.strip();
    try {
      if (YEAR.matcher(t).matches()) return Optional.of(year(Integer.parseInt(t)));
      if (MONTH.matcher(t).matches()) return Optional.of(month(YearMonth.parse(t)));
      LocalDate day = LocalDate.parse(t);
      return Optional.of(new DateRange(day, day));
    } catch (DateTimeParseException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Whether the two share at least one day. */
  public boolean overlaps(DateRange other) {
    boolean startsInTime = other.to == null || from == null || !other.to.isBefore(from);
    boolean endsInTime = other.from == null || to == null || !other.from.isAfter(to);
    return startsInTime && endsInTime;
  }

  /** {@code 2023-01-01 to 2024-12-31}, {@code from 2025-01-01}, {@code until 2023-12-31}. */
  @Override
  public String toString() {
    if (from == null && to == null) return "any date";
    if (from == null) return "until " + to;
    if (to == null) return "from " + from;
    return from.equals(to) ? from.toString() : from + " to " + to;
  }
}
