package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;

/** execute_sql: the statement the gate checked, run read-only; its rows, or PostgreSQL's verdict. */
final class ExecuteSql extends Step {


  ExecuteSql(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    return new StepData.SqlStarted(s.sql);
  }

  @Override
  Future<RunState> apply(RunState s) {
    GateCall call = s.gateCall;
    call.proceed();  // execute_sql has started: the gate may send the statement
    return call.reply().map(reply -> {
      Outcome o = Outcome.fromGate(reply);
      RunState.Report report = o.ok() ? RunState.Report.finished(resultData(reply)) : RunState.Report.failed(o.errorData());
      RunState ran = s.with(c -> {
        c.gateCall = null;
        c.outcome = o;
        c.report = report;
      });
      if (s.verifiedDirect == null) return ran;
      if (!o.ok()) return LookupVerified.fallBack(run, ran, reply, o, report);
      return ran.with(c -> {
        c.verifiedUsed = s.verifiedDirect;
        c.verifiedDirect = null;
        c.report = report;
      });
    });
  }

  private static StepData resultData(GateReply reply) {
    GateReply.Result r = reply.result();
    return new StepData.SqlRan(reply.sql(), r.rowCount(), r.truncated(), r.elapsedMs(), r.columns());
  }
}
