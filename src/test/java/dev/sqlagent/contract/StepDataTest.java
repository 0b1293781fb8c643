package dev.sqlagent.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The records of the graph events' data: the keys the page, the CLI and other clients read, and reading them back. */
class StepDataTest {

  static GraphEvent event(String node, String status, JsonObject data) {
    return new GraphEvent("run-1", 1, 0, node, status, 1, "tool", data, null, null);
  }

  @Test
  void eachRecordWritesTheKeysClientsRead() {
    Map<Class<? extends Record>, List<String>> keys = new LinkedHashMap<>();
    keys.put(StepData.VerifiedAsked.class, List.of("question"));
    keys.put(StepData.VerifiedFound.class, List.of("threshold", "candidates", "matches", "direct"));
    keys.put(StepData.VerifiedScore.class, List.of("verified_id", "question", "score", "same_values"));
    keys.put(StepData.SchemaAsked.class, List.of("question", "widen"));
    keys.put(StepData.SchemaSelected.class, List.of("tables", "top_k", "value_matches", "value_links"));
    keys.put(StepData.RetrievalFailed.class, List.of("message"));
    keys.put(StepData.SqlAsked.class, List.of("model", "repair"));
    keys.put(StepData.CandidatesAsked.class, List.of("model", "repair", "candidates", "temperature"));
    keys.put(StepData.SqlDelta.class, List.of("delta"));
    keys.put(StepData.SqlWritten.class, List.of("model", "prompt_tokens", "completion_tokens", "latency_ms", "sql",
        "explanation", "readings"));
    keys.put(StepData.CandidatesWritten.class, List.of("candidates"));
    keys.put(StepData.CandidateSql.class, List.of("index", "sql"));
    keys.put(StepData.ReplyUnusable.class, List.of("model", "prompt_tokens", "completion_tokens", "latency_ms",
        "error_type", "message"));
    keys.put(StepData.ModelFailed.class, List.of("error_type", "message"));
    keys.put(StepData.FaultInjected.class, List.of("fault", "original_sql", "mutated_sql"));
    keys.put(StepData.CandidateChecking.class, List.of("index", "sql"));
    keys.put(StepData.CandidateRan.class, List.of("index", "sql", "row_count", "fingerprint", "static_check"));
    keys.put(StepData.CandidateFailed.class, List.of("index", "error_type", "message", "sql"));
    keys.put(StepData.Voted.class, List.of("winner", "groups", "candidates", "changed"));
    keys.put(StepData.VoteGroup.class, List.of("fingerprint", "votes"));
    keys.put(StepData.SqlStarted.class, List.of("sql"));
    keys.put(StepData.SqlChecked.class, List.of("sql", "static_check"));
    keys.put(StepData.SqlRan.class, List.of("sql", "row_count", "truncated", "elapsed_ms", "columns"));
    keys.put(StepData.SqlFailed.class, List.of("error_type", "message", "hint", "position", "sql"));
    keys.put(StepData.Inspected.class, List.of("ok", "row_count"));
    keys.put(StepData.ProbeStarted.class, List.of("probe"));
    keys.put(StepData.ProbeSkipped.class, List.of("probe", "verdict", "row_count"));
    keys.put(StepData.Probed.class, List.of("probe", "relaxed_sql", "filters", "probe_rows", "verdict"));
    keys.put(StepData.Decided.class, List.of("next", "error_type", "attempts_left"));
    keys.put(StepData.RepairStarted.class, List.of("error_type", "strategy"));
    keys.put(StepData.RepairPrepared.class, List.of("error_type", "strategy", "instruction", "widened"));
    keys.put(StepData.AnswerStarted.class, List.of());
    keys.put(StepData.SqlExplained.class, List.of("sql", "explanation"));
    keys.forEach((type, expected) -> assertThat(RecordJson.keys(type)).as(type.getSimpleName()).containsExactlyElementsOf(expected));
    // Every record of the family is pinned above (Answer has its own keys test).
    assertThat(StepData.class.getPermittedSubclasses()).allSatisfy(c -> assertThat(c == Answer.class || keys.containsKey(c))
        .as(c.getSimpleName()).isTrue());
  }

  @Test
  void anEventIsReadBackIntoItsNodesRecord() {
    StepData.SqlRan ran = new StepData.SqlRan("SELECT 1 LIMIT 200", 1, false, 3L, new JsonArray().add("n"));
    assertThat(StepData.of(event("execute_sql", GraphEvent.FINISHED, ran.toJson()))).isEqualTo(ran);
    // One node, two records: told apart by their keys.
    StepData.SqlWritten one = new StepData.SqlWritten("m", 10, 5, 40L, "SELECT 1", "one", null);
    assertThat(one.toJson().fieldNames()).doesNotContain("readings");
    assertThat(StepData.of(event("generate_sql", GraphEvent.FINISHED, one.toJson()))).isEqualTo(one);
    StepData.CandidatesWritten several = new StepData.CandidatesWritten(List.of(new StepData.CandidateSql(0, "SELECT 1")));
    assertThat(StepData.of(event("generate_sql", GraphEvent.FINISHED, several.toJson()))).isEqualTo(several);
    StepData.SqlFailed failed = new StepData.SqlFailed("unknown_column", "no such column", null, null, "SELECT x");
    assertThat(failed.toJson().getMap()).containsEntry("hint", null);
    assertThat(StepData.of(event("validate_sql", GraphEvent.FAILED, failed.toJson()))).isEqualTo(failed);
  }

  @Test
  void aKeyItsRecordLacksIsRefused() {
    JsonObject extra = new StepData.SqlChecked("SELECT 1", "parsed").toJson().put("plan_cost", 1.5);
    assertThatThrownBy(() -> StepData.of(event("validate_sql", GraphEvent.FINISHED, extra)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plan_cost").hasMessageContaining("SqlChecked");
    // A record another node's event carries is not this node's.
    JsonObject decided = new StepData.Decided("answer", null, 2).toJson();
    assertThatThrownBy(() -> StepData.of(event("vote", GraphEvent.FINISHED, decided)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(StepData.allows(Node.DECIDE, GraphEvent.FINISHED, new StepData.Decided("answer", null, 2))).isTrue();
    assertThat(StepData.allows(Node.VOTE, GraphEvent.FINISHED, new StepData.Decided("answer", null, 2))).isFalse();
  }
}
