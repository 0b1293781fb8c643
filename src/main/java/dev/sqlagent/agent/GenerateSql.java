package dev.sqlagent.agent;

import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.Node;
import dev.sqlagent.generation.ModelReply;
import dev.sqlagent.verified.WorkedExamples;
import io.vertx.core.Future;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import dev.sqlagent.contract.StepData;
import java.util.List;

/**
 * generate_sql: the model writes one SQL (streamed, each piece a progress event), or refuses, or answers with
 * something that is not a usable reply (an attempt that failed, decided on like any other).
 */
final class GenerateSql extends Step {


  GenerateSql(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    return new StepData.SqlAsked(s.usage.model(), !s.history.isEmpty());
  }

  /** The repair instruction for the last failure, or null on a first attempt. */
  static String repairInstruction(RunState s) {
    return s.history.isEmpty() ? null
        : ErrorType.fromWireName(s.history.get(s.history.size() - 1).errorType()).repairInstruction();
  }

  @Override
  Future<RunState> apply(RunState s) {
    List<ChatRequest.Message> messages = PromptBuilder.sqlMessages(run.question(), s.retrieval, s.history,
        repairInstruction(s), WorkedExamples.render(s.verifiedMatches, s.retrieval.terms()), run.conversationText());
    MessageConsumer<JsonObject> deltas = run.services().deltas(text ->
        run.events().progress(Node.GENERATE_SQL, s.attempt, new StepData.SqlDelta(text)));
    return run.services().generateSql(messages, true, null, 1, run.services().remaining())
        .compose(reply -> {
          Attempt repeated = repeatedFailure(s, reply);
          if (repeated == null) return Future.succeededFuture(List.of(reply));
          // A small model often answers a repair with the query that just failed, word for word, at temperature 0:
          // it is told so once and asked again with some randomness, rather than running a query known to fail.
          List<ChatRequest.Message> again = new java.util.ArrayList<>(messages);
          again.add(ChatRequest.Message.assistant(reply.content()));
          again.add(ChatRequest.Message.user("That is the query that already failed in attempt " + repeated.attempt() + " ("
              + repeated.errorType() + " - " + repeated.message() + "). Write a different query that avoids that error."
              + " Reply with the JSON object."));
          return run.services().generateSql(again, true, run.settings().candidateTemperature(), 1, run.services().remaining())
              .map(second -> List.of(reply, second));
        })
        .eventually(deltas::unregister)
        .map(replies -> {
          RunState.Usage usage = s.usage;
          for (Completion r : replies) usage = usage.plus(r);
          RunState.Usage total = usage;
          Completion used = replies.get(replies.size() - 1);
          return read(s.with(c -> {
            c.usage = total;
            c.outcome = null;
            c.refusal = null;
          }), used);
        });
  }

  /** The failed attempt whose SQL the reply repeats (spacing, case and a final semicolon aside), or null. */
  static Attempt repeatedFailure(RunState s, Completion reply) {
    if (s.history.isEmpty()) return null;
    String sql;
    try {
      sql = ModelReply.parse(reply.content()).sql();
    } catch (ModelReply.InvalidModelOutput e) {
      return null;
    }
    if (sql == null) return null;
    String mine = normalised(sql);
    for (Attempt a : s.history) {
      if (a.sql() != null && normalised(a.sql()).equals(mine)) return a;
    }
    return null;
  }

  private static String normalised(String sql) {
    return sql.strip().replaceAll(";+\\s*$", "").replaceAll("\\s+", " ").toLowerCase(java.util.Locale.ROOT);
  }

  private RunState read(RunState s, Completion reply) {
    String content = reply.content() == null ? "" : reply.content();
    String model = s.usage.model();
    try {
      ModelReply parsed = ModelReply.parse(content);
      RunState.Report report = RunState.Report.finished(new StepData.SqlWritten(model, reply.promptTokens(),
          reply.completionTokens(), reply.latencyMs(), parsed.sql(), parsed.explanation(), null));
      if (parsed.refused()) {
        return s.with(c -> {
          c.refusal = parsed.explanation() == null ? "" : parsed.explanation();
          c.report = report;
        });
      }
      List<ModelReply.Reading> readings = ModelReply.readings(content);
      if (!readings.isEmpty() && run.agentMode() && !InjectFault.applies(run, s)) {
        // The model says the question has several readings: each runs through the gate, and the run asks back
        // which one was meant when their results differ (Vote, Clarify).
        List<Candidate> candidates = new java.util.ArrayList<>();
        for (ModelReply.Reading r : readings) {
          candidates.add(new Candidate(candidates.size(), r.sql(), null, null, r.description(), false));
        }
        return s.with(c -> {
          c.candidates = candidates;
          c.modelReadings = true;
          c.report = RunState.Report.finished(new StepData.SqlWritten(model, reply.promptTokens(),
              reply.completionTokens(), reply.latencyMs(), parsed.sql(), parsed.explanation(), readings.size()));
        });
      }
      return s.with(c -> {
        c.sql = parsed.sql();
        c.modelReadings = false;
        c.report = report;
      });
    } catch (ModelReply.InvalidModelOutput invalid) {
      return s.with(c -> {
        c.outcome = Outcome.failure(ErrorType.MODEL_OUTPUT_INVALID.wireName(), invalid.reason(), null, null,
            content.length() <= 2_000 ? content : content.substring(0, 2_000) + "…");
        c.report = RunState.Report.failed(new StepData.ReplyUnusable(model, reply.promptTokens(),
            reply.completionTokens(), reply.latencyMs(), invalid.errorType(), invalid.reason()));
      });
    }
  }
}
