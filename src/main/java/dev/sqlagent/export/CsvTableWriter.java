package dev.sqlagent.export;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * RFC 4180 CSV: UTF-8, CRLF, a header line; NULL is an empty field. A field is quoted as Apache Commons CSV's
 * {@code RFC4180} format quotes it (so a file reads back the same with any RFC 4180 reader): when it holds a comma, a
 * quote, CR or LF, starts with a character up to {@code #} (or is empty) at the start of a record, or ends with a space
 * or a control character; quotes inside are doubled. Written straight from the cells, one text buffer per chunk.
 */
final class CsvTableWriter implements TableWriter {

  private static final char COMMENT = '#';
  /** Types besides the numbers whose text never needs quotes (see {@link #bare}). */
  private static final java.util.Set<String> BARE = java.util.Set.of("bool", "date", "time", "timetz", "timestamp",
      "timestamptz");

  private final StringBuilder text = new StringBuilder(1 << 16);
  private Buffer bytes = Buffer.buffer(1 << 16);
  private String[] types = new String[0];
  /** Per column: its cells are numbers (never neutralised). */
  private boolean[] numeric = new boolean[0];
  /**
   * Per column: its text never needs quotes (numbers, booleans, dates and times as PostgreSQL prints them: no comma,
   * quote or line break, never empty, never starting with a character up to {@code #} or ending with a space).
   */
  private boolean[] bare = new boolean[0];

  @Override
  public void start(JsonArray columns) {
    types = new String[columns.size()];
    numeric = new boolean[columns.size()];
    bare = new boolean[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      JsonObject c = columns.getJsonObject(i);
      types[i] = c.getString("type");
      numeric[i] = Cells.numeric(types[i]);
      bare[i] = numeric[i] || BARE.contains(types[i]);
      if (i > 0) text.append(',');
      field(Cells.neutralised(c.getString("name")), i == 0);
    }
    text.append("\r\n");
    encode();
  }

  @Override
  public void rows(List<Object[]> rows) {
    for (Object[] cells : rows) {
      for (int i = 0; i < cells.length; i++) cell(cells[i], i);
      text.append("\r\n");
    }
    encode();
  }

  private void cell(Object cell, int i) {
    if (i > 0) text.append(',');
    if (cell == null) return;
    if (cell instanceof String s) {
      if (i < bare.length && bare[i] && !s.isEmpty()) {
        // A number stays as it is; a date may be -infinity, neutralised as before (it starts with an apostrophe then).
        text.append(numeric[i] ? s : Cells.neutralised(s));
        return;
      }
      field(i < numeric.length && numeric[i] ? s : Cells.neutralised(s), i == 0);
    } else if (cell instanceof Integer || cell instanceof Long) {
      // Digits and a sign only: never quoted.
      text.append(((Number) cell).longValue());
    } else {
      field(Cells.text(cell, i < types.length ? types[i] : ""), i == 0);
    }
  }

  /** One field, after its separator, quoted where needed ({@code first}: the record's first field). */
  private void field(String value, boolean first) {
    int len = value.length();
    if (len == 0) {
      if (first) text.append("\"\"");
      return;
    }
    if (needsQuotes(value, first)) {
      text.append('"');
      int from = 0;
      for (int q = value.indexOf('"'); q >= 0; q = value.indexOf('"', q + 1)) {
        text.append(value, from, q + 1).append('"');
        from = q + 1;
      }
      text.append(value, from, len).append('"');
    } else {
      text.append(value);
    }
  }

  private static boolean needsQuotes(String value, boolean first) {
    char c = value.charAt(0);
    if (first && (c == COMMENT || c == '"' || c == ',' || c == '\n' || c == '\r')) return true;
    if (c <= COMMENT) return true;
    for (int i = 0; i < value.length(); i++) {
      c = value.charAt(i);
      if (c == '\n' || c == '\r' || c == '"' || c == ',') return true;
    }
    return value.charAt(value.length() - 1) <= ' ';
  }

  private void encode() {
    bytes.appendString(text.toString(), "UTF-8");
    text.setLength(0);
  }

  @Override
  public void end(String note) {
    if (note != null) {
      field(note, true);
      text.append("\r\n");
    }
    encode();
  }

  @Override
  public int pending() {
    return bytes.length();
  }

  @Override
  public Buffer take() {
    Buffer out = bytes;
    bytes = Buffer.buffer(1 << 16);
    return out;
  }
}
