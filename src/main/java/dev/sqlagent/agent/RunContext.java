package dev.sqlagent.agent;

import dev.sqlagent.contract.VerifiedMessages;
import dev.sqlagent.contract.FirstSqlMutator;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.display.ColumnFormat;
import dev.sqlagent.display.ResultText;
import dev.sqlagent.users.User;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What stays the same for the whole of one run: the question and who asked it, its options, its events, its stop
 * control and the services it asks; and the one place its answer is built.
 *
 * @param agentMode false in baseline mode: one attempt, no repair, no probe
 * @param lookupVerified the verified queries are looked up (evaluation measures the model, so it does not)
 * @param candidates SQL candidates per attempt
 * @param mutator evaluation's fault injection into the first SQL, or null
 * @param conversationText the conversation's earlier turns as prompt text, or null
 * @param traceId the run's trace (its answer names it), or null when tracing is off
 * @param chosen SQL a person chose (an edited answer's, or a reading) that the run checks and runs, or null
 */
record RunContext(Vertx vertx, AgentSettings settings, RunEvents events, RunControl control, RunServices services,
    String runId, String question, User user, String source, boolean agentMode, boolean lookupVerified, int candidates,
    FirstSqlMutator mutator, String faultKey, String conversationId, String conversationText, long startedAt,
    String traceId, Chosen chosen) {

  /**
   * SQL a person chose rather than the model wrote: the run starts at validate_sql with it, is never repaired by the
   * model and its answer is the plain summary (no model call at all).
   *
   * @param from the run whose answer was edited or whose reading was picked
   * @param reading the reading's number, or null for an edit
   */
  record Chosen(String sql, String from, Integer reading) {}

  /** The run checks and runs SQL a person chose: no model call, no repair. */
  boolean personChose() {
    return chosen != null;
  }

  /** A deterministic wording of the result, used when the model is not asked (or fails) to word it. */
  static String plainSummary(GateReply.Result r) {
    // The words are kept (a conversation's memory) and may be shown to others: a sensitive column's values masked in them.
    return ResultText.summary(dev.sqlagent.policy.ResultMasking.maskedColumns(r.columns()),
        dev.sqlagent.policy.ResultMasking.masked(r.columns(), r.rows()), r.rowCount(), r.truncated());
  }

  /**
   * The run's answer, built in this one place: the words, the SQL, the result when there is one, whose run it is, and
   * for a cancelled run how long the cancel took to leave nothing running.
   */
  Answer answerOf(RunState s, String text, String sql, boolean refused, boolean gaveUp, boolean cancelled,
      GateReply.Result result) {
    long now = System.currentTimeMillis();
    VerifiedMessages.Match verified = s.verifiedUsed;
    Answer answer = new Answer(question, text, sql, s.attempt, tablesUsed(s.retrieval, sql), refused, gaveUp, cancelled,
        result == null ? new JsonArray() : ColumnFormat.annotate(result.columns()),
        result == null ? new JsonArray() : result.rows(),
        result == null ? 0 : result.rowCount(), result != null && result.truncated(), s.history,
        new Answer.Tokens(s.usage.promptTokens(), s.usage.completionTokens()), s.usage.costUsd(), now - startedAt, runId,
        agentMode ? "agent" : "baseline", s.usage.model(), source, user == null ? null : user.name(),
        s.injectedFault == null ? null : s.injectedFault.toJson(),
        cancelled ? Long.valueOf(now - control.cancelledAt()) : null,
        s.lastCandidates == null ? null : s.lastCandidates.copy(), conversationId,
        verified != null ? "verified" : chosen != null ? "person" : "model",
        verified == null ? null : verified.verifiedId(),
        verified == null ? null : verified.question(),
        verified == null ? null : verified.score()).withTraceId(traceId)
        .withMetrics(refused || gaveUp || cancelled ? null : MetricUse.in(s.retrieval, sql));
    return chosen == null ? answer : answer.editedFrom(chosen.from(), chosen.reading());
  }

  /** The retrieved tables the SQL names. */
  private static List<String> tablesUsed(Retrieval retrieval, String sql) {
    List<String> tables = new ArrayList<>();
    if (retrieval != null && sql != null) {
      String lower = sql.toLowerCase(Locale.ROOT);
      for (String name : retrieval.tableNames()) {
        if (Pattern.compile("\\b" + Pattern.quote(name.toLowerCase(Locale.ROOT)) + "\\b").matcher(lower).find()) tables.add(name);
      }
    }
    return tables;
  }
}
