package dev.sqlagent.querylog;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.state.StoredText;
import io.vertx.sqlclient.Tuple;
import io.vertx.sqlclient.data.Numeric;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Set;

/** One row of {@code agent_query_log}, read from a finished run's answer JSON. */
record LogRow(String runId, String question, OffsetDateTime askedAt, String mode, String source, String finalSql,
    int attemptsUsed, String[] errorTypes, boolean gaveUp, boolean refused, Integer rowsReturned, int latencyMs,
    int promptTokens, int completionTokens, BigDecimal costUsd, String model, String userName, boolean cancelled,
    String conversationId, String traceId, String clientAddr) {

  /** The entries a person asks through; evaluation runs ("eval") are measurement, not use. */
  static final Set<String> LOGGED_SOURCES = Set.of("http", "ws", "eventbus", "cli", "mcp");

  static final String INSERT = """
      INSERT INTO agent_query_log (run_id, question, asked_at, mode, source, final_sql, attempts_used, error_types,
        gave_up, refused, rows_returned, latency_ms, prompt_tokens, completion_tokens, cost_usd, model, user_name, cancelled,
        conversation_id, trace_id, client_addr)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
      ON CONFLICT DO NOTHING""";

  /** Whether this answer is logged at all. */
  static boolean logged(Answer answer) {
    return LOGGED_SOURCES.contains(answer.source() == null ? "eventbus" : answer.source());
  }

  /**
   * The row for an answer received at {@code receivedAt}; the question was asked {@code latency_ms}
   * before. Throws IllegalArgumentException when the answer lacks what every answer has.
   */
  static LogRow fromAnswer(Answer a, Instant receivedAt) {
    if (a.runId() == null || a.question() == null) throw new IllegalArgumentException("the answer has no run_id or question");
    int latency = clampInt(a.latencyMs());
    String[] errors = a.history().stream().map(Attempt::errorType).filter(t -> t != null).map(LogRow::text)
        .toArray(String[]::new);
    return new LogRow(a.runId(), text(a.question()),
        OffsetDateTime.ofInstant(receivedAt.minusMillis(latency), ZoneOffset.UTC),
        clip(a.mode() == null ? "agent" : a.mode(), 10), clip(a.source() == null ? "eventbus" : a.source(), 10),
        text(a.sql()), a.attempts(), errors, a.gaveUp(), a.refused(), a.answered() ? a.rowCount() : null, latency,
        clampInt(a.tokens().prompt()), clampInt(a.tokens().completion()), new BigDecimal(Double.toString(a.costUsd())),
        text(a.model()), text(a.user()), a.cancelled(), text(a.conversationId()), text(a.traceId()),
        a.client() == null ? null : clip(text(a.client()), 100));
  }

  Tuple tuple() {
    return Tuple.wrap(new ArrayList<>(java.util.Arrays.asList(runId, question, askedAt, mode, source, finalSql,
        attemptsUsed, errorTypes, gaveUp, refused, rowsReturned, latencyMs, promptTokens, completionTokens,
        Numeric.create(costUsd), model, userName, cancelled, conversationId, traceId, clientAddr)));
  }

  /** PostgreSQL text cannot hold NUL; everything else is stored as given. */
  private static String text(String s) {
    return StoredText.of(s);
  }

  private static String clip(String s, int max) {
    String t = text(s);
    return t == null || t.length() <= max ? t : t.substring(0, max);
  }

  private static int clampInt(long n) {
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE, n));
  }
}
