package dev.sqlagent.conversation;

import dev.sqlagent.contract.Answer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What a conversation keeps of a result: the column names, the row count and the first few rows with each value
 * clipped. Enough for a follow-up ("only the top 5", "and for 2024?") to know what came back; never the result.
 */
final class ResultSummary {

  static final int ROWS = 3;
  static final int VALUE_CHARS = 60;

  private ResultSummary() {}

  static JsonObject of(Answer answer) {
    JsonArray names = new JsonArray();
    for (Object c : answer.columns() == null ? new JsonArray() : answer.columns()) {
      if (c instanceof JsonObject col) names.add(col.getString("name"));
    }
    JsonArray rows = new JsonArray();
    // A sensitive column a granted user saw unmasked is kept masked.
    JsonArray all = answer.rows() == null ? new JsonArray() : dev.sqlagent.policy.ResultMasking.masked(answer.columns(), answer.rows());
    for (int i = 0; i < Math.min(ROWS, all.size()); i++) {
      JsonArray clipped = new JsonArray();
      Object row = all.getValue(i);
      if (row instanceof JsonArray cells) cells.forEach(v -> clipped.add(clip(v)));
      rows.add(clipped);
    }
    return new JsonObject().put("columns", names).put("row_count", answer.rowCount())
        .put("truncated", answer.truncated()).put("rows", rows);
  }

  private static Object clip(Object v) {
    if (v == null || v instanceof Number || v instanceof Boolean) return v;
    String s = v.toString();
    return s.length() <= VALUE_CHARS ? s : s.substring(0, VALUE_CHARS) + "…";
  }
}
