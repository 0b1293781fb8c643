package dev.sqlagent.generation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The model client's settings. From the service config (AppConfig.toJson()): llmBaseUrl, llmModel,
 * llmApiKeys, llmCallTimeoutMs, promptPricePerMTok, completionPricePerMTok; and, with defaults, the retry
 * policy: llmMaxAttempts (per call, for retryable failures), llmBackoffBaseMs, llmBackoffMaxMs.
 */
public record ChatClientOptions(
    String baseUrl,
    String model,
    List<String> apiKeys,
    long callTimeoutMs,
    double promptPricePerMTok,
    double completionPricePerMTok,
    int maxAttempts,
    long backoffBaseMs,
    long backoffMaxMs,
    int maxConnections) {

  public static final int DEFAULT_MAX_ATTEMPTS = 4;
  public static final long DEFAULT_BACKOFF_BASE_MS = 500;
  public static final long DEFAULT_BACKOFF_MAX_MS = 8_000;
  /** Connections to the model API: every question in flight may have a call open (SQLAGENT_LLM_MAX_CONNECTIONS). */
  public static final int DEFAULT_MAX_CONNECTIONS = 64;

  public ChatClientOptions {
    baseUrl = baseUrl.replaceAll("/+$", "");
    apiKeys = List.copyOf(apiKeys);
    if (apiKeys.size() > 2) throw new IllegalArgumentException("at most two API keys (primary, failover)");
    if (maxAttempts < 1) throw new IllegalArgumentException("maxAttempts must be at least 1");
    if (maxConnections < 1) throw new IllegalArgumentException("maxConnections must be at least 1");
  }

  public static ChatClientOptions fromConfig(JsonObject c) {
    List<String> keys = new ArrayList<>();
    JsonArray a = c.getJsonArray("llmApiKeys", new JsonArray());
    for (int i = 0; i < a.size(); i++) keys.add(a.getString(i));
    return new ChatClientOptions(
        c.getString("llmBaseUrl", "http://localhost:11434/v1"),
        c.getString("llmModel", "qwen2.5-coder:7b"),
        keys,
        c.getLong("llmCallTimeoutMs", 60_000L),
        c.getDouble("promptPricePerMTok", 0.0),
        c.getDouble("completionPricePerMTok", 0.0),
        c.getInteger("llmMaxAttempts", DEFAULT_MAX_ATTEMPTS),
        c.getLong("llmBackoffBaseMs", DEFAULT_BACKOFF_BASE_MS),
        c.getLong("llmBackoffMaxMs", DEFAULT_BACKOFF_MAX_MS),
        c.getInteger("llmMaxConnections", DEFAULT_MAX_CONNECTIONS));
  }

  @Override
  public String toString() {
    return "ChatClientOptions[" + baseUrl + " model=" + model + " keys=" + apiKeys.size() + "x" + Secrets.MASK
        + " timeoutMs=" + callTimeoutMs + " attempts=" + maxAttempts + "]";
  }
}
