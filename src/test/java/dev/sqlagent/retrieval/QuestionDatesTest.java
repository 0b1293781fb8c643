package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.notes.DateRange;
import java.time.LocalDate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuestionDatesTest {

  static final QuestionDates DATES = new QuestionDates(LocalDate.of(2026, 11, 30));

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "How many bills were paid in 2025?                   | 2025-01-01 to 2025-12-31",
      "2024 revenue by month                               | 2024-01-01 to 2024-12-31",
      "Revenue in March 2025                               | 2025-03-01 to 2025-03-31",
      "Revenue for sept. 2024                              | 2024-09-01 to 2024-09-30",
      "Sales in 2025-02                                    | 2025-02-01 to 2025-02-28",
      "Sales on 2024-12-31                                 | 2024-12-31",
      "Sales in Q2 2024                                    | 2024-04-01 to 2024-06-30",
      "Sales in 2024 Q4                                    | 2024-10-01 to 2024-12-31",
      "Monthly sales from 2023 to 2024                     | 2023-01-01 to 2024-12-31",
      "Sales between 2019 and 2021                         | 2019-01-01 to 2021-12-31",
      "Sales 2023-2024                                     | 2023-01-01 to 2024-12-31",
      "Total sales before 2025                             | until 2024-12-31",
      "Orders until March 2024                             | until 2024-03-31",
      "Customers since 2024                                | from 2024-01-01",
      "Anything after 2024                                 | from 2025-01-01",
      "Top customers last year                             | 2025-01-01 to 2025-12-31",
      "Bills this month                                    | 2026-11-01 to 2026-11-30",
      "Bills last month                                    | 2026-10-01 to 2026-10-31",
      "Refunds in the last 30 days                         | 2026-10-31 to 2026-11-30",
      "Sales today                                         | 2026-11-30"})
  void namesOnePeriod(String question, String period) {
    assertThat(DATES.in(question)).extracting(DateRange::toString).containsExactly(period);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "Which products sold more than 2000 units?",
      "Top 5 customers by amount",
      "Orders with status 2025A",
      "Revenue in 2025-13",
      "Which supplier is inactive?"})
  void namesNoPeriod(String question) {
    assertThat(DATES.in(question)).isEmpty();
  }

  @org.junit.jupiter.api.Test
  void namesEveryPeriodOfAComparison() {
    assertThat(DATES.in("Revenue in 2023 versus 2025")).extracting(DateRange::toString)
        .containsExactlyInAnyOrder("2023-01-01 to 2023-12-31", "2025-01-01 to 2025-12-31");
  }
}
