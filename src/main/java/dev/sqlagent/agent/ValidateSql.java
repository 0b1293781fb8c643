package dev.sqlagent.agent;

import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;

/**
 * validate_sql: the gate's static check, row cap and plan check. One gate request serves validate_sql and execute_sql;
 * the gate reports when its checks have passed and holds the statement until execute_sql has started
 * ({@link GateCall}), so each step is published when it happens.
 */
final class ValidateSql extends Step {


  ValidateSql(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    return new StepData.SqlStarted(s.sql);
  }

  @Override
  Future<RunState> apply(RunState s) {
    GateCall call = run.services().gateLive(s.sql);
    RunState sent = s.with(c -> c.lastSql = s.sql);
    return call.checkedOrReplied().map(progress -> {
      if (progress != null) return passed(sent, call, progress.boundedSql(), progress.staticCheck());
      var reply = call.reply().result();
      if (reply.passedChecks()) return passed(sent, call, reply.boundedSql(), reply.staticCheckVerdict());
      Outcome o = Outcome.fromGate(reply);
      RunState refused = sent.with(c -> {
        c.outcome = o;
        c.report = RunState.Report.failed(o.errorData());
      });
      return s.verifiedDirect == null ? refused : LookupVerified.fallBack(run, refused, reply, o, refused.report);
    });
  }

  private static RunState passed(RunState s, GateCall call, String boundedSql, String staticCheck) {
    return s.with(c -> {
      c.gateCall = call;
      c.sql = boundedSql;
      c.report = RunState.Report.finished(new StepData.SqlChecked(boundedSql, staticCheck));
    });
  }
}
