package dev.sqlagent.agent;

import dev.sqlagent.contract.ErrorType;
import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;

/**
 * prepare_repair: the failure goes into the history with its error type's strategy; an unknown table or column widens
 * the retrieval once (select_schema runs again) before the next attempt.
 */
final class PrepareRepair extends Step {

  PrepareRepair(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    ErrorType type = ErrorType.fromWireName(s.outcome.errorType());
    return new StepData.RepairStarted(type.wireName(), type.strategy());
  }

  @Override
  Future<RunState> apply(RunState s) {
    ErrorType type = ErrorType.fromWireName(s.outcome.errorType());
    boolean widen = (type == ErrorType.UNKNOWN_COLUMN || type == ErrorType.UNKNOWN_TABLE) && !s.widened;
    return Future.succeededFuture(s.with(c -> {
      c.record(s.outcome.attempt(s.attempt, type.strategy()));
      c.widened = s.widened || widen;
      c.needsTables = widen;
      c.report = RunState.Report.finished(new StepData.RepairPrepared(type.wireName(), type.strategy(),
          type.repairInstruction(), widen));
    }));
  }
}
