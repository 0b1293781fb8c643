package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.dhatim.fastexcel.reader.CellType;
import org.dhatim.fastexcel.reader.ReadableWorkbook;
import org.dhatim.fastexcel.reader.Row;
import org.junit.jupiter.api.Test;

/**
 * The XLSX writer's cells read back, with a spreadsheet reader, as what was written: a timestamp as its very
 * millisecond (its cell holds the exact decimal of its day and fraction, not a double printed back), text with its
 * tabs and line breaks and without the control characters XML cannot hold, across chunks whose bytes are taken apart.
 */
class XlsxTableWriterTest {

  static final JsonArray COLUMNS = new JsonArray()
      .add(new JsonObject().put("name", "at").put("type", "timestamp"))
      .add(new JsonObject().put("name", "t").put("type", "text"));
  static final DateTimeFormatter PG = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  static List<Row> written(List<Object[]> rows, String note) throws Exception {
    XlsxTableWriter writer = new XlsxTableWriter();
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    writer.start(COLUMNS);
    for (int from = 0; from < rows.size(); from += 1000) {
      writer.rows(rows.subList(from, Math.min(rows.size(), from + 1000)));
      file.write(writer.take().getBytes());
    }
    writer.end(note);
    file.write(writer.take().getBytes());
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(file.toByteArray()))) {
      return wb.getFirstSheet().read();
    }
  }

  @Test
  void aTimestampReadsBackAsItsMillisecond() throws Exception {
    List<LocalDateTime> times = new ArrayList<>();
    List<Object[]> rows = new ArrayList<>();
    LocalDateTime t = LocalDateTime.of(1900, 1, 1, 0, 0);
    for (int i = 0; i < 5000; i++) {
      t = t.plusDays(9).plusNanos(((i * 7_919_993L) % 86_400_000L) * 1_000_000L);
      times.add(t);
      rows.add(new Object[] {PG.format(t), "row " + i});
    }
    times.add(LocalDateTime.of(2024, 12, 31, 23, 59, 59, 999_000_000));
    rows.add(new Object[] {"2024-12-31 23:59:59.999", "last"});
    List<Row> read = written(rows, null);
    assertThat(read).hasSize(rows.size() + 1);
    for (int i = 0; i < times.size(); i++) {
      assertThat(read.get(i + 1).getCell(0).asDate()).as("row %d", i).isEqualTo(times.get(i));
    }
    // The day and its fraction, in decimals: 08:31 is 0.354861111111 (to 10^-12) of a day.
    List<Row> one = written(List.<Object[]>of(new Object[] {"2024-01-01 08:31:00", "x"}), null);
    assertThat(one.get(1).getCell(0).getRawValue()).isEqualTo("45292.354861111111");
  }

  @Test
  void textKeepsItsTabsAndBreaksAndDropsWhatXmlCannotHold() throws Exception {
    List<Row> read = written(List.<Object[]>of(
        new Object[] {null, "tab\there\r\nand <b>&amp;</b> 'q' \"qq\""},
        new Object[] {null, "bell\u0007 nul\u0000 lone\ud800 del\u007f end"},
        new Object[] {null, "ünïcödé 日本語 😀"}), "sql-agent: truncated");
    assertThat(read.get(1).getCell(1).asString()).isEqualTo("tab\there\r\nand <b>&amp;</b> 'q' \"qq\"");
    assertThat(read.get(2).getCell(1).asString()).isEqualTo("bell nul lone del\u007f end");
    assertThat(read.get(3).getCell(1).asString()).isEqualTo("ünïcödé 日本語 😀");
    assertThat(read.get(1).getCell(0)).satisfiesAnyOf(
        c -> assertThat(c).isNull(), c -> assertThat(c.getType()).isEqualTo(CellType.EMPTY));
    assertThat(read.get(4).getCell(0).asString()).isEqualTo("sql-agent: truncated");
  }
}
