package dev.sqlagent.agent;

import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

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
  JsonObject started(RunState s) {
    return new JsonObject().put("sql", s.sql);
  }

  @Override
  Future<RunState> apply(RunState s) {
    return run.services().gate(s.checkedSql).map(reply -> {
      Outcome o = Outcome.fromGate(reply);
      RunState.Report report = o.ok() ? RunState.Report.finished(resultData(reply)) : RunState.Report.failed(o.errorData());
      RunState ran = s.with(c -> {
        c.checkedSql = null;
        c.outcome = o;
        c.next = Node.INSPECT_RESULT;
        c.report = report;
      });
      if (s.verifiedDirect == null) return ran;
      if (!o.ok()) return LookupVerified.fallBack(run, ran, reply, o).with(c -> c.report = report);
      return ran.with(c -> {
        c.verifiedUsed = s.verifiedDirect;
        c.verifiedDirect = null;
        c.next = Node.ANSWER;
        c.report = report;
      });
    });
  }

  private static JsonObject resultData(GateReply reply) {
    GateReply.Result r = reply.result();
    return new JsonObject().put("sql", reply.sql()).put("row_count", r.rowCount()).put("truncated", r.truncated())
        .put("elapsed_ms", r.elapsedMs()).put("columns", r.columns());
  }
}
