package dev.sqlagent.verified;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiteralsTest {

  @Test
  void questionsNamingDifferentValuesNeverShareADirectAnswer() {
    assertThat(Literals.same("Revenue per month in 2025?", "What was the monthly revenue in 2025")).isTrue();
    assertThat(Literals.same("Revenue per month in 2025?", "Revenue per month in 2024?")).isFalse();
    assertThat(Literals.same("Top 5 customers by spend", "Top 10 customers by spend")).isFalse();
    assertThat(Literals.same("Bills with status 'PAID'", "Bills with status \"PAID\"")).isTrue();
    assertThat(Literals.same("Bills with status 'PAID'", "Bills with status 'OPEN'")).isFalse();
    assertThat(Literals.same("How many bills?", "Count the bills")).isTrue();
  }
}
