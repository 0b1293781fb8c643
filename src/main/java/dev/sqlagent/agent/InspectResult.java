package dev.sqlagent.agent;

import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;
import java.util.List;

/**
 * inspect_result: zero rows is an answer, not a failure. One diagnostic, not a loop: when the query filters a column
 * by a string literal, re-run it once case- and space-insensitively; if rows appear, the filter was wrong
 * ({@code empty_filter}); otherwise nothing matches, honestly. A result whose aggregates are all zero or NULL
 * ({@link EmptyAggregate}) is probed the same way: an aggregate that moves under the relaxed filter is an
 * {@code empty_filter} too, one that stays is the honest zero. A plain inspection is one finished event; a probe
 * announces itself when it starts.
 */
final class InspectResult extends Step {

  private static final String PROBE_KIND = "tool";

  InspectResult(RunContext run) {
    super(run);
  }


  @Override
  Future<RunState> apply(RunState s) {
    Outcome o = s.outcome;
    if (!o.ok() || !run.agentMode() || s.probed || run.personChose()) return Future.succeededFuture(inspected(s));
    if (o.result().rowCount() == 0) return probe(s, List.of());
    if (!EmptyAggregate.mayBeEmpty(o.result())) return Future.succeededFuture(inspected(s));
    return run.vertx().executeBlocking(() -> EmptyAggregate.aggregateColumns(o.sql()), false)
        .compose(aggregates -> EmptyAggregate.isEmpty(o.result(), aggregates) ? probe(s, aggregates)
            : Future.succeededFuture(inspected(s)));
  }

  private static RunState inspected(RunState s) {
    Outcome o = s.outcome;
    return s.reported(RunState.Report.finished(new StepData.Inspected(o.ok(), o.ok() ? o.result().rowCount() : null)));
  }

  /** The one relaxed re-run; {@code aggregates} empty: the result had no rows, else its all-zero aggregate columns. */
  private Future<RunState> probe(RunState s, List<Integer> aggregates) {
    Outcome o = s.outcome;
    String probe = aggregates.isEmpty() ? "empty_result" : "empty_aggregate";
    RunState probed = s.with(c -> c.probed = true);
    run.events().started(Node.INSPECT_RESULT, PROBE_KIND, s.attempt, new StepData.ProbeStarted(probe));
    return run.vertx().executeBlocking(() -> FilterRelaxer.relax(o.sql()), false).compose(relaxed -> {
      if (relaxed.isEmpty()) {
        return Future.succeededFuture(probed.reported(RunState.Report.finished(
            new StepData.ProbeSkipped(probe, "no_text_filter", o.result().rowCount())).as(PROBE_KIND)));
      }
      return run.services().gate(relaxed.get().sql()).map(reply -> {
        GateReply.Result relaxedResult = reply.ok() ? reply.result() : null;
        int rows = relaxedResult == null ? 0 : relaxedResult.rowCount();
        boolean moved = aggregates.isEmpty() ? rows > 0 : rows > 0 && !EmptyAggregate.isEmpty(relaxedResult, aggregates);
        String relaxedSql = relaxed.get().sql();
        List<String> filters = relaxed.get().filters();
        if (!moved) {
          return probed.reported(RunState.Report.finished(
              new StepData.Probed(probe, relaxedSql, filters, rows, "empty_confirmed")).as(PROBE_KIND));
        }
        String found = aggregates.isEmpty()
            ? "the query returned no rows, but with its text filters compared case- and space-insensitively it returns "
                + rows + (rows == 1 ? " row" : " rows")
            : "the query's aggregates came to zero or NULL, but with its text filters compared case- and"
                + " space-insensitively they do not (first row: " + relaxedResult.rows().getJsonArray(0).encode() + ")";
        Outcome tooStrict = Outcome.failure(ErrorType.EMPTY_FILTER.wireName(),
            found + ": " + String.join(", ", relaxed.get().filters()),
            "stored values differ in case or spacing from the literals used; match the stored form exactly", null, o.sql());
        return probed.with(c -> {
          c.outcome = tooStrict;
          c.report = RunState.Report.finished(
              new StepData.Probed(probe, relaxedSql, filters, rows, "filter_too_strict")).as(PROBE_KIND);
        });
      });
    });
  }
}
