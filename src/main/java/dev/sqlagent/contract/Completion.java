package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The reply of {@code Addresses.GENERATE}: the model's text and what the call cost. {@code usageEstimated}
 * is true when the server reported no usage and the token counts are characters / 4. {@code alternatives} holds
 * the text of further choices when several were asked for ({@code n}); tokens and cost cover them all.
 */
public record Completion(
    String content,
    String model,
    int promptTokens,
    int completionTokens,
    boolean usageEstimated,
    double costUsd,
    long latencyMs,
    int retries,
    int keyIndex,
    String finishReason,
    List<String> alternatives) {

  public Completion {
    alternatives = alternatives == null ? List.of() : List.copyOf(alternatives);
  }

  public Completion(String content, String model, int promptTokens, int completionTokens, boolean usageEstimated,
      double costUsd, long latencyMs, int retries, int keyIndex, String finishReason) {
    this(content, model, promptTokens, completionTokens, usageEstimated, costUsd, latencyMs, retries, keyIndex,
        finishReason, List.of());
  }

  public JsonObject toJson() {
    return new JsonObject()
        .put("content", content)
        .put("model", model)
        .put("prompt_tokens", promptTokens)
        .put("completion_tokens", completionTokens)
        .put("usage_estimated", usageEstimated)
        .put("cost_usd", costUsd)
        .put("latency_ms", latencyMs)
        .put("retries", retries)
        .put("key_index", keyIndex)
        .put("finish_reason", finishReason)
        .put("alternatives", new JsonArray(alternatives));
  }

  public static Completion fromJson(JsonObject j) {
    return new Completion(
        j.getString("content"),
        j.getString("model"),
        j.getInteger("prompt_tokens", 0),
        j.getInteger("completion_tokens", 0),
        j.getBoolean("usage_estimated", false),
        j.getDouble("cost_usd", 0.0),
        j.getLong("latency_ms", 0L),
        j.getInteger("retries", 0),
        j.getInteger("key_index", 0),
        j.getString("finish_reason"),
        j.getJsonArray("alternatives", new JsonArray()).stream().map(String::valueOf).toList());
  }

  /** Tokens estimated as characters / 4, at least 1 for any text (when the server does not count them). */
  public static int estimateTokens(int chars) {
    return chars == 0 ? 0 : Math.max(1, (chars + 3) / 4);
  }
}
