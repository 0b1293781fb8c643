package dev.sqlagent.agent;

import dev.sqlagent.contract.ErrorType;
import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;
import java.util.Locale;

/** decide: what follows an inspected result ({@link Decision}), within the attempt cap the graph hands it. */
final class Decide extends Step {

  /** The words of a refused write. */
  static final String WRITE_REFUSED =
      "This service only reads data; the request needs a change to the database, so it was not run.";

  private final int maxAttempts;

  Decide(RunContext run, int maxAttempts) {
    super(run);
    this.maxAttempts = maxAttempts;
  }

  @Override
  Future<RunState> apply(RunState s) {
    if (run.control().cancelled() || run.control().deadlinePassed()) return Future.failedFuture(new RunControl.Stopped("stopped"));
    Outcome o = s.outcome;
    ErrorType type = o.ok() ? null : ErrorType.fromWireName(o.errorType());
    boolean refusal = !o.ok() && o.writeRefused();
    int left = maxAttempts - s.attempt;
    Decision.Next next = Decision.decide(o.ok(), type != null && type.repairable(), refusal, left > 0,
        run.agentMode() && !run.personChose());
    RunState.Report report = RunState.Report.finished(new StepData.Decided(next.name().toLowerCase(Locale.ROOT),
        o.errorType(), left));
    return Future.succeededFuture(s.with(c -> {
      if (next == Decision.Next.REFUSE) {
        c.record(o.attempt(s.attempt, null));
        c.refusal = WRITE_REFUSED;
      }
      c.decision = next;
      c.report = report;
    }));
  }
}
