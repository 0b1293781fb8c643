package dev.sqlagent.eval;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How often the answers that should use a governed metric did: per summary column, of the samples whose question
 * names a {@code metric} and that came back with an answer, how many answers name that metric among the ones their
 * SQL computes as defined; and every miss, with what the answer used instead.
 */
final class MetricSummary {

  private MetricSummary() {}

  /** Adds {@code metric_use} to each mode of {@code summary} that asked a question expecting a metric; returns it. */
  static JsonObject addTo(JsonObject summary, List<Question> questions, List<Sample> samples) {
    Map<String, Question> byId = new HashMap<>();
    questions.forEach(q -> byId.put(q.id(), q));
    Map<String, JsonObject> perMode = new LinkedHashMap<>();
    for (Sample s : samples) {
      Question q = byId.get(s.questionId());
      if (q == null || q.metric() == null || s.answer() == null) continue;
      JsonObject m = perMode.computeIfAbsent(s.mode(), k -> new JsonObject().put("expected", 0).put("used", 0)
          .put("misses", new JsonArray()));
      m.put("expected", m.getInteger("expected") + 1);
      List<String> used = used(s.answer());
      if (used.stream().anyMatch(u -> u.equalsIgnoreCase(q.metric()))) {
        m.put("used", m.getInteger("used") + 1);
      } else {
        m.getJsonArray("misses").add(new JsonObject().put("question_id", q.id()).put("sample", s.sample())
            .put("metric", q.metric()).put("answer_used", new JsonArray(used)).put("sql", s.answer().getString("sql")));
      }
    }
    JsonObject modes = summary.getJsonObject("modes", new JsonObject());
    perMode.forEach((mode, m) -> {
      if (modes.getJsonObject(mode) == null) return;
      int n = m.getInteger("expected");
      m.put("rate", n == 0 ? null : Math.round(10_000.0 * m.getInteger("used") / n) / 10_000.0);
      modes.getJsonObject(mode).put("metric_use", m);
    });
    return summary;
  }

  /** The names of the metrics an answer says its SQL used. */
  private static List<String> used(JsonObject answer) {
    JsonArray metrics = answer.getJsonArray("metrics", new JsonArray());
    return metrics.stream().filter(o -> o instanceof JsonObject).map(o -> ((JsonObject) o).getString("name", ""))
        .toList();
  }

  /** The misses of every mode, one line each, for the printed report; empty when there are none. */
  static String misses(JsonObject summary) {
    StringBuilder b = new StringBuilder();
    JsonObject modes = summary.getJsonObject("modes", new JsonObject());
    for (String mode : modes.fieldNames()) {
      JsonObject m = modes.getJsonObject(mode).getJsonObject("metric_use");
      if (m == null) continue;
      for (Object o : m.getJsonArray("misses", new JsonArray())) {
        JsonObject miss = (JsonObject) o;
        JsonArray instead = miss.getJsonArray("answer_used", new JsonArray());
        b.append(String.format(Locale.ROOT, "metric miss: %s %s #%d expected %s, the answer used %s%n", mode,
            miss.getString("question_id"), miss.getInteger("sample", 1), miss.getString("metric"),
            instead.isEmpty() ? "none" : String.join(", ", instead.stream().map(String::valueOf).toList())));
      }
    }
    return b.toString();
  }
}
