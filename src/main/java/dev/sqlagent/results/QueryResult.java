package dev.sqlagent.results;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A result set as the grader sees it: columns (name and PostgreSQL type name, either may be null) and rows
 * of plain values. Built from the agent's answer JSON or from a harness query through the gate's grading mode
 * ({@link GradingGate}).
 */
public record QueryResult(List<Column> columns, List<List<Object>> rows) {

  public record Column(String name, String type) {}

  public QueryResult {
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
  }

  public int width() {
    return columns.size();
  }

  /**
   * From the answer contract: {@code columns} is a list of {@code {name, type}} objects (plain names are
   * accepted too) and {@code rows} a list of arrays.
   */
  public static QueryResult fromJson(JsonArray columns, JsonArray rows) {
    List<Column> cols = new ArrayList<>();
    if (columns != null) {
      for (Object c : columns) {
        if (c instanceof JsonObject o) {
          cols.add(new Column(o.getString("name"), o.getString("type")));
        } else {
          cols.add(new Column(c == null ? null : c.toString(), null));
        }
      }
    }
    List<List<Object>> out = new ArrayList<>();
    if (rows != null) {
      for (Object r : rows) {
        List<Object> row = new ArrayList<>();
        if (r instanceof JsonArray a) {
          for (int i = 0; i < a.size(); i++) row.add(a.getValue(i));
        } else if (r instanceof JsonObject o) {
          // A row keyed by column name: put the values in column order.
          for (Column c : cols) row.add(o.getValue(c.name()));
        }
        out.add(row);
      }
    }
    if (cols.isEmpty() && !out.isEmpty()) {
      for (int i = 0; i < out.get(0).size(); i++) cols.add(new Column("column" + (i + 1), null));
    }
    return new QueryResult(cols, out);
  }
}
