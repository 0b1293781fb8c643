package dev.sqlagent.agent;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.Node;
import dev.sqlagent.generation.ModelReply;
import dev.sqlagent.verified.WorkedExamples;
import io.vertx.core.Future;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
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
  JsonObject started(RunState s) {
    return new JsonObject().put("model", s.usage.model()).put("repair", !s.history.isEmpty());
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
        run.events().progress(Node.GENERATE_SQL, s.attempt, new JsonObject().put("delta", text)));
    return run.services().generateSql(messages, true, null, 1, run.services().remaining())
        .eventually(deltas::unregister)
        .map(reply -> read(s.with(c -> {
          c.usage = s.usage.plus(reply);
          c.outcome = null;
          c.refusal = null;
        }), reply));
  }

  private RunState read(RunState s, Completion reply) {
    String content = reply.content() == null ? "" : reply.content();
    JsonObject data = new JsonObject().put("model", s.usage.model()).put("prompt_tokens", reply.promptTokens())
        .put("completion_tokens", reply.completionTokens()).put("latency_ms", reply.latencyMs());
    try {
      ModelReply parsed = ModelReply.parse(content);
      RunState.Report report = RunState.Report.finished(data.put("sql", parsed.sql()).put("explanation", parsed.explanation()));
      if (parsed.refused()) {
        return s.with(c -> {
          c.refusal = parsed.explanation() == null ? "" : parsed.explanation();
          c.next = Node.ANSWER;
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
          c.next = Node.VOTE;
          c.report = RunState.Report.finished(report.data().put("readings", readings.size()));
        });
      }
      return s.with(c -> {
        c.sql = parsed.sql();
        c.modelReadings = false;
        c.next = InjectFault.applies(run, s) ? Node.INJECT_FAULT : Node.VALIDATE_SQL;
        c.report = report;
      });
    } catch (ModelReply.InvalidModelOutput invalid) {
      return s.with(c -> {
        c.outcome = Outcome.failure(ErrorType.MODEL_OUTPUT_INVALID.wireName(), invalid.reason(), null, null,
            content.length() <= 2_000 ? content : content.substring(0, 2_000) + "…");
        c.next = Node.DECIDE;
        c.report = RunState.Report.failed(data.put("error_type", invalid.errorType()).put("message", invalid.reason()));
      });
    }
  }
}
