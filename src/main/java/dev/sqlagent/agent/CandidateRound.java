package dev.sqlagent.agent;

import dev.sqlagent.results.QueryResult;
import dev.sqlagent.results.ResultFingerprint;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.generation.ModelReply;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One attempt with several candidates: asks the model for n replies (the API's {@code n} in one call, topped
 * up with single calls when the server returns fewer), runs every candidate's SQL through the gate, a few at
 * a time, and votes among the results ({@link CandidateVote}). Every candidate, its verdict and the vote are
 * published as events.
 */
final class CandidateRound {

  /** Candidates run through the gate at the same time: the read-only pool is small and shared. */
  static final int GATE_PARALLELISM = 3;
  /** A query that orders its rows is compared in order; otherwise its rows are a multiset. */
  private static final Pattern ORDERS = Pattern.compile("(?i)\\border\\s+by\\b");

  /** What the round needs of its run: the model (accounted by the run) and the gate. */
  interface Steps {
    Future<JsonObject> generate(JsonObject request);

    /** The one gate request of a candidate: every stage's verdict, and the rows when all passed. */
    Future<GateReply> gate(String sql);
  }

  /** One candidate: its SQL (null when the reply was unusable or a refusal) and what the gate made of it. */
  record Candidate(int index, String sql, AgentRun.Outcome outcome, String fingerprint, String explanation,
      boolean refusal) {
    JsonObject toJson(CandidateVote.Result vote) {
      return new JsonObject().put("index", index).put("sql", sql).put("ok", outcome.ok())
          .put("error_type", outcome.errorType()).put("fingerprint", fingerprint)
          .put("votes", vote.votesFor(fingerprint)).put("chosen", index == vote.winner());
    }
  }

  /**
   * @param chosen the winner's outcome, else the most informative failure
   * @param others every other failure of the round (for the history), empty when a candidate won
   */
  record Round(List<Candidate> candidates, CandidateVote.Result vote, AgentRun.Outcome chosen,
      List<AgentRun.Outcome> others) {
    JsonArray toJson() {
      JsonArray a = new JsonArray();
      candidates.forEach(c -> a.add(c.toJson(vote)));
      return a;
    }

    /** Every candidate refused (the schema cannot answer, or a change was asked): the run refuses. */
    boolean allRefused() {
      return candidates.stream().allMatch(Candidate::refusal);
    }
  }

  private final RunEvents events;
  private final int attempt;
  private final Steps steps;
  private final Function<String, String> firstSql;

  /** @param firstSql applied to the first candidate's SQL (evaluation's fault injection) */
  CandidateRound(RunEvents events, int attempt, Steps steps, Function<String, String> firstSql) {
    this.events = events;
    this.attempt = attempt;
    this.steps = steps;
    this.firstSql = firstSql;
  }

  Future<Round> run(String runId, JsonArray messages, int n, double temperature, JsonObject started) {
    events.started("generate_sql", "generation", attempt, started.put("candidates", n).put("temperature", temperature));
    JsonObject request = new JsonObject().put("run_id", runId).put("messages", messages).put("stream", false)
        .put("temperature", temperature);
    return steps.generate(request.copy().put("n", n)).compose(first -> {
      List<String> texts = new ArrayList<>();
      texts.add(first.getString("content", ""));
      first.getJsonArray("alternatives", new JsonArray()).forEach(t -> texts.add(String.valueOf(t)));
      List<Future<JsonObject>> more = new ArrayList<>();
      for (int i = texts.size(); i < n; i++) more.add(steps.generate(request.copy()));
      // A top-up call that fails costs that candidate only; the round goes on with the others.
      return Future.join(more).transform(ar -> {
        for (Future<JsonObject> f : more) if (f.succeeded()) texts.add(f.result().getString("content", ""));
        return Future.succeededFuture(texts.subList(0, Math.min(n, texts.size())));
      });
    }).compose(texts -> {
      List<Candidate> parsed = new ArrayList<>();
      for (int i = 0; i < texts.size(); i++) parsed.add(parse(i, texts.get(i)));
      events.finished("generate_sql", "generation", attempt, new JsonObject().put("candidates", new JsonArray(
          parsed.stream().map(c -> new JsonObject().put("index", c.index()).put("sql", c.sql())).toList())));
      return runAll(parsed);
    }).map(this::vote);
  }

  private Candidate parse(int index, String text) {
    try {
      ModelReply reply = ModelReply.parse(text);
      if (reply.refused()) {
        return new Candidate(index, null, AgentRun.Outcome.failure("refused", reply.explanation(), null, null, null),
            null, reply.explanation(), true);
      }
      String sql = index == 0 ? firstSql.apply(reply.sql()) : reply.sql();
      return new Candidate(index, sql, null, null, reply.explanation(), false);
    } catch (ModelReply.InvalidModelOutput invalid) {
      return new Candidate(index, null, AgentRun.Outcome.failure(ErrorType.MODEL_OUTPUT_INVALID.wireName(),
          invalid.reason(), null, null, text.length() <= 2_000 ? text : text.substring(0, 2_000) + "…"), null, null, false);
    }
  }

  /** Every runnable candidate through the gate, at most {@link #GATE_PARALLELISM} at a time, in lanes. */
  private Future<List<Candidate>> runAll(List<Candidate> parsed) {
    Candidate[] done = parsed.toArray(new Candidate[0]);
    List<Future<Void>> lanes = new ArrayList<>();
    for (int lane = 0; lane < GATE_PARALLELISM; lane++) {
      Future<Void> chain = Future.succeededFuture();
      for (int i = lane; i < done.length; i += GATE_PARALLELISM) {
        int index = i;
        if (done[index].sql() == null) continue;
        chain = chain.compose(v -> check(done[index]).map(c -> {
          done[index] = c;
          return (Void) null;
        }));
      }
      lanes.add(chain);
    }
    return Future.all(lanes).map(v -> List.of(done));
  }

  private Future<Candidate> check(Candidate c) {
    events.started("candidate", "guardrail", attempt, new JsonObject().put("index", c.index()).put("sql", c.sql()));
    return steps.gate(c.sql()).map(reply -> {
      AgentRun.Outcome o = AgentRun.Outcome.fromGate(reply);
      if (!o.ok()) {
        events.failed("candidate", "guardrail", attempt, new JsonObject().put("index", c.index())
            .put("error_type", o.errorType()).put("message", o.message()).put("sql", o.sql()));
        return new Candidate(c.index(), c.sql(), o, null, c.explanation(), false);
      }
      GateReply.Result result = reply.result();
      String fingerprint = ResultFingerprint.of(QueryResult.fromJson(result.columns(), result.rows()),
          ORDERS.matcher(c.sql()).find());
      events.finished("candidate", "guardrail", attempt, new JsonObject().put("index", c.index())
          .put("sql", reply.sql()).put("row_count", result.rowCount()).put("fingerprint", fingerprint)
          .put("static_check", reply.staticCheckVerdict()));
      return new Candidate(c.index(), c.sql(), o, fingerprint, c.explanation(), false);
    });
  }

  private Round vote(List<Candidate> candidates) {
    CandidateVote.Result vote = CandidateVote.decide(candidates.stream().map(Candidate::fingerprint).toList());
    JsonArray groups = new JsonArray();
    vote.votes().forEach((f, v) -> groups.add(new JsonObject().put("fingerprint", f).put("votes", v)));
    events.finished("vote", "decision", attempt, new JsonObject().put("winner", vote.winner() < 0 ? null : vote.winner())
        .put("groups", groups).put("candidates", candidates.size()).put("changed", vote.winner() > 0));
    if (vote.winner() >= 0) return new Round(candidates, vote, candidates.get(vote.winner()).outcome(), List.of());
    List<AgentRun.Outcome> failures = candidates.stream().map(Candidate::outcome).toList();
    int best = CandidateVote.mostInformative(failures);
    List<AgentRun.Outcome> others = new ArrayList<>(failures);
    others.remove(best);
    return new Round(candidates, vote, failures.get(best), others);
  }
}
