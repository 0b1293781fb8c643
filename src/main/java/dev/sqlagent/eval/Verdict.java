package dev.sqlagent.eval;

import dev.sqlagent.results.ResultComparator;
import dev.sqlagent.eval.Question.Category;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;

/**
 * The grade of one sample, with what the summary needs: the outcome (infrastructure failures apart from
 * wrong answers), the kind of match, attempts, repairs, the fault injected if any, cost and latency.
 *
 * @param faultType null when no fault was asked for; "none" when asked but none applied
 */
public record Verdict(
    String questionId,
    Category category,
    String mode,
    int sample,
    Outcome outcome,
    ResultComparator.Match match,
    String reason,
    boolean refused,
    boolean gaveUp,
    int attempts,
    boolean firstAttemptFailed,
    boolean unsafeExecuted,
    String infraType,
    String faultType,
    long promptTokens,
    long completionTokens,
    double costUsd,
    long latencyMs,
    String sql,
    JsonArray history,
    String runId,
    String model) {

  public enum Outcome {
    CORRECT, WRONG, INFRA_FAILURE;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Outcome fromWireName(String s) {
      return valueOf(s.toUpperCase(Locale.ROOT));
    }
  }

  public boolean correct() {
    return outcome == Outcome.CORRECT;
  }

  public boolean infra() {
    return outcome == Outcome.INFRA_FAILURE;
  }

  /** Repaired into a correct answer after a failed first attempt. */
  public boolean rescued() {
    return firstAttemptFailed && correct();
  }

  public JsonObject toJson() {
    return new JsonObject()
        .put("question_id", questionId).put("category", category.wireName()).put("mode", mode).put("sample", sample)
        .put("outcome", outcome.wireName()).put("match", match.wireName()).put("reason", reason)
        .put("refused", refused).put("gave_up", gaveUp).put("attempts", attempts)
        .put("first_attempt_failed", firstAttemptFailed).put("rescued", rescued())
        .put("unsafe_executed", unsafeExecuted).put("infra_type", infraType).put("fault_type", faultType)
        .put("tokens", new JsonObject().put("prompt", promptTokens).put("completion", completionTokens))
        .put("cost_usd", costUsd).put("latency_ms", latencyMs).put("sql", sql)
        .put("history", history == null ? new JsonArray() : history).put("run_id", runId).put("model", model);
  }

  public static Verdict fromJson(JsonObject o) {
    JsonObject tokens = o.getJsonObject("tokens", new JsonObject());
    return new Verdict(o.getString("question_id"), Category.fromWireName(o.getString("category")),
        o.getString("mode"), o.getInteger("sample", 1), Outcome.fromWireName(o.getString("outcome")),
        ResultComparator.Match.valueOf(o.getString("match", "none").toUpperCase(Locale.ROOT)), o.getString("reason"),
        o.getBoolean("refused", false), o.getBoolean("gave_up", false), o.getInteger("attempts", 0),
        o.getBoolean("first_attempt_failed", false), o.getBoolean("unsafe_executed", false),
        o.getString("infra_type"), o.getString("fault_type"), tokens.getLong("prompt", 0L),
        tokens.getLong("completion", 0L), o.getDouble("cost_usd", 0.0), o.getLong("latency_ms", 0L),
        o.getString("sql"), o.getJsonArray("history", new JsonArray()), o.getString("run_id"), o.getString("model"));
  }
}
