package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.generation.ChatClient;
import org.junit.jupiter.api.Test;

/** The schema and the sample rows cut to the model's context. */
class ContextFitTest {

  @Test
  void aKnownContextCutsTheSchemasBudgetAndAnUnknownOneLeavesIt() {
    assertThat(ContextFit.schemaBudget(6_000, null)).isEqualTo(6_000);
    assertThat(ContextFit.schemaBudget(6_000, 4_096)).isEqualTo((int) ((4_096 - 2_048) * 0.6));
    assertThat(ContextFit.schemaBudget(6_000, 32_768)).isEqualTo(6_000);
    assertThat(ContextFit.schemaBudget(6_000, 2_048)).isEqualTo(ContextFit.MIN_SCHEMA);
  }

  @Test
  void sampleRowsAreCutByWholeLinesToWhatTheSchemaLeaves() {
    String samples = ("customers: 1 | Ada | London\n").repeat(400);
    assertThat(ContextFit.samples(samples, 1_000, null)).isEqualTo(samples);
    String cut = ContextFit.samples(samples, 1_000, 4_096);
    assertThat(ChatClient.estimate(cut.length())).isLessThanOrEqualTo(4_096 - 2_048 - 1_000);
    assertThat(cut).isNotEmpty().endsWith("London");
    assertThat(ContextFit.samples(samples, 3_000, 4_096)).isEmpty();
  }
}
