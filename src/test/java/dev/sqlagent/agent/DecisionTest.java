package dev.sqlagent.agent;

import static dev.sqlagent.agent.Decision.Next.ANSWER;
import static dev.sqlagent.agent.Decision.Next.GIVE_UP;
import static dev.sqlagent.agent.Decision.Next.REFUSE;
import static dev.sqlagent.agent.Decision.Next.REPAIR;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DecisionTest {

  @Test
  void threeAttemptsThenGiveUp() {
    assertThat(Decision.decide(false, true, false, 1 < AgentGraph.MAX_ATTEMPTS, true)).isEqualTo(REPAIR);
    assertThat(Decision.decide(false, true, false, 2 < AgentGraph.MAX_ATTEMPTS, true)).isEqualTo(REPAIR);
    assertThat(Decision.decide(false, true, false, 3 < AgentGraph.MAX_ATTEMPTS, true)).isEqualTo(GIVE_UP);
  }

  @Test
  void unrepairableAndBaselineNeverRepair() {
    assertThat(Decision.decide(false, false, false, 1 < AgentGraph.MAX_ATTEMPTS, true)).isEqualTo(GIVE_UP);
    assertThat(Decision.decide(false, true, false, 1 < AgentGraph.MAX_ATTEMPTS, false)).isEqualTo(GIVE_UP);
  }

  @Test
  void successAnswersAndAWriteIsRefused() {
    assertThat(Decision.decide(true, false, false, 3 < AgentGraph.MAX_ATTEMPTS, true)).isEqualTo(ANSWER);
    assertThat(Decision.decide(false, false, true, 1 < AgentGraph.MAX_ATTEMPTS, true)).isEqualTo(REFUSE);
  }
}
