package dev.sqlagent.display;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.GraphEvent;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class StepLineTest {

  private static GraphEvent event(String node, String status, int attempt, JsonObject data) {
    return new GraphEvent("r", 1, 0, node, status, attempt, "tool", data, null, null);
  }

  @Test
  void aFinishedStepSaysWhatItFound() {
    assertThat(StepLine.of(event("execute_sql", GraphEvent.FINISHED, 1,
        new JsonObject().put("row_count", 12).put("elapsed_ms", 34).put("truncated", false))))
        .isEqualTo("execute_sql finished: 12 rows in 34 ms");
    assertThat(StepLine.of(event("execute_sql", GraphEvent.FINISHED, 1,
        new JsonObject().put("row_count", 1).put("elapsed_ms", 5).put("truncated", true))))
        .isEqualTo("execute_sql finished: 1 row in 5 ms (truncated)");
    assertThat(StepLine.of(event("select_schema", GraphEvent.FINISHED, 1, new JsonObject().put("tables", new JsonArray()
        .add(new JsonObject().put("name", "orders")).add(new JsonObject().put("name", "customers"))))))
        .isEqualTo("select_schema finished: tables orders, customers");
    assertThat(StepLine.of(event("prepare_repair", GraphEvent.FINISHED, 1,
        new JsonObject().put("strategy", "fix_column").put("error_type", "unknown_column"))))
        .isEqualTo("prepare_repair finished: fix_column for unknown_column");
  }

  @Test
  void aFailedStepSaysItsErrorAndALaterAttemptItsNumber() {
    assertThat(StepLine.of(event("validate_sql", GraphEvent.FAILED, 2,
        new JsonObject().put("error_type", "rejected").put("message", "not a SELECT"))))
        .isEqualTo("validate_sql failed: rejected: not a SELECT (attempt 2)");
  }

  @Test
  void aStartedStepOrOneWithoutItsFieldsIsNamedOnly() {
    assertThat(StepLine.of(event("generate_sql", GraphEvent.STARTED, 1, new JsonObject().put("model", "m"))))
        .isEqualTo("generate_sql started");
    assertThat(StepLine.of(event("execute_sql", GraphEvent.FINISHED, 1, new JsonObject()))).isEqualTo("execute_sql finished");
    assertThat(StepLine.of(event("a_node_added_later", GraphEvent.FINISHED, 1, new JsonObject().put("x", 1))))
        .isEqualTo("a_node_added_later finished");
  }

  @Test
  void theLineIsOneShortLine() {
    String line = StepLine.of(event("answer", GraphEvent.FINISHED, 1,
        new JsonObject().put("answer", "There are\nmany rows: " + "x".repeat(500))));
    assertThat(line).startsWith("answer finished: There are many rows: ").doesNotContain("\n").hasSize(StepLine.MAX_CHARS);
  }
}
