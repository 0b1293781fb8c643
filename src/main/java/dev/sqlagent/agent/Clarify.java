package dev.sqlagent.agent;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Clarification;
import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * clarify: the candidates' results split with no majority (or the model listed several readings whose results
 * differ), so the run ends asking which reading was meant ({@code needs_clarification}) instead of picking one in
 * silence. Each reading is a group of equal results: its SQL, a one-line description, its row count and a few rows
 * the other readings do not have. The answer still carries the vote's pick as its SQL and rows, for a client that
 * cannot ask. Its event, {@code clarify} finished, carries the answer with its {@code clarification}.
 */
final class Clarify extends Step {

  /** At most this many readings are offered. */
  static final int MAX_READINGS = 3;
  /** A description is one line of at most this many characters. */
  static final int MAX_DESCRIPTION = 160;

  Clarify(RunContext run) {
    super(run);
  }

  /**
   * Whether the run asks back: in agent mode, with three candidates or more configured (or readings the model listed),
   * when at least two different results came back and the largest group is not a majority of the candidates.
   */
  static boolean asks(CandidateVote.Result vote, int candidates, int configured, boolean modelReadings, boolean agentMode) {
    if (!agentMode || (configured < 3 && !modelReadings) || vote.votes().size() < 2) return false;
    int largest = vote.votes().values().stream().mapToInt(Integer::intValue).max().orElse(0);
    return largest * 2 <= candidates;
  }

  @Override
  Future<RunState> apply(RunState s) {
    Clarification asked = readings(s.split, s.modelReadings);
    GateReply.Result pick = s.outcome.result();
    Answer answer = run.answerOf(s, text(asked), s.outcome.sql(), false, false, false, pick).asking(asked);
    return Future.succeededFuture(s.with(c -> c.split = null).ended(answer, RunState.Report.finished(answer)));
  }

  /** The readings: one per group of equal results, the most voted first (ties: the group that came first). */
  static Clarification readings(List<Candidate> candidates, boolean modelReadings) {
    Map<String, List<Candidate>> groups = new LinkedHashMap<>();
    for (Candidate c : candidates) {
      if (c.fingerprint() != null) groups.computeIfAbsent(c.fingerprint(), f -> new ArrayList<>()).add(c);
    }
    List<List<Candidate>> ordered = new ArrayList<>(groups.values());
    ordered.sort((a, b) -> Integer.compare(b.size(), a.size()));  // stable: equal groups keep their order
    List<List<Candidate>> kept = ordered.subList(0, Math.min(MAX_READINGS, ordered.size()));
    // The model's words describe the readings when it gave each its own; the same words for all say nothing.
    Set<String> words = new HashSet<>();
    for (List<Candidate> group : kept) words.add(words(group.get(0)).toLowerCase(java.util.Locale.ROOT));
    boolean ownWords = words.size() == kept.size() && !words.contains("");
    List<Clarification.Reading> readings = new ArrayList<>();
    for (int i = 0; i < kept.size(); i++) {
      Candidate first = kept.get(i).get(0);
      GateReply.Result result = first.outcome().result();
      Set<String> elsewhere = new HashSet<>();
      List<String> otherSql = new ArrayList<>();
      for (int j = 0; j < kept.size(); j++) {
        if (j == i) continue;
        Candidate other = kept.get(j).get(0);
        otherSql.add(other.outcome().sql());
        for (Object row : other.outcome().result().rows()) elsewhere.add(((JsonArray) row).encode());
      }
      readings.add(new Clarification.Reading(i + 1, description(first, otherSql, ownWords), first.outcome().sql(),
          result.rowCount(), result.columns().copy(), sample(result.rows(), elsewhere), kept.get(i).size(), i == 0));
    }
    return new Clarification(modelReadings ? Clarification.MODEL_READINGS : Clarification.SPLIT_VOTE, readings);
  }

  /** A few rows, those no other reading has first: how this reading's result differs. */
  static JsonArray sample(JsonArray rows, Set<String> elsewhere) {
    JsonArray out = new JsonArray();
    for (Object row : rows) {
      if (out.size() == Clarification.Reading.SAMPLE_ROWS) return out;
      if (!elsewhere.contains(((JsonArray) row).encode())) out.add(((JsonArray) row).copy());
    }
    for (Object row : rows) {
      if (out.size() == Clarification.Reading.SAMPLE_ROWS) break;
      if (elsewhere.contains(((JsonArray) row).encode())) out.add(((JsonArray) row).copy());
    }
    return out;
  }

  private static String words(Candidate c) {
    return c.explanation() == null ? "" : c.explanation().strip().replaceAll("\\s+", " ");
  }

  /** The model's own words for the reading when each reading has its own, else what its SQL does that the others' do not. */
  static String description(Candidate c, List<String> otherSql, boolean ownWords) {
    String words = ownWords ? words(c) : SqlDifference.describe(c.outcome().sql(), otherSql);
    return words.length() <= MAX_DESCRIPTION ? words : words.substring(0, MAX_DESCRIPTION - 1) + "…";
  }

  /** The answer's words: the readings, each in a line, and what to do. */
  static String text(Clarification asked) {
    StringBuilder b = new StringBuilder("This question can be read in ").append(asked.readings().size())
        .append(" ways, and their results differ:");
    for (Clarification.Reading r : asked.readings()) {
      b.append(' ').append(r.reading()).append(") ").append(r.description()).append(" (")
          .append(r.rowCount()).append(r.rowCount() == 1 ? " row" : " rows").append(");");
    }
    b.setLength(b.length() - 1);
    return b.append(". Which one did you mean?").toString();
  }
}
