package dev.sqlagent.export;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.zip.Deflater;
import org.dhatim.fastexcel.Workbook;
import org.dhatim.fastexcel.Worksheet;

/**
 * XLSX through fastexcel, a streaming writer: each chunk's rows are flushed into the zip as they come (text as
 * inline strings, so no table of every string is kept), numbers as numbers, dates and timestamps from 1900 on as dates
 * with a date format (a spreadsheet has no earlier days: those stay PostgreSQL's text), booleans as booleans, the header in bold. The zip is deflated at the fastest level: the sheet's XML
 * is repetitive, so it still shrinks several times, at a fraction of the default level's cost.
 */
final class XlsxTableWriter implements TableWriter {

  static final String DATE_FORMAT = "yyyy-mm-dd";
  static final String TIMESTAMP_FORMAT = "yyyy-mm-dd hh:mm:ss";

  /** How each column's cells are written, decided once from its type. */
  private enum Kind { NUMBER, BOOL, DATE, TIMESTAMP, OTHER }

  private Buffer bytes = Buffer.buffer(1 << 16);
  private final Workbook workbook = new Workbook(new OutputStream() {
    @Override
    public void write(int b) {
      bytes.appendByte((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes.appendBytes(b, off, len);
    }
  }, "sql-agent", "1.0");
  private final Worksheet sheet;
  private String[] types = new String[0];
  private Kind[] kinds = new Kind[0];
  /**
   * Per date or timestamp column: the first row of the run of date cells that ends at the current row (-1: none). A
   * run gets its date format at once, as a range: a style set cell by cell costs more than writing the cell.
   */
  private int[] dated = new int[0];
  private int row;

  XlsxTableWriter() {
    workbook.setCompressionLevel(Deflater.BEST_SPEED);
    sheet = workbook.newWorksheet("result");
  }

  @Override
  public void start(JsonArray columns) {
    types = new String[columns.size()];
    kinds = new Kind[columns.size()];
    dated = new int[columns.size()];
    java.util.Arrays.fill(dated, -1);
    for (int c = 0; c < columns.size(); c++) {
      JsonObject column = columns.getJsonObject(c);
      String type = column.getString("type");
      types[c] = type;
      kinds[c] = Cells.numeric(type) ? Kind.NUMBER : "bool".equals(type) ? Kind.BOOL : "date".equals(type) ? Kind.DATE
          : "timestamp".equals(type) || "timestamptz".equals(type) ? Kind.TIMESTAMP : Kind.OTHER;
      sheet.inlineString(0, c, column.getString("name"));
      sheet.style(0, c).bold().set();
    }
    row = 1;
  }

  @Override
  public void rows(List<Object[]> rows) throws IOException {
    for (Object[] cells : rows) {
      for (int c = 0; c < cells.length; c++) {
        boolean date = cell(c, cells[c]);
        if (c < dated.length && date != dated[c] >= 0) {
          if (date) dated[c] = row;
          else formatDates(c);
        }
      }
      row++;
    }
    for (int c = 0; c < dated.length; c++) formatDates(c);
    sheet.flush();
  }

  /** The date format on the run of date cells of column {@code c} that ended before the current row. */
  private void formatDates(int c) {
    int from = dated[c];
    if (from < 0) return;
    dated[c] = -1;
    sheet.range(from, c, row - 1, c).style().format(kinds[c] == Kind.DATE ? DATE_FORMAT : TIMESTAMP_FORMAT).set();
  }

  /** Writes one cell: true when it is a date (or timestamp), to be given its format with its run. */
  private boolean cell(int c, Object value) {
    if (value == null) return false;
    if (value instanceof Boolean b) {
      sheet.value(row, c, b);
      return false;
    }
    Kind kind = c < kinds.length ? kinds[c] : Kind.OTHER;
    String type = c < types.length ? types[c] : "";
    // A boolean's text: bool::text is true or false.
    if (kind == Kind.BOOL && ("true".equals(value) || "false".equals(value))) {
      sheet.value(row, c, "true".equals(value));
      return false;
    }
    if (kind == Kind.NUMBER || value instanceof Number) {
      Number n = value instanceof String text ? Cells.number(text, type) : Cells.number(value);
      if (n != null && Cells.tooLongForASpreadsheet(n)) {
        sheet.inlineString(row, c, new BigDecimal(n.toString()).toPlainString());
        return false;
      }
      if (n != null) {
        sheet.value(row, c, n);
        return false;
      }
    }
    if (kind == Kind.DATE) {
      LocalDate d = Cells.date(value);
      if (d != null && d.getYear() >= Cells.SPREADSHEET_FIRST_YEAR) {
        // The day's number, written as digits: no double to print for a whole day.
        sheet.value(row, c, Cells.spreadsheetDay(d));
        return true;
      }
    }
    if (kind == Kind.TIMESTAMP) {
      LocalDateTime t = Cells.timestamp(value);
      if (t != null && t.getYear() >= Cells.SPREADSHEET_FIRST_YEAR) {
        sheet.value(row, c, t);
        return true;
      }
    }
    // An inline string is never evaluated by a spreadsheet: it is written as it is, without CSV's apostrophe.
    sheet.inlineString(row, c, Cells.plain(value, type));
    return false;
  }

  @Override
  public void end(String note) throws IOException {
    if (note != null) {
      sheet.inlineString(row, 0, note);
      sheet.style(row, 0).italic().set();
    }
    sheet.finish();
    workbook.finish();
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
