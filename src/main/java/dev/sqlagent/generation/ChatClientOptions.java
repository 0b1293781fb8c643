package dev.sqlagent.generation;

import dev.sqlagent.config.AppConfig;
import java.util.List;

/**
 * The model client's settings: the model's address, name, keys, call deadline, prices and connections from
 * the service configuration, and the retry policy (attempts per call for retryable failures, backoff).
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

  /** The service's model settings; the retry policy takes its defaults. */
  public static ChatClientOptions from(AppConfig c) {
    return new ChatClientOptions(c.llmBaseUrl(), c.llmModel(), c.llmApiKeys(), c.llmCallTimeoutMs(),
        c.promptPricePerMTok(), c.completionPricePerMTok(), DEFAULT_MAX_ATTEMPTS, DEFAULT_BACKOFF_BASE_MS,
        DEFAULT_BACKOFF_MAX_MS, c.llmMaxConnections());
  }

  @Override
  public String toString() {
    return "ChatClientOptions[" + baseUrl + " model=" + model + " keys=" + AppConfig.describeKeys(apiKeys)
        + " timeoutMs=" + callTimeoutMs + " attempts=" + maxAttempts + "]";
  }
}
