package dev.sqlagent.retrieval;

import dev.sqlagent.notes.DateRange;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The periods a question names, for table choice: years ({@code in 2025}), year ranges
 * ({@code 2023-2024}, {@code between 2023 and 2024}), months ({@code March 2025}, {@code 2025-03}),
 * quarters ({@code Q1 2025}), days ({@code 2025-03-14}) and periods relative to today ({@code last year},
 * {@code this month}, {@code last 30 days}). A word before a period opens one end: {@code before 2025} is
 * everything until 2024-12-31, {@code since 2024} everything from 2024-01-01.
 *
 * <p>A bare four-digit number counts as a year only after a word that introduces a date ({@code in},
 * {@code for}, {@code since} ...) or at the start of the question, so "more than 2000 units" is no year.
 */
final class QuestionDates {

  private static final String YEAR = "((?:19|20)\\d{2})";
  private static final String MONTHS = "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
      + "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";

  /**
   * One kind of date expression and the range it names as of a day; tried in order, earlier kinds claim their text
   * first.
   */
  private record Kind(Pattern pattern, BiFunction<MatchResult, LocalDate, DateRange> range) {}

  /** Compiled once: a question is read against every kind. */
  private static final List<Kind> KINDS = List.of(
      kind("\\b" + YEAR + "-(\\d{2})-(\\d{2})\\b", (m, today) -> day(m.group(1), m.group(2), m.group(3))),
      kind("\\b(?:between|from)?\\s*" + YEAR + "\\s*(?:-|–|to|through|until|and)\\s*" + YEAR + "\\b",
          (m, today) -> years(m.group(1), m.group(2))),
      kind("\\b" + YEAR + "-(\\d{2})\\b(?!-)", (m, today) -> month(m.group(1), m.group(2))),
      kind("\\b" + MONTHS + "\\.?,?\\s+(?:of\\s+)?" + YEAR + "\\b", (m, today) -> monthNamed(m.group(1), m.group(2))),
      kind("\\bq([1-4])\\s*(?:of\\s+)?" + YEAR + "\\b", (m, today) -> quarter(m.group(2), m.group(1))),
      kind("\\b" + YEAR + "\\s*q([1-4])\\b", (m, today) -> quarter(m.group(1), m.group(2))),
      kind("\\b(?:the\\s+)?(?:last|past|previous)\\s+(\\d{1,3})\\s+(day|week|month|year)s?\\b",
          (m, today) -> lastN(today, Integer.parseInt(m.group(1)), m.group(2))),
      kind("\\b(this|current|last|previous|past)\\s+(year|month)\\b",
          (m, today) -> relative(today, m.group(1), m.group(2))),
      kind("\\b(today|yesterday)\\b", (m, today) -> m.group(1).equals("today") ? on(today) : on(today.minusDays(1))),
      kind("\\b" + YEAR + "\\b(?!-\\d)", (m, today) -> DateRange.year(Integer.parseInt(m.group(1)))));

  private final LocalDate today;

  private static final Pattern OPENS_BEFORE = Pattern.compile("(?:before|prior to|earlier than)\\s*$");
  private static final Pattern OPENS_UNTIL = Pattern.compile("(?:until|till|up to|through|to date)\\s*$");
  private static final Pattern OPENS_SINCE = Pattern.compile("(?:since|from|starting|onwards? from)\\s*$");
  private static final Pattern OPENS_AFTER = Pattern.compile("(?:after|later than)\\s*$");
  private static final Pattern INTRODUCES_YEAR = Pattern.compile(
      "(?:^|\\b(?:in|of|for|during|since|before|after|until|till|from|to|through|by|year|fy|earlier than|later than|and|or|vs|versus))"
          + "[\\s,]*$");

  QuestionDates(LocalDate today) {
    this.today = today;
  }

  private static Kind kind(String regex, BiFunction<MatchResult, LocalDate, DateRange> range) {
    return new Kind(Pattern.compile(regex, Pattern.CASE_INSENSITIVE), range);
  }

  /** Every period the question names, in no particular order; empty when it names none. */
  List<DateRange> in(String question) {
    String q = question.toLowerCase(Locale.ROOT);
    boolean[] claimed = new boolean[q.length()];
    List<DateRange> out = new ArrayList<>();
    for (int k = 0; k < KINDS.size(); k++) {
      boolean bareYear = k == KINDS.size() - 1;
      Matcher m = KINDS.get(k).pattern().matcher(q);
      while (m.find()) {
        int start = m.start();
        while (start < m.end() && Character.isWhitespace(q.charAt(start))) start++;
        if (taken(claimed, start, m.end())) continue;
        String before = q.substring(0, start);
        if (bareYear && !INTRODUCES_YEAR.matcher(before).find()) continue;
        DateRange r;
        try {
          r = KINDS.get(k).range().apply(m, today);
        } catch (RuntimeException notADate) {  // 2025-13, February 30th: not a period
          continue;
        }
        for (int i = start; i < m.end(); i++) claimed[i] = true;
        out.add(opened(r, before));
      }
    }
    return out;
  }

  /** The period with one end opened by the word before it ("before 2025", "since March 2024"). */
  private static DateRange opened(DateRange r, String before) {
    if (OPENS_BEFORE.matcher(before).find()) return new DateRange(null, r.from().minusDays(1));
    if (OPENS_UNTIL.matcher(before).find()) return new DateRange(null, r.to());
    if (OPENS_AFTER.matcher(before).find()) return new DateRange(r.to().plusDays(1), null);
    if (OPENS_SINCE.matcher(before).find()) return new DateRange(r.from(), null);
    return r;
  }

  private static boolean taken(boolean[] claimed, int from, int to) {
    for (int i = from; i < to; i++) if (claimed[i]) return true;
    return false;
  }

  private static DateRange day(String y, String m, String d) {
    return on(LocalDate.of(Integer.parseInt(y), Integer.parseInt(m), Integer.parseInt(d)));
  }

  private static DateRange on(LocalDate day) {
    return new DateRange(day, day);
  }

  private static DateRange years(String from, String to) {
    return new DateRange(LocalDate.of(Integer.parseInt(from), 1, 1), LocalDate.of(Integer.parseInt(to), 12, 31));
  }

  private static DateRange month(String y, String m) {
    return DateRange.month(YearMonth.of(Integer.parseInt(y), Integer.parseInt(m)));
  }

  private static DateRange monthNamed(String name, String y) {
    List<String> names = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");
    return DateRange.month(YearMonth.of(Integer.parseInt(y), names.indexOf(name.substring(0, 3)) + 1));
  }

  private static DateRange quarter(String y, String q) {
    YearMonth first = YearMonth.of(Integer.parseInt(y), (Integer.parseInt(q) - 1) * 3 + 1);
    return new DateRange(first.atDay(1), first.plusMonths(2).atEndOfMonth());
  }

  private static DateRange lastN(LocalDate today, int n, String unit) {
    LocalDate from = switch (unit) {
      case "day" -> today.minusDays(n);
      case "week" -> today.minusWeeks(n);
      case "month" -> today.minusMonths(n);
      default -> today.minusYears(n);
    };
    return new DateRange(from, today);
  }

  private static DateRange relative(LocalDate today, String which, String unit) {
    boolean previous = !which.equals("this") && !which.equals("current");
    if (unit.equals("year")) return DateRange.year(today.getYear() - (previous ? 1 : 0));
    return DateRange.month(YearMonth.from(today).minusMonths(previous ? 1 : 0));
  }
}
