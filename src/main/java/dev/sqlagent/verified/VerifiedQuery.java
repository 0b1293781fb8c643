package dev.sqlagent.verified;

import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import java.util.Objects;

/**
 * A question with the SQL a person vouched for. Retired ({@code retiredReason} set) when it no longer passes the
 * gate: it is then never used, until a re-check passes again or it is replaced or removed. {@code verifiedBy}: the
 * user who added or promoted it (null without a users file).
 */
public record VerifiedQuery(long id, String question, String sql, float[] vector, String fromRunId, String createdAt,
    String checkedAt, String retiredReason, String retiredAt, String verifiedBy) {

  public boolean retired() {
    return retiredReason != null;
  }

  static VerifiedQuery fromRow(Row r) {
    return new VerifiedQuery(r.getLong("verified_id"), r.getString("question"), r.getString("sql"),
        parse(r.getString("vector_text")), r.getString("from_run_id"), text(r.getValue("created_at")),
        text(r.getValue("checked_at")), r.getString("retired_reason"), text(r.getValue("retired_at")),
        r.getString("verified_by"));
  }

  /** Without the vector: what lists, exports and answers show. */
  public JsonObject toJson() {
    return new JsonObject().put("verified_id", id).put("question", question).put("sql", sql)
        .put("from_run_id", fromRunId).put("created_at", createdAt).put("checked_at", checkedAt)
        .put("status", retired() ? "retired" : "active").put("retired_reason", retiredReason).put("retired_at", retiredAt)
        .put("verified_by", verifiedBy);
  }

  /** A vector as a PostgreSQL array literal ({@code {0.1,-2.5E-5,...}}), cast to real[] by the query. */
  static String arrayText(float[] v) {
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < v.length; i++) b.append(i == 0 ? "" : ",").append(v[i]);
    return b.append('}').toString();
  }

  static float[] parse(String text) {
    if (text == null || text.isEmpty()) return new float[0];
    String[] parts = text.split(",");
    float[] v = new float[parts.length];
    for (int i = 0; i < parts.length; i++) v[i] = Float.parseFloat(parts[i]);
    return v;
  }

  private static String text(Object o) {
    return Objects.toString(o, null);
  }
}
