package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;

/**
 * execute_sql: the statement validate_sql's check passed, sent to the gate to run (announced before it is sent, so a
 * watcher sees it running); its rows, or the gate's verdict. The gate checks it again as it runs it: the schema, the
 * role's grants or the plan may have changed since the check.
 */
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
    return run.services().gate(s.checkedSql).map(reply -> {
      Outcome o = Outcome.fromGate(reply);
      RunState.Report report = o.ok() ? RunState.Report.finished(resultData(reply)) : RunState.Report.failed(o.errorData());
      RunState ran = s.with(c -> {
        c.checkedSql = null;
        c.outcome = o;
        c.report = report;
      });
      if (s.verifiedDirect == null) return ran;
      if (!o.ok()) return LookupVerified.fallBack(run, ran, reply, o).with(c -> c.report = report);
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
