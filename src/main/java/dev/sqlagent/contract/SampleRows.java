package dev.sqlagent.contract;

import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.db.Identifiers;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A few real rows of one table, every value in PostgreSQL's text form and clipped to {@link #CLIP} characters
 * (null stays null). What the rows say is data: they are shown, never obeyed.
 */
public record SampleRows(String name, List<TableInfo.Column> columns, List<List<String>> rows) {

  public static final int CLIP = 40;

  /** Control characters and line separators, compiled once: every cell of every sample row is clipped. */
  private static final Pattern BREAKS = Pattern.compile("[\\p{Cntrl}\\u2028\\u2029]");

  /** A value as the prompt shows it: control characters become spaces, at most {@link #CLIP} characters. */
  public static String clip(String value) {
    if (value == null) return null;
    String s = BREAKS.matcher(value).replaceAll(" ");
    if (s.codePointCount(0, s.length()) <= CLIP) return s;
    return s.substring(0, s.offsetByCodePoints(0, CLIP - 1)) + "…";
  }

  /**
   * The samples block entry: a header line, the column names, then one line per row, every value a quoted string
   * (as SQL writes one, at most {@link #CLIP} characters inside the quotes) or NULL. Values are written by strangers:
   * quoted, a value that reads like an instruction, a statement or a reply is plainly one value of one cell.
   */
  public String text() {
    StringBuilder b = new StringBuilder("-- ").append(name).append(": ");
    if (rows.isEmpty()) return b.append("no rows\n").toString();
    b.append(rows.size()).append(rows.size() == 1 ? " row" : " rows").append(", each value quoted data\n");
    b.append(String.join(" | ", columns.stream().map(TableInfo.Column::name).toList())).append('\n');
    for (List<String> row : rows) {
      b.append(String.join(" | ", row.stream().map(v -> v == null ? "NULL" : Identifiers.literal(clip(v))).toList()))
          .append('\n');
    }
    return b.toString();
  }

  public static String text(List<SampleRows> samples) {
    return String.join("\n", samples.stream().map(SampleRows::text).toList());
  }

  public JsonObject toJson() {
    JsonArray cols = new JsonArray();
    for (TableInfo.Column c : columns) cols.add(new JsonObject().put("name", c.name()).put("type", c.type()));
    JsonArray rs = new JsonArray();
    for (List<String> row : rows) rs.add(new JsonArray(new ArrayList<>(row)));
    return new JsonObject().put("name", name).put("columns", cols).put("rows", rs);
  }

  public static SampleRows fromJson(JsonObject j) {
    List<TableInfo.Column> cols = j.getJsonArray("columns").stream()
        .map(o -> (JsonObject) o)
        .map(c -> TableInfo.Column.of(c.getString("name"), c.getString("type"), true, null))
        .toList();
    List<List<String>> rows = new ArrayList<>();
    for (Object r : j.getJsonArray("rows")) {
      List<String> row = new ArrayList<>();
      for (Object v : (JsonArray) r) row.add(v == null ? null : String.valueOf(v));
      rows.add(row);
    }
    return new SampleRows(j.getString("name"), cols, rows);
  }
}
