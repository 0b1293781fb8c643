package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CandidateVoteTest {

  @Test
  void theLargestGroupWinsThroughItsFirstMember() {
    CandidateVote.Result r = CandidateVote.decide(Arrays.asList("wrong", "right", null, "right"));
    assertThat(r.winner()).isEqualTo(1);
    assertThat(r.votesFor("right")).isEqualTo(2);
    assertThat(r.votesFor("wrong")).isEqualTo(1);
    assertThat(r.votesFor(null)).isZero();
  }

  @Test
  void aTieGoesToTheGroupThatCameFirst() {
    assertThat(CandidateVote.decide(Arrays.asList(null, "b", "a", "a", "b")).winner()).isEqualTo(1);
    assertThat(CandidateVote.decide(List.of("x", "y", "z")).winner()).isZero();
  }

  @Test
  void noSuccessNoWinner() {
    assertThat(CandidateVote.decide(Arrays.asList(null, null)).winner()).isEqualTo(-1);
  }

  @Test
  void theMostInformativeFailureIsARepairableOneThatSaysWhere() {
    List<Outcome> failures = List.of(
        Outcome.failure("rejected", "not a select", null, null, "DELETE FROM t"),
        Outcome.failure("timeout", "too slow", null, null, "SELECT 1"),
        Outcome.failure("unknown_column", "column x does not exist", null, 8, "SELECT x FROM t"),
        Outcome.failure("unknown_column", "column y does not exist", null, 8, "SELECT y FROM t"));
    assertThat(CandidateVote.mostInformative(failures)).isEqualTo(2);
    assertThat(CandidateVote.mostInformative(failures.subList(0, 2))).isEqualTo(1);
  }
}
