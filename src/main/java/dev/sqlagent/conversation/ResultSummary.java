package dev.sqlagent.conversation;

import dev.sqlagent.contract.Answer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What a conversation keeps of a result: the column names, the row count and the first few rows with each value
 * clipped. Enough for a follow-up ("only the top 5", "and for 2024?") to know what came back; never the result. When
 * the row cap changed the answer's SQL, the SQL as submitted too ({@link #SQL_AS_WRITTEN}), for its exports.
 */
final class ResultSummary {

  static final int ROWS = 3;
  static final int VALUE_CHARS = 60;
  /** The answer's SQL as submitted, when the row cap changed it (read by exports). */
  static final String SQL_AS_WRITTEN = "sql_as_written";

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
    JsonObject summary = new JsonObject().put("columns", names).put("row_count", answer.rowCount())
        .put("truncated", answer.truncated()).put("rows", rows);
    // What an export of the answer runs: the SQL with its own LIMIT, not the row cap's.
    if (answer.sqlAsWritten() != null) summary.put(SQL_AS_WRITTEN, answer.sqlAsWritten());
    return summary;
  }

  private static Object clip(Object v) {
    if (v == null || v instanceof Number || v instanceof Boolean) return v;
    String s = v.toString();
    return s.length() <= VALUE_CHARS ? s : s.substring(0, VALUE_CHARS) + "…";
  }
}
