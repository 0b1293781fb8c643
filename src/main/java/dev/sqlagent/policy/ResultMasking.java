package dev.sqlagent.policy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A result's sensitive columns, as the gate marks them: each such column object carries {@code mask} (how it is masked)
 * and {@code masked} (whether its values already are). A user granted {@code see_sensitive} gets them unmasked; what is
 * kept or sent on (the model's prompt, the query log, a conversation's memory) is masked here first.
 */
public final class ResultMasking {

  /** The key of a result column that is sensitive: its mask's name. */
  public static final String MASK = "mask";
  /** The key that says the column's values are masked already. */
  public static final String MASKED = "masked";

  private ResultMasking() {}

  /** Whether some column holds sensitive values unmasked. */
  public static boolean hasUnmasked(JsonArray columns) {
    if (columns == null) return false;
    for (Object c : columns) if (unmasked(c) != null) return true;
    return false;
  }

  /**
   * {@code rows} with every sensitive column that is not masked yet masked (the same array when there is none), for
   * anything that leaves the asking user: a prompt, the query log, a conversation's memory.
   */
  public static JsonArray masked(JsonArray columns, JsonArray rows) {
    if (rows == null || !hasUnmasked(columns)) return rows;
    Mask[] masks = new Mask[columns.size()];
    for (int i = 0; i < columns.size(); i++) masks[i] = unmasked(columns.getValue(i));
    JsonArray out = new JsonArray();
    for (Object r : rows) {
      if (!(r instanceof JsonArray row)) {
        out.add(r);
        continue;
      }
      JsonArray copy = new JsonArray();
      for (int i = 0; i < row.size(); i++) copy.add(i < masks.length && masks[i] != null ? masks[i].apply(row.getValue(i)) : row.getValue(i));
      out.add(copy);
    }
    return out;
  }

  /** The columns as {@link #masked} leaves them: each sensitive one marked masked. */
  public static JsonArray maskedColumns(JsonArray columns) {
    if (!hasUnmasked(columns)) return columns;
    JsonArray out = new JsonArray();
    for (Object c : columns) {
      out.add(unmasked(c) != null ? ((JsonObject) c).copy().put(MASKED, true).put("type", "text") : c);
    }
    return out;
  }

  private static Mask unmasked(Object column) {
    if (!(column instanceof JsonObject c) || !(c.getValue(MASK) instanceof String m)) return null;
    return c.getBoolean(MASKED, false) ? null : Mask.of(m);
  }
}
