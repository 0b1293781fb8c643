package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import dev.sqlagent.contract.VerifiedMessages;
import dev.sqlagent.contract.StepData;
import java.util.List;

/**
 * lookup_verified: the verified queries closest to the question. The few closest become worked examples; a near-exact
 * one (its score at the threshold, naming the same values) is tried first, through the whole gate and without the
 * model. Shown as events only when the library has something to compare.
 */
final class LookupVerified extends Step {


  LookupVerified(RunContext run) {
    super(run);
  }


  @Override
  Future<RunState> apply(RunState s) {
    return run.services().lookupVerified(run.question())
        .map(reply -> {
          if (reply.candidates() == 0) return s.reported(null);
          List<VerifiedMessages.Match> matches = reply.ranked();
          VerifiedMessages.Match direct = reply.directMatch();
          List<StepData.VerifiedScore> scores = matches.stream()
              .map(m -> new StepData.VerifiedScore(m.verifiedId(), m.question(), m.score(), m.sameValues())).toList();
          RunState.Report report = RunState.Report.announced(new StepData.VerifiedAsked(run.question()),
              new StepData.VerifiedFound(reply.threshold(), reply.candidates(), scores,
                  direct == null ? null : direct.verifiedId()));
          return s.with(c -> {
            c.verifiedMatches = matches;
            c.report = report;
            if (direct != null) {
              c.attempt = 1;
              c.sql = direct.sql();
              c.verifiedDirect = direct;
            }
          });
        })
        .otherwise(err -> s.reported(null));  // no library (or it failed): the model answers
  }

  /**
   * A verified query the gate did not pass: when a check refused it (not a gate that did not answer, nor an execution
   * that failed) the schema moved under it and it is retired. The model answers instead, from select_schema;
   * {@code report} is the event of the node that failed it.
   */
  static RunState fallBack(RunContext run, RunState s, GateReply reply, Outcome o, RunState.Report report) {
    if (!reply.passedChecks() && reply.failedStage().isPresent()) {
      run.services().retireVerified(s.verifiedDirect.verifiedId(), o.errorType() + ": " + o.message());
    }
    return s.with(c -> {
      c.attempt = 0;
      c.verifiedDirect = null;
      c.needsTables = true;
      c.report = report;
    });
  }
}
