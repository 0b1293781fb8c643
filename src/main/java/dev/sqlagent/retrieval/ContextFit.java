package dev.sqlagent.retrieval;

import dev.sqlagent.generation.ChatClient;
import dev.sqlagent.generation.ModelContext;
import io.vertx.core.Vertx;

/**
 * The schema and sample rows cut to the model's context. A small local model is often served with a context of
 * 2,048–8,192 tokens, and a prompt past it is refused (or its start silently dropped): the rules, the question, two
 * repairs and the reply keep {@link #RESERVED} tokens; of the rest, the schema text gets {@link #SCHEMA_SHARE} and the
 * sample rows what the schema leaves. The context is read from the model server (once known, kept; while unknown, asked
 * again at most every {@link #ASK_EVERY_MS}, since a local model may start after the service), else taken from
 * {@code SQLAGENT_LLM_CONTEXT_TOKENS}; with neither only {@code SQLAGENT_PROMPT_BUDGET} bounds the schema.
 */
final class ContextFit {

  /** Tokens kept for everything but schema and samples: rules (~700), question, two repairs, the reply. */
  static final int RESERVED = 2_048;
  static final double SCHEMA_SHARE = 0.6;
  /** Never less schema than this, however small the context: fewer columns than this cannot answer anything. */
  static final int MIN_SCHEMA = 256;
  static final long ASK_EVERY_MS = 60_000;

  private final Vertx vertx;
  private final String baseUrl;
  private final String model;
  private final String apiKey;
  private final int configured;
  private volatile Integer known;
  private volatile long askedAt = Long.MIN_VALUE;

  ContextFit(Vertx vertx, String baseUrl, String model, String apiKey, int configuredTokens) {
    this.vertx = vertx;
    this.baseUrl = baseUrl;
    this.model = model;
    this.apiKey = apiKey;
    this.configured = configuredTokens;
  }

  /** Asks the server now, unless it already said or was asked within the last minute. Never blocks. */
  void refresh() {
    long now = System.currentTimeMillis();
    if (known != null || now - askedAt < ASK_EVERY_MS) return;
    askedAt = now;
    ModelContext.probe(vertx, baseUrl, model, apiKey, 5_000).onSuccess(n -> {
      if (n != null) known = n;
    });
  }

  /** The model's context in tokens: as the server said, else as configured; null when neither. */
  Integer context() {
    refresh();
    return known != null ? known : configured > 0 ? configured : null;
  }

  /** The schema's budget: the configured one, cut to the context's share when the context is known. */
  static int schemaBudget(int promptBudget, Integer context) {
    if (context == null) return promptBudget;
    return Math.min(promptBudget, Math.max(MIN_SCHEMA, (int) ((context - RESERVED) * SCHEMA_SHARE)));
  }

  /** The sample rows text cut, whole lines from the end, to what the context leaves after the schema. */
  static String samples(String text, int schemaTokens, Integer context) {
    if (context == null || text == null) return text;
    int left = context - RESERVED - schemaTokens;
    if (ChatClient.estimate(text.length()) <= left) return text;
    if (left <= 0) return "";
    int cut = text.lastIndexOf('\n', Math.min(text.length(), left * 4));
    return cut <= 0 ? "" : text.substring(0, cut);
  }
}
