package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.StepData;

/**
 * What one execution (or its refusal) came to, as inspect_result and decide see it: the gate's result, or why there
 * is none and whether it was a write the gate refused.
 */
record Outcome(boolean ok, GateReply.Result result, String errorType, String message, String hint, Integer position,
    String sql, boolean writeRefused) {

  static Outcome failure(String errorType, String message, String hint, Integer position, String sql) {
    return new Outcome(false, null, errorType, message, hint, position, sql, false);
  }

  static Outcome fromGate(GateReply reply) {
    if (reply.ok()) return new Outcome(true, reply.result(), null, null, null, null, reply.sql(), false);
    GateError e = reply.error();
    return new Outcome(false, null, e.type().wireName(), e.message(), e.hint(), e.position(), e.sql(),
        reply.writeRefused());
  }

  /** The failure as a failed step's event carries it. */
  StepData.SqlFailed errorData() {
    return new StepData.SqlFailed(errorType, message, hint, position, sql);
  }

  /** The failure as the history keeps it. */
  Attempt attempt(int attempt, String strategy) {
    return new Attempt(attempt, sql, errorType, message, hint, position, strategy);
  }
}
