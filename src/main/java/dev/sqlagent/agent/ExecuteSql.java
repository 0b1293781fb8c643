package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** execute_sql: the statement the gate checked, run read-only; its rows, or PostgreSQL's verdict. */
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

  private static JsonObject resultData(GateReply reply) {
    GateReply.Result r = reply.result();
    return new JsonObject().put("sql", reply.sql()).put("row_count", r.rowCount()).put("truncated", r.truncated())
        .put("elapsed_ms", r.elapsedMs()).put("columns", r.columns());
  }
}
