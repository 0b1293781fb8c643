package dev.sqlagent.agent;

import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;
import java.util.ArrayList;
import java.util.List;

/** inject_fault: evaluation's recorded rewrite of the model's first SQL, so the repair loop has something to repair. */
final class InjectFault extends Step {


  InjectFault(RunContext run) {
    super(run);
  }

  /** Only the first attempt of a run that injects faults. */
  static boolean applies(RunContext run, RunState s) {
    return run.mutator() != null && s.attempt == 1;
  }


  @Override
  Future<RunState> apply(RunState s) {
    boolean voting = s.candidates != null;
    String original = voting ? s.candidates.get(0).sql() : s.sql;
    if (original == null) return Future.succeededFuture(s.reported(null));
    return Future.succeededFuture(run.mutator().mutate(original, run.faultKey()).map(m -> {
      StepData.FaultInjected fault = new StepData.FaultInjected(m.fault(), original, m.sql());
      return s.with(c -> {
        c.injectedFault = fault;
        if (voting) {
          List<Candidate> all = new ArrayList<>(s.candidates);
          all.set(0, all.get(0).withSql(m.sql()));
          c.candidates = all;
        } else {
          c.sql = m.sql();
        }
        c.report = RunState.Report.finished(fault);
      });
    }).orElse(s.reported(null)));
  }
}
