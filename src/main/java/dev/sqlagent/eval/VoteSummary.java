package dev.sqlagent.eval;

import dev.sqlagent.contract.Answer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the vote among several candidates did, per summary column: answers that were voted on, how often the
 * vote chose another candidate than the first (changed the answer), and how many of those changed answers
 * were graded correct.
 */
final class VoteSummary {

  private VoteSummary() {}

  /** Adds {@code vote} to each mode of {@code summary} whose answers carry candidates; returns the summary. */
  static JsonObject addTo(JsonObject summary, List<Sample> samples, List<Verdict> verdicts) {
    Map<String, Verdict> byKey = new HashMap<>();
    verdicts.forEach(v -> byKey.put(key(v.questionId(), v.mode(), v.sample()), v));
    Map<String, int[]> counts = new HashMap<>();  // voted, changed, changed and correct
    for (Sample s : samples) {
      JsonArray candidates = candidates(s);
      if (candidates == null || candidates.isEmpty()) continue;
      int[] c = counts.computeIfAbsent(s.mode(), k -> new int[3]);
      c[0]++;
      boolean firstChosen = candidates.getJsonObject(0).getBoolean("chosen", false);
      boolean anyChosen = candidates.stream().anyMatch(o -> ((JsonObject) o).getBoolean("chosen", false));
      if (anyChosen && !firstChosen) {
        c[1]++;
        Verdict v = byKey.get(key(s.questionId(), s.mode(), s.sample()));
        if (v != null && v.correct()) c[2]++;
      }
    }
    JsonObject modes = summary.getJsonObject("modes", new JsonObject());
    counts.forEach((mode, c) -> {
      if (modes.getJsonObject(mode) == null) return;
      modes.getJsonObject(mode).put("vote", new JsonObject().put("voted", c[0]).put("changed", c[1])
          .put("changed_rate", c[0] == 0 ? null : Math.round(10_000.0 * c[1] / c[0]) / 10_000.0)
          .put("changed_correct", c[2]));
    });
    return summary;
  }

  /** The answer's candidates, or null when it had one (or cannot be read: the grader says why). */
  private static JsonArray candidates(Sample s) {
    if (s.answer() == null) return null;
    try {
      return Answer.fromJson(s.answer()).candidates();
    } catch (IllegalArgumentException unreadable) {
      return null;
    }
  }

  private static String key(String question, String mode, int sample) {
    return question + "\u0000" + mode + "\u0000" + sample;
  }
}
