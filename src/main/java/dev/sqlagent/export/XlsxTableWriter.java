package dev.sqlagent.export;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.dhatim.fastexcel.Workbook;
import org.dhatim.fastexcel.Worksheet;

/**
 * XLSX through fastexcel, a streaming writer: each chunk's rows are flushed into the zip as they come (text as
 * inline strings, so no table of every string is kept), numbers as numbers, dates and timestamps as dates with a
 * date format, booleans as booleans, the header in bold.
 */
final class XlsxTableWriter implements TableWriter {

  static final String DATE_FORMAT = "yyyy-mm-dd";
  static final String TIMESTAMP_FORMAT = "yyyy-mm-dd hh:mm:ss";

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final Workbook workbook = new Workbook(bytes, "sql-agent", "1.0");
  private final Worksheet sheet = workbook.newWorksheet("result");
  private List<String> types = List.of();
  private int row;

  @Override
  public void start(JsonArray columns) throws IOException {
    List<String> t = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      JsonObject column = columns.getJsonObject(c);
      t.add(column.getString("type"));
      sheet.inlineString(0, c, column.getString("name"));
      sheet.style(0, c).bold().set();
    }
    types = t;
    row = 1;
  }

  @Override
  public void rows(JsonArray rows) throws IOException {
    for (Object r : rows) {
      JsonArray cells = (JsonArray) r;
      for (int c = 0; c < cells.size(); c++) cell(c, cells.getValue(c), c < types.size() ? types.get(c) : "");
      row++;
    }
    sheet.flush();
  }

  private void cell(int c, Object value, String type) {
    if (value == null) return;
    if (value instanceof Boolean b) {
      sheet.value(row, c, b);
      return;
    }
    if (Cells.numeric(type) || value instanceof Number) {
      Number n = Cells.number(value);
      if (n != null && Cells.tooLongForASpreadsheet(n)) {
        sheet.inlineString(row, c, new BigDecimal(n.toString()).toPlainString());
        return;
      }
      if (n != null) {
        sheet.value(row, c, n);
        return;
      }
    }
    if (type.equals("date")) {
      LocalDate d = Cells.date(value);
      if (d != null) {
        sheet.value(row, c, d);
        sheet.style(row, c).format(DATE_FORMAT).set();
        return;
      }
    }
    if (type.equals("timestamp") || type.equals("timestamptz")) {
      LocalDateTime t = Cells.timestamp(value);
      if (t != null) {
        sheet.value(row, c, t);
        sheet.style(row, c).format(TIMESTAMP_FORMAT).set();
        return;
      }
    }
    // An inline string is never evaluated by a spreadsheet: it is written as it is, without CSV's apostrophe.
    sheet.inlineString(row, c, Cells.plain(value, type));
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
  public Buffer take() {
    Buffer out = Buffer.buffer(bytes.toByteArray());
    bytes.reset();
    return out;
  }
}
