package dev.sqlagent.drift;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape of the schema the agent sees: every table it may SELECT in {@code public}, each column with its
 * type (with length, precision and scale), nullability and position. Values are not part of it.
 */
public record SchemaShape(String server, String database, String takenAt, String indexBuiltAt, List<Table> tables) {

  public record Table(String name, List<Column> columns) {
    Map<String, Column> byName() {
      Map<String, Column> m = new LinkedHashMap<>();
      columns.forEach(c -> m.put(c.name(), c));
      return m;
    }

    JsonObject toJson() {
      return new JsonObject().put("name", name)
          .put("columns", new JsonArray(columns.stream().map(Column::toJson).toList()));
    }

    static Table fromJson(JsonObject j) {
      List<Column> cols = new ArrayList<>();
      for (Object c : j.getJsonArray("columns")) cols.add(Column.fromJson((JsonObject) c));
      return new Table(j.getString("name"), cols);
    }
  }

  /**
   * One column. {@code type} is PostgreSQL's own rendering ({@code numeric(12,2)}); {@code base} the type's
   * name ({@code numeric}, {@code varchar}, {@code _text} for text[]); {@code length}, {@code precision} and
   * {@code scale} are null when the type has no such modifier.
   */
  public record Column(String name, int position, String type, String base, Integer length, Integer precision,
      Integer scale, boolean nullable) {

    JsonObject toJson() {
      return new JsonObject().put("name", name).put("position", position).put("type", type).put("base", base)
          .put("length", length).put("precision", precision).put("scale", scale).put("nullable", nullable);
    }

    static Column fromJson(JsonObject j) {
      return new Column(j.getString("name"), j.getInteger("position"), j.getString("type"), j.getString("base"),
          j.getInteger("length"), j.getInteger("precision"), j.getInteger("scale"), j.getBoolean("nullable"));
    }

    /** Reads the modifiers from PostgreSQL's typmod (see format_type in the server's sources). */
    static Column of(String name, int position, String type, String base, int typmod, boolean nullable) {
      String element = base.startsWith("_") ? base.substring(1) : base;
      Integer length = null;
      Integer precision = null;
      Integer scale = null;
      switch (element) {
        case "varchar", "bpchar" -> length = typmod >= 4 ? typmod - 4 : null;
        case "bit", "varbit" -> length = typmod >= 0 ? typmod : null;
        case "numeric" -> {
          if (typmod >= 4) {
            int t = typmod - 4;
            precision = (t >> 16) & 0xffff;
            int s = t & 0x7ff;  // 11-bit signed since PostgreSQL 15
            scale = (s & 0x400) != 0 ? s - 0x800 : s;
          }
        }
        case "timestamp", "timestamptz", "time", "timetz" -> precision = typmod >= 0 ? typmod : null;
        case "interval" -> precision = typmod >= 0 ? typmod : null;  // fields and precision, compared as a whole
        default -> { }
      }
      return new Column(name, position, type, base, length, precision, scale, nullable);
    }
  }

  public Map<String, Table> byName() {
    Map<String, Table> m = new LinkedHashMap<>();
    tables.forEach(t -> m.put(t.name(), t));
    return m;
  }

  public int columnCount() {
    return tables.stream().mapToInt(t -> t.columns().size()).sum();
  }

  public SchemaShape withIndexBuiltAt(String builtAt) {
    return new SchemaShape(server, database, takenAt, builtAt, tables);
  }

  public JsonObject toJson() {
    return new JsonObject().put("server", server).put("database", database).put("taken_at", takenAt)
        .put("index_built_at", indexBuiltAt)
        .put("tables", new JsonArray(tables.stream().map(Table::toJson).toList()));
  }

  public static SchemaShape fromJson(JsonObject j) {
    List<Table> tables = new ArrayList<>();
    for (Object t : j.getJsonArray("tables")) tables.add(Table.fromJson((JsonObject) t));
    return new SchemaShape(j.getString("server"), j.getString("database"), j.getString("taken_at"),
        j.getString("index_built_at"), tables);
  }
}
