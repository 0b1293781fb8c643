package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the vote asks back, and how a reading is described without the model's words. */
class ClarifyTest {

  static CandidateVote.Result vote(String... fingerprints) {
    return CandidateVote.decide(Arrays.asList(fingerprints));
  }

  @Test
  void asksOnlyWhenTheLargestGroupIsNoMajorityOfSeveralResults() {
    assertThat(Clarify.asks(vote("a", "b", "c"), 3, 3, false, true)).isTrue();
    assertThat(Clarify.asks(vote("a", "a", "b"), 3, 3, false, true)).isFalse();
    assertThat(Clarify.asks(vote("a", "a", "b", "b"), 4, 4, false, true)).isTrue();
    assertThat(Clarify.asks(vote("a", "a", "b", "c"), 4, 4, false, true)).isTrue();
    assertThat(Clarify.asks(vote("a", "a", "a", "b", "c"), 5, 5, false, true)).isFalse();
    // One result and failures: nothing to choose between.
    assertThat(Clarify.asks(vote("a", null, null), 3, 3, false, true)).isFalse();
    // Two candidates configured: a 1-1 split is the vote's to settle, unless the model listed the readings.
    assertThat(Clarify.asks(vote("a", "b"), 2, 2, false, true)).isFalse();
    assertThat(Clarify.asks(vote("a", "b"), 2, 1, true, true)).isTrue();
    // Baseline mode never asks.
    assertThat(Clarify.asks(vote("a", "b", "c"), 3, 3, false, false)).isFalse();
  }

  @Test
  void aReadingIsDescribedByWhatItsSqlDoesThatTheOthersDoNot() {
    String all = "SELECT count(*) FROM bills";
    String paid = "SELECT count(*) FROM bills WHERE status = 'PAID' AND bill_dt BETWEEN '2025-01-01' AND '2025-12-31'";
    String year = "SELECT count(*) FROM bills WHERE bill_dt BETWEEN '2025-01-01' AND '2025-12-31'";
    assertThat(SqlDifference.describe(paid, List.of(year))).isEqualTo("Only where status = 'PAID'");
    assertThat(SqlDifference.describe(year, List.of(paid))).isEqualTo("Without the condition status = 'PAID'");
    assertThat(SqlDifference.describe(all, List.of(year, paid)))
        .isEqualTo("Without the other readings' conditions (bill_dt BETWEEN '2025-01-01' AND '2025-12-31'; status = 'PAID')");
    assertThat(SqlDifference.describe("SELECT count(*) FROM bill_archive", List.of(all)))
        .isEqualTo("Reads bill_archive (the other readings do not)");
    assertThat(SqlDifference.describe("SELECT sum(total_amt) FROM bills", List.of("SELECT avg(total_amt) FROM bills")))
        .isEqualTo("Computed as SELECT sum(total_amt) FROM bills");
  }
}
