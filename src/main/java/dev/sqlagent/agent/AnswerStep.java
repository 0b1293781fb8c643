package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Node;
import io.vertx.core.Future;
import io.vertx.core.json.Json;
import dev.sqlagent.contract.StepData;
import java.util.List;
import java.util.regex.Pattern;

/**
 * answer: the result in words (the model's, when configured and prose, else a deterministic summary) with the SQL that
 * produced it; or a refusal (the model's, or a write the gate refused), which announces nothing before it. What the SQL
 * does in words is not on the answer's path: explain_sql publishes it after the answer went out.
 */
final class AnswerStep extends Step {

  private static final Pattern SQL_START = Pattern.compile(
      "(?is)^(select\\b|with\\s+(recursive\\s+)?\\S+\\s*(\\([^)]*\\)\\s*)?as\\s*(not\\s+)?(materialized\\s*)?\\()");


  AnswerStep(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    return s.refusal != null ? null : new StepData.AnswerStarted();
  }

  @Override
  Future<RunState> apply(RunState s) {
    if (s.refusal != null) {
      String text = s.refusal.isBlank() ? "The database cannot answer this question." : s.refusal;
      return Future.succeededFuture(ended(s, run.answerOf(s, text, s.outcome == null ? null : s.outcome.sql(), true,
          false, false, null)));
    }
    GateReply.Result r = s.outcome.result();
    String sql = s.outcome.sql();
    // Result rows reach the model only when the data policy lets them (SQLAGENT_MODEL_SEES=results).
    boolean worded = run.settings().modelSummary() && run.settings().modelSees().resultRows() && s.verifiedUsed == null
        && !run.personChose();
    Future<String> words = worded
        ? wordAnswer(sql, r).recover(err -> err instanceof RunControl.Stopped ? Future.failedFuture(err)
            : Future.succeededFuture(RunContext.plainSummary(r)))
        : Future.succeededFuture(RunContext.plainSummary(r));
    // The SQL as submitted, when the row cap changed it: an export runs it with its own LIMIT under the export's cap.
    String written = s.lastSql == null || s.lastSql.strip().equals(sql) ? null : s.lastSql;
    return words.map(text -> ended(s, run.answerOf(s, text, sql, false, false, false, r).withSqlAsWritten(written)));
  }

  private static RunState ended(RunState s, Answer answer) {
    return s.ended(answer, RunState.Report.finished(answer));
  }

  private Future<String> wordAnswer(String sql, GateReply.Result r) {
    List<ChatRequest.Message> messages = PromptBuilder.answerMessages(run.question(), sql, r.columns(), r.rows(),
        r.rowCount(), r.truncated());
    return run.services().generate(messages, false, null, 1, Math.max(1_000, run.services().remaining()))
        .map(reply -> {
          String text = reply.content() == null ? "" : reply.content().strip();
          return isProse(text) ? text : RunContext.plainSummary(r);
        });
  }

  /**
   * Whether the model's wording of an answer is prose to show as it is. Not prose: nothing, JSON (an object or an
   * array), SQL (it starts with SELECT or a WITH clause) or anything holding a code fence; the deterministic summary
   * stands in for those.
   */
  static boolean isProse(String text) {
    if (text == null || text.isBlank()) return false;
    String t = text.strip();
    if (t.contains("```") || SQL_START.matcher(t).find()) return false;
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        Json.decodeValue(t);
        return false;
      } catch (RuntimeException notJson) {
        return true;
      }
    }
    return true;
  }
}
