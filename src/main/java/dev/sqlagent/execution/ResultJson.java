package dev.sqlagent.execution;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import io.vertx.sqlclient.data.Numeric;
import io.vertx.sqlclient.desc.ColumnDescriptor;
import java.math.BigDecimal;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Rows as JSON without loss: NULL is JSON null (never ""), numeric values are exact strings ("1234.50",
 * JSON numbers would be read back as doubles), integers and finite floats are numbers, dates, times and
 * intervals are PostgreSQL's own text (the gate has PostgreSQL send them so, see {@link ResultShape}), bytea "\x..." hex. Text longer than the clip limit
 * is cut with a marker that says how long it was.
 */
final class ResultJson {
  private ResultJson() {}

  static final int CLIP_CHARS = 500;

  /** Columns with PostgreSQL's type names (pg_type.typname, arrays as name[]). */
  static JsonArray columns(RowSet<Row> rows) {
    JsonArray out = new JsonArray();
    for (ColumnDescriptor d : rows.columnDescriptors()) {
      out.add(new JsonObject().put("name", d.name()).put("type", typeName(d)));
    }
    return out;
  }

  static String typeName(ColumnDescriptor d) {
    String t = d.typeName() == null ? "unknown" : d.typeName().toLowerCase(Locale.ROOT);
    return t.endsWith("_array") ? t.substring(0, t.length() - "_array".length()) + "[]" : t;
  }

  /** At most {@code limit} rows, each a JSON array of cells. */
  static JsonArray rows(RowSet<Row> rows, int limit) {
    JsonArray out = new JsonArray();
    for (Row r : rows) {
      if (out.size() >= limit) break;
      JsonArray cells = new JsonArray();
      for (int i = 0; i < r.size(); i++) cells.add(cell(r.getValue(i)));
      out.add(cells);
    }
    return out;
  }

  /** One row of a shaped result (see {@link ResultShape}): each cell by how its column travelled. */
  static JsonArray row(Row r, java.util.List<ResultShape.Column> columns) {
    JsonArray cells = new JsonArray();
    for (int i = 0; i < r.size(); i++) cells.add(cell(r, i, columns));
    return cells;
  }

  /**
   * The cells of one row of an export's shaped result into {@code out}: every column but json and arrays is
   * PostgreSQL's text as it came ({@link ResultShape#prefix(java.util.List, boolean, boolean)}), json and arrays as
   * {@link #row} has them.
   */
  static void exportCells(Row r, java.util.List<ResultShape.Column> columns, Object[] out) {
    for (int i = 0; i < out.length && i < r.size(); i++) {
      ResultShape.Kind kind = i < columns.size() ? columns.get(i).kind() : ResultShape.Kind.NATIVE;
      out[i] = kind == ResultShape.Kind.JSON || kind == ResultShape.Kind.ARRAY ? cell(r, i, columns) : r.getValue(i);
    }
  }

  /**
   * A native column's cell from PostgreSQL's text (an export's) as {@link #cell(Object)} has the value the client
   * decodes: what a mask is applied to, so a masked value reads the same in an export as in an answer.
   */
  static Object nativeValue(String text, String type) {
    if (text == null) return null;
    return switch (type) {
      case "bool" -> "true".equals(text);
      case "int2", "int4" -> Integer.valueOf(text);
      case "int8" -> Long.valueOf(text);
      case "float4" -> cell(Float.parseFloat(text));
      case "float8" -> cell(Double.parseDouble(text));
      default -> text;
    };
  }

  private static Object cell(Row r, int i, java.util.List<ResultShape.Column> columns) {
    Object v = r.getValue(i);
    ResultShape.Kind kind = i < columns.size() ? columns.get(i).kind() : ResultShape.Kind.NATIVE;
    if (v == null || kind == ResultShape.Kind.NATIVE || !(v instanceof String s)) return cell(v);
    if (kind == ResultShape.Kind.JSON) return jsonText(s);
    if (kind == ResultShape.Kind.ARRAY) return PgArrayText.toJson(s, ResultShape.elementType(columns.get(i).type()));
    return s;
  }

  /** json/jsonb text: objects and arrays as JSON (when not clipped), anything else as PostgreSQL's text. */
  private static Object jsonText(String s) {
    String t = s.stripLeading();
    if (t.isEmpty() || (t.charAt(0) != '{' && t.charAt(0) != '[')) return s;
    try {
      Object v = io.vertx.core.json.Json.decodeValue(t);
      return v instanceof JsonObject || v instanceof JsonArray ? v : s;
    } catch (RuntimeException e) {
      return s;
    }
  }

  static Object cell(Object v) {
    if (v == null || v == Tuple.JSON_NULL) return null;
    if (v instanceof String s) return clip(s);
    if (v instanceof Boolean || v instanceof Short || v instanceof Integer || v instanceof Long) return v;
    if (v instanceof Numeric n) return n.isNaN() ? "NaN" : n.bigDecimalValue().toPlainString();
    if (v instanceof BigDecimal b) return b.toPlainString();
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? v : (Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
    }
    if (v instanceof Buffer b) return clip("\\x" + HexFormat.of().formatHex(b.getBytes(0, Math.min(b.length(), CLIP_CHARS))))
        + (b.length() > CLIP_CHARS ? "…[clipped, " + b.length() + " bytes]" : "");
    if (v instanceof JsonObject || v instanceof JsonArray) {
      String encoded = v instanceof JsonObject o ? o.encode() : ((JsonArray) v).encode();
      return encoded.length() > CLIP_CHARS ? clip(encoded) : v;
    }
    if (v instanceof Number) return v.toString();
    if (v.getClass().isArray()) {
      JsonArray a = new JsonArray();
      for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) a.add(cell(java.lang.reflect.Array.get(v, i)));
      return a;
    }
    return clip(v.toString());
  }

  static String clip(String s) {
    if (s.length() <= CLIP_CHARS) return s;
    int cut = CLIP_CHARS;
    if (Character.isHighSurrogate(s.charAt(cut - 1))) cut--;
    return s.substring(0, cut) + "…[clipped, " + s.length() + " chars]";
  }
}
