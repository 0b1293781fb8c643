package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A finished run, as its asker, the query log, metrics, the evaluation, the CLI, MCP and the live edges all
 * read it. The JSON keys are the components in snake_case ({@link RecordJson}), so a new field is one
 * component here (annotated {@link OmitWhenNull} when most answers do not carry it) and the line in
 * {@link AgentRun} that sets it.
 *
 * @param answer the words: the model's wording of the result, the deterministic summary, a refusal or a give-up
 * @param sql the last SQL tried (bounded, as it ran, when answered), or null
 * @param attempts SQL attempts made
 * @param tablesUsed the retrieved tables the SQL names
 * @param columns {@code [{name, type}]} of the result; empty unless answered (null only in an answer that
 *     is not the agent's)
 * @param rows the result's rows, as arrays of cells
 * @param history every failed attempt, oldest first
 * @param cancelled the run was stopped (by its owner, an admin or its client going away) before it ended
 * @param user the asking user's name from the users file; absent without one
 * @param injectedFault the fault an evaluation injected into the first attempt
 * @param cancelMs for a cancelled run, the time from the cancel to the run's end (nothing left running)
 * @param candidates the last attempt's SQL candidates when there were several ({@code [{index, sql, ok,
 *     error_type, fingerprint, votes, chosen}]}), else null
 * @param conversationId the conversation the question is a turn of (null for evaluation questions, which stand alone)
 * @param answerSource "verified" when a verified query answered without the model, "person" when the SQL was one a
 *     person chose (edited, or a reading picked), else "model"
 * @param verifiedId the verified query that answered, when one did
 * @param verifiedQuestion that verified query's question
 * @param verifiedScore its similarity with the question (0-1)
 * @param worker clustered: the worker node that ran the question (set by the edge that chose it)
 * @param explanation for an answer, a short plain-English account of what its SQL does (tables, filters, grouping,
 *     ordering, limit), from the parsed statement without a model; absent when it could not be parsed
 * @param errorType for a give-up that is not the agent's own (its worker left the cluster: {@code worker_lost}),
 *     why; absent otherwise (the agent's give-ups say why in {@code history})
 * @param traceId the run's trace, when tracing is on (SQLAGENT_OTLP_ENDPOINT): find the question in the trace store by it
 * @param clarification the question has several readings and the run asks which one was meant
 *     ({@code needs_clarification}); the answer's SQL and rows are then the vote's pick
 * @param editedFrom for a run of SQL a person chose (edited, or a reading picked), the run it came from
 * @param chosenReading for a run of a reading a person picked, its number among that run's readings
 * @param client the asking client's address as the edge saw it (a trusted proxy's forwarded one), kept in the query
 *     log; absent for the command line and evaluation
 * @param sqlAsWritten for an answer whose SQL the gate's row cap changed ({@code sql} is the bounded text), the SQL as
 *     it was submitted, with its own LIMIT, FETCH and OFFSET: what an export of the answer runs under its own cap
 * @param metrics the governed metrics of the notes file that the question named and the SQL computes as defined (its
 *     expression and every filter), each with its definition; absent when none
 */
public record Answer(String question, String answer, String sql, int attempts, List<String> tablesUsed, boolean refused,
    boolean gaveUp, boolean cancelled, JsonArray columns, JsonArray rows, int rowCount, boolean truncated,
    List<Attempt> history, Tokens tokens, double costUsd, long latencyMs, String runId, String mode, String model,
    String source, @OmitWhenNull String user, @OmitWhenNull JsonObject injectedFault, @OmitWhenNull Long cancelMs,
    @OmitWhenNull JsonArray candidates, String conversationId, String answerSource, @OmitWhenNull Long verifiedId,
    @OmitWhenNull String verifiedQuestion, @OmitWhenNull Double verifiedScore, @OmitWhenNull String worker,
    @OmitWhenNull String errorType, @OmitWhenNull String explanation, @OmitWhenNull String traceId,
    @OmitWhenNull Clarification clarification, @OmitWhenNull String editedFrom, @OmitWhenNull Integer chosenReading,
    @OmitWhenNull String client, @OmitWhenNull String sqlAsWritten, @OmitWhenNull List<MetricDefinition> metrics)
    implements StepData {

  /** Model tokens of the whole run. */
  public record Tokens(long prompt, long completion) {}

  public Answer {
    tablesUsed = tablesUsed == null ? List.of() : List.copyOf(tablesUsed);
    history = history == null ? List.of() : List.copyOf(history);
    tokens = tokens == null ? new Tokens(0, 0) : tokens;
    metrics = metrics == null || metrics.isEmpty() ? null : List.copyOf(metrics);
  }

  /** The agent's own answer (no {@code worker} yet, no {@code errorType}). */
  public Answer(String question, String answer, String sql, int attempts, List<String> tablesUsed, boolean refused,
      boolean gaveUp, boolean cancelled, JsonArray columns, JsonArray rows, int rowCount, boolean truncated,
      List<Attempt> history, Tokens tokens, double costUsd, long latencyMs, String runId, String mode, String model,
      String source, String user, JsonObject injectedFault, Long cancelMs, JsonArray candidates, String conversationId,
      String answerSource, Long verifiedId, String verifiedQuestion, Double verifiedScore) {
    this(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount, truncated,
        history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs, candidates,
        conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, null, null, null, null, null, null,
        null, null, null, null);
  }

  /** A give-up that is not the agent's own ({@code errorType}), on {@code worker}, outside any trace. */
  public Answer(String question, String answer, String sql, int attempts, List<String> tablesUsed, boolean refused,
      boolean gaveUp, boolean cancelled, JsonArray columns, JsonArray rows, int rowCount, boolean truncated,
      List<Attempt> history, Tokens tokens, double costUsd, long latencyMs, String runId, String mode, String model,
      String source, String user, JsonObject injectedFault, Long cancelMs, JsonArray candidates, String conversationId,
      String answerSource, Long verifiedId, String verifiedQuestion, Double verifiedScore, String worker,
      String errorType) {
    this(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount, truncated,
        history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs, candidates,
        conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType, null, null, null,
        null, null, null, null, null);
  }

  /** The same answer asking which reading was meant. */
  public Answer asking(Clarification asked) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType,
        explanation, traceId, asked, editedFrom, chosenReading, client, sqlAsWritten, metrics);
  }

  /** The same answer, of SQL a person chose: edited from run {@code from}, or its reading {@code reading} (else null). */
  public Answer editedFrom(String from, Integer reading) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType,
        explanation, traceId, clarification, from, reading, client, sqlAsWritten, metrics);
  }

  /** The same answer, as the cluster's edge delivers it: naming the worker node that ran it. */
  public Answer onWorker(String workerName) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, workerName, errorType,
        explanation, traceId, clarification, editedFrom, chosenReading, client, sqlAsWritten, metrics);
  }

  /** The same answer, naming the trace of its run (null: none). */
  public Answer withTraceId(String id) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType,
        explanation, id, clarification, editedFrom, chosenReading, client, sqlAsWritten, metrics);
  }

  /** The same answer with a plain-English account of what its SQL does. */
  public Answer withExplanation(String text) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType, text,
        traceId, clarification, editedFrom, chosenReading, client, sqlAsWritten, metrics);
  }

  /** The same answer, asked from the client at {@code address}. */
  public Answer withClient(String address) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType,
        explanation, traceId, clarification, editedFrom, chosenReading, address, sqlAsWritten, metrics);
  }

  /** The same answer, its SQL as submitted before the row cap changed it. */
  public Answer withSqlAsWritten(String written) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType,
        explanation, traceId, clarification, editedFrom, chosenReading, client, written, metrics);
  }

  /** The same answer, naming the governed metrics its SQL computes as defined (empty or null: none). */
  public Answer withMetrics(List<MetricDefinition> used) {
    return new Answer(question, answer, sql, attempts, tablesUsed, refused, gaveUp, cancelled, columns, rows, rowCount,
        truncated, history, tokens, costUsd, latencyMs, runId, mode, model, source, user, injectedFault, cancelMs,
        candidates, conversationId, answerSource, verifiedId, verifiedQuestion, verifiedScore, worker, errorType,
        explanation, traceId, clarification, editedFrom, chosenReading, client, sqlAsWritten, used);
  }

  /** Whether a verified query answered, without the model. */
  public boolean fromVerified() {
    return "verified".equals(answerSource);
  }

  /** Neither refused, given up nor cancelled: the SQL ran and its result is the answer. */
  public boolean answered() {
    return !refused && !gaveUp && !cancelled;
  }

  /** The run asks back which reading of the question was meant. */
  public boolean needsClarification() {
    return clarification != null && !refused && !gaveUp && !cancelled;
  }

  /** "answered", "refused", "gave_up", "cancelled" or "needs_clarification". */
  public String outcome() {
    return cancelled ? "cancelled" : refused ? "refused" : gaveUp ? "gave_up"
        : clarification != null ? NEEDS_CLARIFICATION : "answered";
  }

  /** The outcome of a run that asks which reading was meant. */
  public static final String NEEDS_CLARIFICATION = "needs_clarification";

  /** The record's fields and its {@link #outcome()}, which every edge's answer shows (read back, it is derived again). */
  public JsonObject toJson() {
    return RecordJson.toJson(this).put("outcome", outcome());
  }

  /** Throws IllegalArgumentException for a value of the wrong type. */
  /** The run an answer's JSON names, even when the rest cannot be read ({@code "?"} when it names none): for a log line. */
  public static String runIdIn(JsonObject json) {
    return json != null && json.getValue("run_id") instanceof String id ? id : "?";
  }

  public static Answer fromJson(JsonObject json) {
    return RecordJson.fromJson(Answer.class, json);
  }
}
