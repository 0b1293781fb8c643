package dev.sqlagent.agent;

import dev.sqlagent.contract.Answer;
import io.vertx.core.Future;

/** give_up: an honest end, with the last error and every query tried in the history. */
final class GiveUp extends Step {


  GiveUp(RunContext run) {
    super(run);
  }


  @Override
  Future<RunState> apply(RunState s) {
    Outcome last = s.outcome;
    RunState recorded = s.with(c -> c.record(last.attempt(s.attempt, null)));
    String reason = last.errorType() == null ? "unknown" : last.errorType();
    String text = run.personChose() ? chosenFailed(last) : "I could not answer this question"
        + (s.attempt > 0 ? " after " + s.attempt + (s.attempt == 1 ? " attempt" : " attempts") : "")
        + ". The last error was " + reason + ": " + last.message() + "."
        + (recorded.history.stream().anyMatch(a -> a.sql() != null && !a.sql().isBlank())
            ? " Every query tried is in the history." : " No query was run.");
    Answer answer = run.answerOf(recorded, text, last.sql(), false, true, false, null);
    return Future.succeededFuture(recorded.ended(answer, RunState.Report.finished(answer)));
  }

  /** SQL a person chose failed: PostgreSQL's (or the gate's) words and hint, left for the person to correct. */
  private static String chosenFailed(Outcome last) {
    String hint = last.hint() == null || last.hint().isBlank() ? "" : " Hint: " + last.hint().strip() + ".";
    return "The query did not run: " + (last.errorType() == null ? "unknown" : last.errorType()) + ": "
        + (last.message() == null ? "" : last.message().strip().replaceFirst("\\.$", "")) + "." + hint + " A query you wrote is not repaired by the model: correct it and run it again.";
  }
}
