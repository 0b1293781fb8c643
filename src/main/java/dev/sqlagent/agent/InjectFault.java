package dev.sqlagent.agent;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
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
      JsonObject fault = new JsonObject().put("fault", m.fault()).put("original_sql", original).put("mutated_sql", m.sql());
      return s.with(c -> {
        c.injectedFault = fault;
        if (voting) {
          List<Candidate> all = new ArrayList<>(s.candidates);
          all.set(0, all.get(0).withSql(m.sql()));
          c.candidates = all;
        } else {
          c.sql = m.sql();
        }
        c.report = RunState.Report.finished(fault.copy());
      });
    }).orElse(s.reported(null)));
  }
}
