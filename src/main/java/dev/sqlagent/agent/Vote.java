package dev.sqlagent.agent;

import dev.sqlagent.contract.Node;
import dev.sqlagent.results.QueryResult;
import dev.sqlagent.results.ResultFingerprint;
import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import dev.sqlagent.contract.StepData;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * vote: every candidate's SQL through the gate, a few at a time (each a {@code candidate} step), and a vote among
 * their results ({@link CandidateVote}). The winner goes on to inspect_result; when none succeeded, the most
 * informative failure is repaired with every other candidate's error in the history before it.
 */
final class Vote extends Step {

  /** Candidates run through the gate at the same time: the read-only pool is small and shared. */
  static final int GATE_PARALLELISM = 3;
  /** A query that orders its rows is compared in order; otherwise its rows are a multiset. */
  private static final Pattern ORDERS = Pattern.compile("(?i)\\border\\s+by\\b");


  Vote(RunContext run) {
    super(run);
  }


  @Override
  Future<RunState> apply(RunState s) {
    Candidate[] done = s.candidates.toArray(new Candidate[0]);
    List<Future<Void>> lanes = new ArrayList<>();
    for (int lane = 0; lane < GATE_PARALLELISM; lane++) {
      Future<Void> chain = Future.succeededFuture();
      for (int i = lane; i < done.length; i += GATE_PARALLELISM) {
        int index = i;
        if (done[index].sql() == null) continue;
        chain = chain.compose(v -> check(s.attempt, done[index]).map(c -> {
          done[index] = c;
          return (Void) null;
        }));
      }
      lanes.add(chain);
    }
    return Future.all(lanes).map(v -> vote(s, List.of(done)));
  }

  private Future<Candidate> check(int attempt, Candidate c) {
    run.events().started(Node.CANDIDATE, attempt, new StepData.CandidateChecking(c.index(), c.sql()));
    return run.services().gate(c.sql()).map(reply -> {
      Outcome o = Outcome.fromGate(reply);
      if (!o.ok()) {
        run.events().failed(Node.CANDIDATE, attempt, new StepData.CandidateFailed(c.index(), o.errorType(), o.message(),
            o.sql()));
        return new Candidate(c.index(), c.sql(), o, null, c.explanation(), false);
      }
      GateReply.Result result = reply.result();
      String fingerprint = ResultFingerprint.of(QueryResult.fromJson(result.columns(), result.rows()),
          ORDERS.matcher(c.sql()).find());
      run.events().finished(Node.CANDIDATE, attempt, new StepData.CandidateRan(c.index(), reply.sql(), result.rowCount(),
          fingerprint, reply.staticCheckVerdict()));
      return new Candidate(c.index(), c.sql(), o, fingerprint, c.explanation(), false);
    });
  }

  private RunState vote(RunState s, List<Candidate> candidates) {
    CandidateVote.Result vote = CandidateVote.decide(candidates.stream().map(Candidate::fingerprint).toList());
    List<StepData.VoteGroup> groups = new ArrayList<>();
    vote.votes().forEach((f, v) -> groups.add(new StepData.VoteGroup(f, v)));
    JsonArray round = new JsonArray();
    candidates.forEach(c -> round.add(c.toJson(vote)));
    RunState.Report report = RunState.Report.finished(new StepData.Voted(vote.winner() < 0 ? null : vote.winner(),
        groups, candidates.size(), vote.winner() > 0));
    boolean allRefused = candidates.stream().allMatch(Candidate::refusal);
    return s.with(c -> {
      c.lastCandidates = round;
      c.candidates = null;
      c.report = report;
      if (allRefused) {
        c.refusal = candidates.get(0).explanation() == null ? "" : candidates.get(0).explanation();
        return;
      }
      if (vote.winner() >= 0) {
        c.outcome = candidates.get(vote.winner()).outcome();
        c.lastSql = candidates.get(vote.winner()).sql();
        if (Clarify.asks(vote, candidates.size(), run.candidates(), s.modelReadings, run.agentMode())) {
          c.split = candidates;
        }
      } else {
        List<Outcome> failures = candidates.stream().map(Candidate::outcome).toList();
        int best = CandidateVote.mostInformative(failures);
        for (int i = 0; i < failures.size(); i++) if (i != best) c.record(failures.get(i).attempt(s.attempt, null));
        c.outcome = failures.get(best);
      }
    });
  }
}
