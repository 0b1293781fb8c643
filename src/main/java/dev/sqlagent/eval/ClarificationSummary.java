package dev.sqlagent.eval;

import dev.sqlagent.contract.Answer;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How often the agent asked back (needs_clarification) per summary column, and what asking is worth: the accuracy
 * when the vote's pick is taken as the answer (what the grader grades: the answer's SQL and rows are the pick) against
 * the accuracy when the reading a person would choose is taken — a question asked back counts as correct when one of
 * its readings gives the gold result (the reading a person who knows what they meant would pick).
 */
final class ClarificationSummary {

  private ClarificationSummary() {}

  /** For each sample that asked back, whether one of its readings gives the gold result; keyed as {@link #key}. */
  static Future<Map<String, Boolean>> gradeReadings(Grader grader, List<Question> questions, List<Sample> samples) {
    Map<String, Boolean> out = new HashMap<>();
    List<Integer> asked = new java.util.ArrayList<>();
    for (int i = 0; i < samples.size(); i++) if (askedBack(samples.get(i)) != null) asked.add(i);
    return Grader.inTurn(asked, i -> grader.anyReadingCorrect(questions.get(i), askedBack(samples.get(i)))
            .map(correct -> {
              Sample s = samples.get(i);
              out.put(key(s.questionId(), s.mode(), s.sample()), correct);
              return correct;
            }))
        .map(done -> out);
  }

  /** Adds {@code clarification} to each mode of {@code summary}; returns the summary. */
  static JsonObject addTo(JsonObject summary, List<Sample> samples, List<Verdict> verdicts, Map<String, Boolean> readingCorrect) {
    Map<String, Boolean> asked = new HashMap<>();
    for (Sample s : samples) if (askedBack(s) != null) asked.put(key(s.questionId(), s.mode(), s.sample()), true);
    Map<String, int[]> counts = new HashMap<>();  // graded, asked, vote correct, asked and vote correct, asked and a reading correct
    for (Verdict v : verdicts) {
      if (v.outcome() == Verdict.Outcome.INFRA_FAILURE) continue;
      int[] c = counts.computeIfAbsent(v.mode(), k -> new int[5]);
      String key = key(v.questionId(), v.mode(), v.sample());
      boolean correct = v.correct();
      c[0]++;
      if (correct) c[2]++;
      if (asked.containsKey(key)) {
        c[1]++;
        if (correct) c[3]++;
        if (Boolean.TRUE.equals(readingCorrect.get(key))) c[4]++;
      }
    }
    JsonObject modes = summary.getJsonObject("modes", new JsonObject());
    counts.forEach((mode, c) -> {
      if (modes.getJsonObject(mode) == null) return;
      int withReading = c[2] - c[3] + c[4];
      modes.getJsonObject(mode).put("clarification", new JsonObject()
          .put("graded", c[0]).put("asked", c[1]).put("asked_rate", rate(c[1], c[0]))
          .put("asked_vote_correct", c[3]).put("asked_reading_correct", c[4])
          .put("accuracy_vote_pick", rate(c[2], c[0])).put("accuracy_asked_reading", rate(withReading, c[0])));
    });
    return summary;
  }

  private static Double rate(int n, int of) {
    return of == 0 ? null : Math.round(10_000.0 * n / of) / 10_000.0;
  }

  /** The sample's answer when it asked back, else null. */
  private static Answer askedBack(Sample s) {
    if (s.answer() == null) return null;
    try {
      Answer a = Answer.fromJson(s.answer());
      return a.needsClarification() ? a : null;
    } catch (IllegalArgumentException unreadable) {
      return null;
    }
  }

  static String key(String question, String mode, int sample) {
    return question + "\u0000" + mode + "\u0000" + sample;
  }
}
