package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/** A table's {@code dates} in a notes file: the period its rows cover. */
class NotesDatesTest {

  static Notes yaml(String text) {
    return NotesFile.parse("notes.yaml", text, NotesFile.Format.YAML);
  }

  static String problem(String text) {
    return catchThrowableOfType(NotesException.class, () -> yaml(text)).getMessage();
  }

  @Test
  void yearsMonthsAndDaysWithOpenEnds() {
    Notes n = yaml("""
        tables:
          loans:
            description: Loans of the new system.
            dates: {from: 2022-03}
          loans_archive:
            dates:
              from: 2015
              to: 2022-02-28
          members: People with a library card.
        """);
    assertThat(n.tableDates("loans")).contains(new DateRange(LocalDate.of(2022, 3, 1), null));
    assertThat(n.tableDates("LOANS_ARCHIVE")).contains(new DateRange(LocalDate.of(2015, 1, 1), LocalDate.of(2022, 2, 28)));
    assertThat(n.tableDates("public.loans_archive").orElseThrow().toString()).isEqualTo("2015-01-01 to 2022-02-28");
    assertThat(n.tableDates("members")).isEmpty();
    assertThat(n.tableDates("fines")).isEmpty();
    assertThat(n.tableNote("loans_archive")).isEmpty();
  }

  @Test
  void jsonNumbersAreYears() {
    Notes n = NotesFile.parse("notes.json", """
        {"tables": {"loans_archive": {"dates": {"to": 2021}}}}
        """, NotesFile.Format.JSON);
    assertThat(n.tableDates("loans_archive")).contains(new DateRange(null, LocalDate.of(2021, 12, 31)));
  }

  @Test
  void aBadValueIsRefusedWithItsLine() {
    assertThat(problem("""
        tables:
          loans:
            dates:
              from: last spring
        """)).isEqualTo("notes.yaml line 4: 'from' of 'dates' of table loans must be a year (2024), a month (2024-03)"
        + " or a day (2024-03-31); found 'last spring'");
    assertThat(problem("""
        tables:
          loans:
            dates: {from: 2024, to: 2023}
        """)).isEqualTo("notes.yaml line 3: 'dates' of table loans ends (2023-12-31) before it starts (2024-01-01)");
    assertThat(problem("""
        tables:
          loans:
            dates: {since: 2024}
        """)).startsWith("notes.yaml line 3: unknown key 'since' in 'dates' of table loans (expected from, to");
    assertThat(problem("""
        tables:
          loans:
            dates: 2024
        """)).startsWith("notes.yaml line 3: 'dates' of table loans must be a map with from and/or to");
    assertThat(problem("""
        tables:
          loans:
            dates: {from: 2024-02-30}
        """)).contains("must be a year (2024), a month (2024-03) or a day (2024-03-31); found '2024-02-30'");
  }

  @Test
  void overlapsCountEveryDayOfBothEnds() {
    DateRange archive = new DateRange(LocalDate.of(2023, 1, 1), LocalDate.of(2024, 12, 31));
    assertThat(archive.overlaps(DateRange.year(2024))).isTrue();
    assertThat(archive.overlaps(DateRange.year(2025))).isFalse();
    assertThat(archive.overlaps(new DateRange(LocalDate.of(2024, 12, 31), null))).isTrue();
    assertThat(archive.overlaps(new DateRange(null, LocalDate.of(2022, 12, 31)))).isFalse();
    assertThat(new DateRange(LocalDate.of(2025, 1, 1), null).overlaps(DateRange.year(2030))).isTrue();
  }
}
