package dev.sqlagent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every derived wait outlasts what it waits for, whatever the configured timeouts. */
class DeadlinesTest {

  @Test
  void theDefaultsNestFromTheStepOutToTheMcpSdk() {
    Deadlines d = AppConfig.load(Map.of("SQLAGENT_LLM_BASE_URL", "https://api.example.com/v1")).deadlines();
    assertThat(d.stepMs()).isEqualTo(20_000).isGreaterThan(2 * d.statementMs()).isLessThan(d.questionMs());
    assertThat(d.questionMs()).isEqualTo(180_000);
    assertThat(d.askMs()).isEqualTo(195_000);
    assertThat(d.dispatchMs()).isEqualTo(200_000);
    assertThat(d.outerMs()).isEqualTo(210_000);
    assertThat(d.queueWaitMs()).isEqualTo(10_000);
    assertThat(d.readinessMs()).isEqualTo(3_000);
    assertThat(d.memberProbeMs()).isEqualTo(1_700);
    assertThat(d.logKeepWaitMs()).isEqualTo(10_000);
  }

  @Test
  void aModelOnThisMachineGetsTheDeadlinesOfACpuModelUnlessTheyAreSet() {
    for (String local : new String[] {"http://localhost:11434/v1", "http://127.0.0.1:8091/v1", "http://[::1]:8080/v1"}) {
      AppConfig c = AppConfig.load(Map.of("SQLAGENT_LLM_BASE_URL", local));
      assertThat(c.llmCallTimeoutMs()).as(local).isEqualTo(AppConfig.LOCAL_LLM_TIMEOUT_MS).isEqualTo(300_000);
      assertThat(c.questionTimeoutMs()).as(local).isEqualTo(AppConfig.LOCAL_QUESTION_TIMEOUT_MS).isEqualTo(900_000);
      assertThat(c.deadlines().askMs()).isGreaterThan(c.questionTimeoutMs());
    }
    AppConfig set = AppConfig.load(Map.of("SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:8091/v1",
        "SQLAGENT_LLM_TIMEOUT_MS", "1500", "SQLAGENT_QUESTION_TIMEOUT_MS", "20000"));
    assertThat(set.llmCallTimeoutMs()).isEqualTo(1_500);
    assertThat(set.questionTimeoutMs()).isEqualTo(20_000);
    AppConfig remote = AppConfig.load(Map.of("SQLAGENT_LLM_BASE_URL", "https://api.example.com/v1"));
    assertThat(remote.llmCallTimeoutMs()).isEqualTo(60_000);
    assertThat(remote.questionTimeoutMs()).isEqualTo(180_000);
  }

  @Test
  void theMarginsHoldAcrossTheWholeRangeOfEachTimeout() {
    int[] statements = {100, 5_000, 600_000};
    int[] questions = {100, 4_000, 180_000, 3_600_000};
    int[] health = {100, 2_000, 60_000};
    for (int statement : statements) {
      for (int question : questions) {
        for (int check : health) {
          Deadlines d = AppConfig.load(Map.of("SQLAGENT_STATEMENT_TIMEOUT_MS", String.valueOf(statement),
              "SQLAGENT_QUESTION_TIMEOUT_MS", String.valueOf(question),
              "SQLAGENT_HEALTH_TIMEOUT_MS", String.valueOf(check))).deadlines();
          String at = "statement " + statement + ", question " + question + ", health " + check;
          // A queued question gives up, then runs to its deadline, before the edge that asked stops waiting.
          assertThat(d.askMs()).as(at).isGreaterThan(d.questionMs() + d.queueWaitMs());
          assertThat(d.queueWaitMs()).as(at).isBetween(1_000L, 10_000L);
          // Clustered, the dispatcher outwaits the edges; the MCP SDK and the evaluation outwait both.
          assertThat(d.dispatchMs()).as(at).isGreaterThan(d.askMs());
          assertThat(d.outerMs()).as(at).isGreaterThan(d.dispatchMs());
          // Clustered, an answer held back for its log row still reaches the edge that asked in time.
          assertThat(d.askMs()).as(at).isGreaterThan(d.questionMs() + d.logKeepWaitMs());
          // A step has room beyond the statement timeout, run twice after a recovery conflict, for planning; the
          // console outwaits the gate.
          assertThat(d.stepMs()).as(at).isGreaterThan(2 * d.statementMs());
          assertThat(d.queryMs()).as(at).isGreaterThan(d.stepMs());
          assertThat(d.readinessMs()).as(at).isGreaterThan(d.healthCheckMs());
          // A member's status is asked within one check's deadline (a floor for the smallest settings).
          assertThat(d.memberProbeMs()).as(at).isLessThanOrEqualTo(Math.max(200, d.healthCheckMs()));
        }
      }
    }
  }
}
