package dev.sqlagent.agent;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import dev.sqlagent.contract.StepData;

/** select_schema: the tables for the question, widened once after an unknown table or column. */
final class SelectSchema extends Step {


  SelectSchema(RunContext run) {
    super(run);
  }

  @Override
  StepData started(RunState s) {
    return new StepData.SchemaAsked(run.question(), s.widened);
  }

  @Override
  Future<RunState> apply(RunState s) {
    Future<Retrieval> asked = s.retrievalAsked != null ? s.retrievalAsked : run.services().retrieve(run.question(), s.widened);
    return asked
        .map(reply -> s.with(c -> {
          c.retrieval = reply;
          c.retrievalAsked = null;
          c.needsTables = false;
          c.report = RunState.Report.finished(new StepData.SchemaSelected(
              new JsonArray(reply.tables().stream().map(ScoredTable::toJson).toList()), reply.topK(),
              reply.valueMatches().copy(), reply.tables().stream().filter(t -> t.valueLink() != null)
                  .map(t -> t.name() + ": " + t.valueLink()).toList()));
        }))
        .recover(err -> {
          if (err instanceof RunControl.Stopped) return Future.failedFuture(err);
          String message = RunServices.describe(err);
          // Every connection of the retrieval's pool in use is the database being busy, not retrieval broken.
          boolean busy = err instanceof BusError e && e.failure() == BusFailure.BUSY;
          return Future.failedFuture(new InfrastructureFailure(busy ? "busy" : "retrieval_failed", "schema retrieval failed: " + message,
              new StepData.RetrievalFailed(message)));
        });
  }
}
