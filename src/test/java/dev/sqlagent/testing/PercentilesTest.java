package dev.sqlagent.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Nearest rank, whatever the order the values come in. */
class PercentilesTest {

  @Test
  void nearestRankOfUnsortedValues() {
    List<Long> hundred = new java.util.ArrayList<>();
    for (long i = 100; i >= 1; i--) hundred.add(i);
    assertThat(Percentiles.of(hundred, 50)).isEqualTo(50L);
    assertThat(Percentiles.of(hundred, 99)).isEqualTo(99L);
    assertThat(Percentiles.of(hundred, 100)).isEqualTo(100L);
    assertThat(Percentiles.of(new long[] {30, 10, 20}, 50)).isEqualTo(20L);
    assertThat(Percentiles.median(new double[] {3.5, 1.5, 2.5, 4.5})).isEqualTo(2.5);
    assertThat(Percentiles.of(List.of(7L), 1)).isEqualTo(7L);
  }

  @Test
  void noValuesIsAnError() {
    assertThatThrownBy(() -> Percentiles.of(new long[0], 50)).isInstanceOf(IllegalArgumentException.class);
  }
}
