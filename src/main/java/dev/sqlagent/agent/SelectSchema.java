package dev.sqlagent.agent;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.contract.Retrieval;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** select_schema: the tables for the question, widened once after an unknown table or column. */
final class SelectSchema extends Step {


  SelectSchema(RunContext run) {
    super(run);
  }

  @Override
  JsonObject started(RunState s) {
    return new JsonObject().put("question", run.question()).put("widen", s.widened);
  }

  @Override
  Future<RunState> apply(RunState s) {
    Future<Retrieval> asked = s.retrievalAsked != null ? s.retrievalAsked : run.services().retrieve(run.question(), s.widened);
    return asked
        .map(reply -> s.with(c -> {
          c.retrieval = reply;
          c.retrievalAsked = null;
          c.needsTables = false;
          c.report = RunState.Report.finished(new JsonObject()
              .put("tables", new JsonArray(reply.tables().stream().map(ScoredTable::toJson).toList()))
              .put("top_k", reply.topK()).put("value_matches", reply.valueMatches().copy())
              .put("value_links", new JsonArray(reply.tables().stream().filter(t -> t.valueLink() != null)
                  .map(t -> t.name() + ": " + t.valueLink()).toList())));
        }))
        .recover(err -> {
          if (err instanceof RunControl.Stopped) return Future.failedFuture(err);
          String message = RunServices.describe(err);
          return Future.failedFuture(new InfrastructureFailure("retrieval_failed", "schema retrieval failed: " + message,
              new JsonObject().put("message", message)));
        });
  }
}
