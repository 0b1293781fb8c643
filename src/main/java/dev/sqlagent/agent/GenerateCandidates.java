package dev.sqlagent.agent;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.generation.ModelReply;
import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;
import java.util.ArrayList;
import java.util.List;

/**
 * generate_sql with several candidates: the model is asked for n replies (the API's {@code n} in one call, topped up
 * with single calls when the server returns fewer); each is read as a candidate for the {@link Vote}.
 */
final class GenerateCandidates extends Step {


  GenerateCandidates(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    return new StepData.CandidatesAsked(s.usage.model(), !s.history.isEmpty(), run.candidates(),
        run.settings().candidateTemperature());
  }

  @Override
  Future<RunState> apply(RunState s) {
    int n = run.candidates();
    List<ChatRequest.Message> messages = PromptBuilder.sqlMessages(run.question(), s.retrieval, s.history,
        GenerateSql.repairInstruction(s));
    List<Completion> replies = new ArrayList<>();
    return generate(messages, n).compose(first -> {
      replies.add(first);
      List<String> texts = new ArrayList<>();
      texts.add(first.content() == null ? "" : first.content());
      texts.addAll(first.alternatives());
      List<Future<Completion>> more = new ArrayList<>();
      for (int i = texts.size(); i < n; i++) more.add(generate(messages, 1));
      // A top-up call that fails costs that candidate only; the round goes on with the others.
      return Future.join(more).transform(ar -> {
        for (Future<Completion> f : more) {
          if (f.succeeded()) {
            replies.add(f.result());
            texts.add(f.result().content() == null ? "" : f.result().content());
          }
        }
        return Future.succeededFuture(texts.subList(0, Math.min(n, texts.size())));
      });
    }).map(texts -> {
      List<Candidate> parsed = new ArrayList<>();
      for (int i = 0; i < texts.size(); i++) parsed.add(parse(i, texts.get(i)));
      RunState.Usage usage = s.usage;
      for (Completion reply : replies) usage = usage.plus(reply);
      RunState.Usage used = usage;
      return s.with(c -> {
        c.usage = used;
        c.outcome = null;
        c.refusal = null;
        c.candidates = parsed;
        c.report = RunState.Report.finished(new StepData.CandidatesWritten(
            parsed.stream().map(p -> new StepData.CandidateSql(p.index(), p.sql())).toList()));
      });
    });
  }

  private Future<Completion> generate(List<ChatRequest.Message> messages, int n) {
    return run.services().generateSql(messages, false, run.settings().candidateTemperature(), n, run.services().remaining());
  }

  private static Candidate parse(int index, String text) {
    try {
      ModelReply reply = ModelReply.parse(text);
      if (reply.refused()) {
        return new Candidate(index, null, Outcome.failure("refused", reply.explanation(), null, null, null), null,
            reply.explanation(), true);
      }
      return new Candidate(index, reply.sql(), null, null, reply.explanation(), false);
    } catch (ModelReply.InvalidModelOutput invalid) {
      return new Candidate(index, null, Outcome.failure(ErrorType.MODEL_OUTPUT_INVALID.wireName(), invalid.reason(), null,
          null, text.length() <= 2_000 ? text : text.substring(0, 2_000) + "…"), null, null, false);
    }
  }
}
