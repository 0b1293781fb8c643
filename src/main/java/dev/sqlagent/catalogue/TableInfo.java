package dev.sqlagent.catalogue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * One relation the agent role can SELECT, as discovery found it, with its note (the notes file's, else the
 * relation's COMMENT).
 *
 * @param name the relation as SQL must write it: bare when the search path finds it and no other schema
 *     has the same name, else schema-qualified; each part quoted where PostgreSQL needs it
 *     ({@code customers}, {@code sales.orders}, {@code "Sales"."Orders"})
 * @param schema the schema, unquoted
 * @param relname the relation's own name, unquoted
 * @param kind table, partitioned table, view, materialized view or foreign table
 * @param onSearchPath whether the role's search path finds it by its bare relname
 * @param rowCount approximate rows (planner estimate, or an exact count for a small never-analysed table);
 *     null when unknown
 */
public record TableInfo(
    String name,
    String schema,
    String relname,
    String kind,
    boolean onSearchPath,
    String comment,
    String note,
    Long rowCount,
    List<Column> columns,
    List<String> primaryKey,
    List<ForeignKey> foreignKeys) {

  /**
   * One readable column.
   *
   * @param type PostgreSQL's rendering of the type ({@code numeric(12,2)}, {@code text[]}, {@code mood})
   * @param base the type's catalogue name ({@code numeric}, {@code _text} for text[]): drift compares it
   * @param typmod the type modifier (-1 when none): drift reads length, precision and scale from it
   * @param enumLabels an enum's labels in order (of the element type for an array of enums); empty otherwise
   * @param domainBase a domain's base type ({@code integer CHECK ...} is shown as its base); null otherwise
   */
  public record Column(String name, int position, String type, String base, int typmod, boolean nullable,
      String comment, List<String> enumLabels, String domainBase) {

    /** A column with only what most callers care about (tests and tools). */
    public static Column of(String name, String type, boolean nullable, String comment) {
      return new Column(name, 0, type, type, -1, nullable, comment, List.of(), null);
    }

    public Column withComment(String text) {
      return new Column(name, position, type, base, typmod, nullable, text, enumLabels, domainBase);
    }

    JsonObject toJson() {
      JsonObject j = new JsonObject().put("name", name).put("type", type).put("nullable", nullable).put("comment", comment);
      if (!enumLabels.isEmpty()) j.put("enum_labels", new JsonArray(enumLabels));
      if (domainBase != null) j.put("domain_base", domainBase);
      return j.put("position", position).put("base", base).put("typmod", typmod);
    }

    static Column fromJson(JsonObject j) {
      return new Column(j.getString("name"), j.getInteger("position", 0), j.getString("type"),
          j.getString("base", j.getString("type")), j.getInteger("typmod", -1), j.getBoolean("nullable", true),
          j.getString("comment"), strings(j.getJsonArray("enum_labels")), j.getString("domain_base"));
    }
  }

  /** A foreign key; {@code refTable} is the referenced relation as SQL writes it (see {@link TableInfo#name}). */
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

  /** A plain table in {@code public} with no notes: for tests and tools. */
  public static TableInfo of(String name, String comment, Long rowCount, List<Column> columns, List<String> primaryKey,
      List<ForeignKey> foreignKeys) {
    return new TableInfo(name, "public", name, "table", true, comment, null, rowCount, columns, primaryKey, foreignKeys);
  }

  public TableInfo withNote(String text) {
    return new TableInfo(name, schema, relname, kind, onSearchPath, comment, text, rowCount, columns, primaryKey, foreignKeys);
  }

  /** Column notes replace the columns' COMMENTs where given (the notes file knows better than an old comment). */
  public TableInfo withColumnNotes(Map<String, String> notes) {
    if (notes.isEmpty()) return this;
    List<Column> cols = columns.stream().map(c -> notes.containsKey(c.name()) ? c.withComment(notes.get(c.name())) : c).toList();
    return new TableInfo(name, schema, relname, kind, onSearchPath, comment, note, rowCount, cols, primaryKey, foreignKeys);
  }

  /** The SCHEMA reply's entry for this table. */
  public JsonObject toJson() {
    return new JsonObject()
        .put("name", name)
        .put("schema", schema)
        .put("relname", relname)
        .put("kind", kind)
        .put("on_search_path", onSearchPath)
        .put("note", note)
        .put("comment", comment)
        .put("row_count", rowCount)
        .put("columns", new JsonArray(columns.stream().map(Column::toJson).toList()))
        .put("primary_key", new JsonArray(primaryKey))
        .put("foreign_keys", new JsonArray(foreignKeys.stream().map(ForeignKey::toJson).toList()));
  }

  public static TableInfo fromJson(JsonObject j) {
    String name = j.getString("name");
    return new TableInfo(name, j.getString("schema", "public"), j.getString("relname", name), j.getString("kind", "table"),
        j.getBoolean("on_search_path", true), j.getString("comment"), j.getString("note"), j.getLong("row_count"),
        j.getJsonArray("columns", new JsonArray()).stream().map(o -> Column.fromJson((JsonObject) o)).toList(),
        strings(j.getJsonArray("primary_key")),
        j.getJsonArray("foreign_keys", new JsonArray()).stream().map(o -> ForeignKey.fromJson((JsonObject) o)).toList());
  }

  private static List<String> strings(JsonArray a) {
    return a == null ? List.of() : a.stream().map(String::valueOf).toList();
  }
}
