package dev.sqlagent.display;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A result ({@code columns}, {@code rows}, {@code row_count}, {@code truncated}) worded for a person: the
 * deterministic one-line summary of an answer, and a plain-text table for the command line and MCP. Cells are
 * formatted by {@link ColumnFormat}; numeric columns are right-aligned.
 */
public final class ResultText {

  /** Table cells longer than this are cut, so one long text does not push every other column off screen. */
  static final int MAX_CELL = 60;

  private ResultText() {}

  /** A deterministic wording of the result, used when the model is not asked (or fails) to word it. */
  public static String summary(JsonObject result) {
    return summary(result.getJsonArray("columns", new JsonArray()), result.getJsonArray("rows", new JsonArray()),
        result.getInteger("row_count", 0), result.getBoolean("truncated", false));
  }

  /** The same, from a result's parts. */
  public static String summary(JsonArray cols, JsonArray rows, int n, boolean truncated) {
    if (n == 0 || rows.isEmpty()) return "No rows match the question.";
    List<ColumnFormat> formats = ColumnFormat.of(cols);
    JsonArray first = rows.getJsonArray(0);
    if (n == 1 && cols.size() == 1) return "The answer is " + formats.get(0).format(first.getValue(0)) + ".";
    StringBuilder b = new StringBuilder();
    b.append(ColumnFormat.NUMBER.format(n)).append(n == 1 ? " row" : " rows")
        .append(truncated ? " (more exist)" : "").append("; the first: ");
    for (int i = 0; i < cols.size(); i++) {
      if (i > 0) b.append(", ");
      b.append(cols.getJsonObject(i).getString("name")).append(" = ").append(formats.get(i).format(first.getValue(i)));
    }
    return b.append('.').toString();
  }

  /**
   * The rows as a text table: a header, a rule, one line per row, then how many rows (and whether more
   * exist). Empty when there are no columns.
   */
  public static String table(JsonObject result) {
    JsonArray cols = result.getJsonArray("columns", new JsonArray());
    JsonArray rows = result.getJsonArray("rows", new JsonArray());
    if (cols.isEmpty()) return "";
    List<ColumnFormat> formats = ColumnFormat.of(cols);
    List<String[]> lines = new ArrayList<>();
    String[] header = new String[cols.size()];
    for (int i = 0; i < cols.size(); i++) header[i] = cols.getJsonObject(i).getString("name");
    for (int r = 0; r < rows.size(); r++) {
      JsonArray row = rows.getJsonArray(r);
      String[] cells = new String[cols.size()];
      for (int i = 0; i < cols.size(); i++) cells[i] = clip(oneLine(formats.get(i).format(i < row.size() ? row.getValue(i) : null)));
      lines.add(cells);
    }
    int[] width = new int[cols.size()];
    boolean[] right = new boolean[cols.size()];
    for (int i = 0; i < cols.size(); i++) {
      width[i] = header[i].length();
      right[i] = formats.get(i) != ColumnFormat.PLAIN || numericType(cols.getJsonObject(i).getString("type"));
      for (String[] l : lines) width[i] = Math.max(width[i], l[i].length());
    }
    StringBuilder b = new StringBuilder();
    line(b, header, width, right);
    for (int i = 0; i < cols.size(); i++) {
      if (i > 0) b.append("-+-");
      b.append("-".repeat(width[i]));
    }
    b.append('\n');
    for (String[] l : lines) line(b, l, width, right);
    int count = result.getInteger("row_count", rows.size());
    b.append('(').append(ColumnFormat.NUMBER.format(count)).append(count == 1 ? " row" : " rows")
        .append(result.getBoolean("truncated", false) ? "; more exist" : "").append(")\n");
    return b.toString();
  }

  /** A query's result for a reader: the table, then the SQL that ran (with its forced LIMIT). */
  public static String query(JsonObject result) {
    return table(result) + "SQL: " + result.getString("sql") + "\n";
  }

  /**
   * An agent's answer for a reader: the answer, the SQL, the rows as a table, and for a question given up
   * every query tried with why it failed.
   */
  public static String answer(JsonObject answer) {
    StringBuilder b = new StringBuilder(answer.getString("answer", "")).append('\n');
    if (answer.getString("sql") != null && !answer.getBoolean("refused", false)) {
      b.append(answer.getBoolean("gave_up", false) ? "Last SQL tried: " : "SQL: ").append(answer.getString("sql")).append('\n');
    }
    if (!answer.getBoolean("refused", false) && !answer.getBoolean("gave_up", false)
        && !answer.getBoolean("cancelled", false)) {
      b.append('\n').append(table(answer));
    }
    JsonObject clarification = answer.getJsonObject("clarification");
    if (clarification != null) {
      b.setLength(0);
      b.append(answer.getString("answer", "")).append('\n').append(readings(clarification));
      return b.toString();
    }
    JsonArray history = answer.getJsonArray("history", new JsonArray());
    if (answer.getBoolean("gave_up", false) && !history.isEmpty()) {
      b.append("\nTried:\n");
      for (int i = 0; i < history.size(); i++) {
        JsonObject h = history.getJsonObject(i);
        b.append(h.getInteger("attempt", i + 1)).append(". ").append(h.getString("sql") == null ? "(no query)" : h.getString("sql"))
            .append("\n   ").append(h.getString("error_type")).append(": ").append(h.getString("message")).append('\n');
      }
    }
    return b.toString();
  }

  /** The readings of a question asked back, numbered as a client chooses them: description, rows, SQL, sample. */
  public static String readings(JsonObject clarification) {
    StringBuilder b = new StringBuilder();
    JsonArray readings = clarification.getJsonArray("readings", new JsonArray());
    for (int i = 0; i < readings.size(); i++) {
      JsonObject r = readings.getJsonObject(i);
      int rows = r.getInteger("row_count", 0);
      b.append('\n').append(r.getInteger("reading", i + 1)).append(". ").append(r.getString("description", ""))
          .append(" (").append(rows).append(rows == 1 ? " row" : " rows").append(")\n   SQL: ")
          .append(r.getString("sql", "")).append('\n');
      JsonArray sample = r.getJsonArray("sample", new JsonArray());
      if (!sample.isEmpty()) {
        String table = table(new JsonObject().put("columns", r.getJsonArray("columns", new JsonArray())).put("rows", sample)
            .put("row_count", sample.size()));
        for (String line : table.split("\n")) b.append("   ").append(line).append('\n');
      }
    }
    return b.toString();
  }

  private static void line(StringBuilder b, String[] cells, int[] width, boolean[] right) {
    StringBuilder l = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) l.append(" | ");
      String pad = " ".repeat(width[i] - cells[i].length());
      l.append(right[i] ? pad + cells[i] : cells[i] + pad);
    }
    b.append(l.toString().stripTrailing()).append('\n');
  }

  /** Ids and years are plain but still numbers: they line up on the right like the quantities. */
  private static boolean numericType(String type) {
    return ColumnFormat.of("n", type) != ColumnFormat.PLAIN;
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ').replace('\r', ' ').replace('\t', ' ');
  }

  private static String clip(String s) {
    return s.length() <= MAX_CELL ? s : s.substring(0, MAX_CELL - 1) + "…";
  }
}
