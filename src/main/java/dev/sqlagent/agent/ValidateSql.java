package dev.sqlagent.agent;

import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;

/**
 * validate_sql: the gate's check of the statement (static check, row cap, plan check; nothing runs), one request and
 * its reply. A statement that passed goes to execute_sql, which asks the gate to run it: execute_sql is announced
 * before the statement is sent, so a watcher sees it running and can stop it.
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
    RunState sent = s.with(c -> c.lastSql = s.sql);
    return run.services().check(s.sql).map(reply -> {
      if (reply.ok()) return passed(sent, s.sql, reply.boundedSql(), reply.staticCheckVerdict());
      Outcome o = Outcome.fromGate(reply);
      RunState refused = sent.with(c -> {
        c.outcome = o;
        c.report = RunState.Report.failed(o.errorData());
      });
      return s.verifiedDirect == null ? refused : LookupVerified.fallBack(run, refused, reply, o).with(c -> c.report = refused.report);
    });
  }

  private static RunState passed(RunState s, String checked, String boundedSql, String staticCheck) {
    return s.with(c -> {
      c.checkedSql = checked;
      c.sql = boundedSql;
      c.report = RunState.Report.finished(new StepData.SqlChecked(boundedSql, staticCheck));
    });
  }
}
