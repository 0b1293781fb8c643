package dev.sqlagent.retrieval;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One table the read-only role can SELECT, as the catalogue describes it, with the hand-written note (or the
 * table's COMMENT when there is no note).
 *
 * @param rowCount approximate rows (planner estimate, or an exact count for a small never-analysed table);
 *     null when unknown
 */
public record TableInfo(
    String name,
    String comment,
    String note,
    Long rowCount,
    List<Column> columns,
    List<String> primaryKey,
    List<ForeignKey> foreignKeys) {

  public record Column(String name, String type, boolean nullable, String comment) {
    JsonObject toJson() {
      return new JsonObject().put("name", name).put("type", type).put("nullable", nullable).put("comment", comment);
    }

    static Column fromJson(JsonObject j) {
      return new Column(j.getString("name"), j.getString("type"), j.getBoolean("nullable", true), j.getString("comment"));
    }
  }

  public record ForeignKey(List<String> columns, String refTable, List<String> refColumns) {
    JsonObject toJson() {
      return new JsonObject().put("columns", new JsonArray(columns)).put("ref_table", refTable)
          .put("ref_columns", new JsonArray(refColumns));
    }

    static ForeignKey fromJson(JsonObject j) {
      return new ForeignKey(strings(j.getJsonArray("columns")), j.getString("ref_table"),
          strings(j.getJsonArray("ref_columns")));
    }
  }

  public TableInfo withNote(String note) {
    return new TableInfo(name, comment, note, rowCount, columns, primaryKey, foreignKeys);
  }

  /** The SCHEMA reply's entry for this table. */
  public JsonObject toJson() {
    return new JsonObject()
        .put("name", name)
        .put("note", note)
        .put("comment", comment)
        .put("row_count", rowCount)
        .put("columns", new JsonArray(columns.stream().map(Column::toJson).toList()))
        .put("primary_key", new JsonArray(primaryKey))
        .put("foreign_keys", new JsonArray(foreignKeys.stream().map(ForeignKey::toJson).toList()));
  }

  public static TableInfo fromJson(JsonObject j) {
    return new TableInfo(j.getString("name"), j.getString("comment"), j.getString("note"), j.getLong("row_count"),
        j.getJsonArray("columns", new JsonArray()).stream().map(o -> Column.fromJson((JsonObject) o)).toList(),
        strings(j.getJsonArray("primary_key")),
        j.getJsonArray("foreign_keys", new JsonArray()).stream().map(o -> ForeignKey.fromJson((JsonObject) o)).toList());
  }

  private static List<String> strings(JsonArray a) {
    return a == null ? List.of() : a.stream().map(String::valueOf).toList();
  }
}
