package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.junit.jupiter.api.Test;

/**
 * The CSV writer writes every field as Apache Commons CSV's RFC 4180 printer does (what an RFC 4180 reader reads back):
 * the same bytes for awkward text in every position of a record (first, middle, last), for NULLs, numbers and
 * booleans, with formulas neutralised, compared with that printer fed the same cells.
 */
class CsvTableWriterTest {

  static final String[] AWKWARD = {"", " ", "plain", "a,b", "say \"hi\"", "\"", "line\nbreak", "cr\rhere", "crlf\r\n",
      "#hash", "!bang", "\"quoted\"", "trailing ", "trailing\t", " leading", "\tlead tab", "=1+2", "+1", "-2", "@SUM(A1)",
      "\rcr first", "ünïcödé", "日本語", "emoji 😀", "x\u0000y", "'apostrophe", "a;b", "\\x00ff", "{1,2,\"a b\"}",
      "[\"a\",null]", "NULL", "null", "#", ",", "\n", "\u00a0nbsp", "é,", "end\""};

  static final JsonArray COLUMNS = new JsonArray()
      .add(new JsonObject().put("name", "t1").put("type", "text"))
      .add(new JsonObject().put("name", "n").put("type", "int4"))
      .add(new JsonObject().put("name", "t2").put("type", "text"))
      .add(new JsonObject().put("name", "f").put("type", "float8"))
      .add(new JsonObject().put("name", "b").put("type", "bool"))
      .add(new JsonObject().put("name", "num").put("type", "numeric"))
      .add(new JsonObject().put("name", "t3").put("type", "text"));

  @Test
  void everyFieldIsWrittenAsTheRfc4180PrinterWritesIt() throws Exception {
    Random random = new Random(40);
    List<Object[]> rows = new ArrayList<>();
    for (String a : AWKWARD) {
      rows.add(new Object[] {a, 1, a, 0.1, true, "-12.50", a});
      rows.add(new Object[] {null, null, a, null, null, null, null});
      rows.add(new Object[] {a, -7L, null, 1e300, false, "NaN", AWKWARD[random.nextInt(AWKWARD.length)]});
    }
    for (int i = 0; i < 500; i++) {
      Object[] row = new Object[7];
      for (int c : new int[] {0, 2, 6}) {
        StringBuilder s = new StringBuilder();
        for (int k = random.nextInt(4); k > 0; k--) s.append(AWKWARD[random.nextInt(AWKWARD.length)]);
        row[c] = random.nextInt(8) == 0 ? null : s.toString();
      }
      row[1] = random.nextInt();
      row[3] = random.nextDouble() * Math.pow(10, random.nextInt(40) - 20);
      row[4] = random.nextBoolean();
      row[5] = String.valueOf(random.nextInt(100000) / 100.0);
      rows.add(row);
    }

    CsvTableWriter writer = new CsvTableWriter();
    writer.start(COLUMNS);
    writer.rows(rows);
    writer.end("sql-agent: truncated: the export stops at 3 rows (SQLAGENT_EXPORT_MAX_ROWS); the query has more");
    String written = writer.take().toString(StandardCharsets.UTF_8);

    assertThat(written).isEqualTo(printed(rows, "sql-agent: truncated: the export stops at 3 rows "
        + "(SQLAGENT_EXPORT_MAX_ROWS); the query has more"));
  }

  @Test
  void anEmptyResultIsItsHeaderAlone() throws Exception {
    CsvTableWriter writer = new CsvTableWriter();
    writer.start(COLUMNS);
    writer.rows(List.of());
    writer.end(null);
    assertThat(writer.take().toString(StandardCharsets.UTF_8)).isEqualTo("t1,n,t2,f,b,num,t3\r\n");
  }

  /** The same cells through Commons CSV's RFC 4180 printer, each as {@link Cells#text} makes it. */
  static String printed(List<Object[]> rows, String note) throws Exception {
    StringWriter out = new StringWriter();
    CSVPrinter printer = new CSVPrinter(out, CSVFormat.RFC4180);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < COLUMNS.size(); i++) names.add(COLUMNS.getJsonObject(i).getString("name"));
    printer.printRecord(names);
    for (Object[] row : rows) {
      List<String> fields = new ArrayList<>();
      for (int i = 0; i < row.length; i++) fields.add(Cells.text(row[i], COLUMNS.getJsonObject(i).getString("type")));
      printer.printRecord(fields);
    }
    printer.printRecord(Arrays.asList(note));
    printer.flush();
    return out.toString();
  }
}
