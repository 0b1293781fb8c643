package dev.sqlagent.state;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * Text on its way into the state store that no person typed (a model's words, an error message, values in a
 * summary): PostgreSQL's text and jsonb cannot hold NUL (U+0000, refused with 22021 / 22P05), so it is dropped
 * here rather than costing the whole row. What a person types is refused with the NUL instead (AskRules).
 */
public final class StoredText {

  private StoredText() {}

  public static String of(String s) {
    return s == null || s.indexOf('\u0000') < 0 ? s : s.replace("\u0000", "");
  }

  /** A copy of {@code json} with NUL dropped from every string in it, keys included; null stays null. */
  public static JsonObject of(JsonObject json) {
    if (json == null) return null;
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : json) out.put(of(e.getKey()), value(e.getValue()));
    return out;
  }

  private static JsonArray of(JsonArray array) {
    JsonArray out = new JsonArray();
    for (Object v : array) out.add(value(v));
    return out;
  }

  private static Object value(Object v) {
    if (v instanceof String s) return of(s);
    if (v instanceof JsonObject o) return of(o);
    if (v instanceof JsonArray a) return of(a);
    if (v instanceof Map<?, ?> m) return of(new JsonObject(cast(m)));
    if (v instanceof java.util.List<?> l) return of(new JsonArray(l));
    return v;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }
}
