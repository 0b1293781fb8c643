package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;
import org.dhatim.fastexcel.reader.ReadableWorkbook;
import org.dhatim.fastexcel.reader.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an export keeps, however it is written: a table of awkward values (NULLs, quotes, separators, newlines,
 * unicode, numerics, floats, timestamps, arrays, json, bytea, formulas) comes out as the gate's result shows it, in
 * exactly the CSV that Commons CSV's RFC 4180 printer writes for those cells; the byte bound ends the file cleanly with
 * its line; a client that hangs up ends the export, its transaction and its slot.
 */
class ExportGuaranteesTest {

  /** Bytes of cells an export may send in the byte-bound service: far fewer than {@code readings} holds. */
  static final long SMALL_BYTES = 200_000;

  static ExportDatabase database;
  static Databases databases;
  static RunningService service;
  static RunningService bounded;

  @BeforeAll
  static void start() throws Exception {
    database = new ExportDatabase();
    database.asAdmin("CREATE TABLE awkward (id int PRIMARY KEY, t text, n numeric, f float8, r real, ts timestamp,"
        + " tz timestamptz, d date, arr text[], nums int[], j jsonb, b bytea, flag boolean, big int8)");
    database.asAdmin("INSERT INTO awkward VALUES"
        + " (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (2, '', 0, 0, 0, '2024-02-29 23:59:59.999999', '2024-01-01 12:00:00+05:30', '2024-02-29', '{}', '{}', '{}',"
        + "  '', false, 0),"
        + " (3, 'say \"hi\", then leave', -12.50, -0.0, 1.5, 'infinity', '-infinity', '0044-03-15 BC', '{a,\"b c\",NULL,\"d,e\"}',"
        + "  '{1,NULL,-3}', '{\"k\": [1, \"two\", null]}', '\\x00ff10', true, 9007199254740993),"
        + " (4, E'line one\\nline two\\r\\nline three', 'NaN', 'NaN', 'Infinity', '1999-12-31 00:00:00', '2000-06-15 08:00:00.5+00',"
        + "  '1999-12-31', ARRAY['=cmd', 'x\"y', 'back\\slash'], '{2147483647}', '\"just text\"', '\\x', NULL, -9223372036854775808),"
        + " (5, 'ünïcödé 日本語 😀', 123456789012345678901234567890.123, 1e300, 3.4e38, '2024-01-01 00:00:00', NULL, NULL,"
        + "  NULL, NULL, '[]', NULL, NULL, 123456789012345),"
        + " (6, '=HYPERLINK(\"http://evil.example\")', 1e-20, 1.5e-7, -1e-5, NULL, NULL, NULL, NULL, NULL, 'null', NULL, NULL, NULL),"
        + " (7, '+1', NULL, 0.1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (8, '-2+3', NULL, -1e15, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (9, '@SUM(A1)', NULL, 123.25, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (10, E'\\ttab first', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (11, E'\\rcr first', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (12, '#comment', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (13, 'trailing space ', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
        + " (14, repeat('long ', 200), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
    AppConfig config = database.config(Map.of());
    databases = database.open(config);
    service = RunningService.start(config, databases.target(), databases.state());
    bounded = RunningService.start(database.config(Map.of("SQLAGENT_EXPORT_MAX_BYTES", String.valueOf(SMALL_BYTES))),
        databases.target(), databases.state());
  }

  @AfterAll
  static void stop() throws Exception {
    if (bounded != null) bounded.close();
    if (service != null) service.close();
    if (databases != null) databases.close();
    if (database != null) database.close();
  }

  static HttpResponse<Buffer> post(RunningService s, String path, JsonObject body) throws Exception {
    return s.client.post(s.port(), "127.0.0.1", path).putHeader("content-type", "application/json")
        .sendBuffer(body.toBuffer()).await(120, TimeUnit.SECONDS);
  }

  static final String AWKWARD = "SELECT id, t, n, f, r, ts, tz, d, arr, nums, j, b, flag, big FROM awkward ORDER BY id";

  @Test
  void awkwardValuesAreWrittenExactlyAsTheGatesResultShowsThem() throws Exception {
    HttpResponse<Buffer> export = post(service, "/api/query/export", new JsonObject().put("sql", AWKWARD).put("format", "csv"));
    assertThat(export.statusCode()).as(export.bodyAsString()).isEqualTo(200);
    JsonObject result = post(service, "/api/query", new JsonObject().put("sql", AWKWARD)).bodyAsJsonObject();
    assertThat(result.getBoolean("ok")).as(result.encode()).isTrue();

    // The gate's result, each cell as a CSV shows it (Cells.text), through Commons CSV's RFC 4180 printer.
    JsonArray columns = result.getJsonArray("columns");
    StringWriter expected = new StringWriter();
    CSVPrinter printer = new CSVPrinter(expected, CSVFormat.RFC4180);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) names.add(columns.getJsonObject(i).getString("name"));
    printer.printRecord(names);
    JsonArray rows = result.getJsonArray("rows");
    for (int r = 0; r < rows.size(); r++) {
      JsonArray cells = rows.getJsonArray(r);
      List<String> fields = new ArrayList<>();
      for (int i = 0; i < cells.size(); i++) fields.add(Cells.text(cells.getValue(i), columns.getJsonObject(i).getString("type")));
      printer.printRecord(fields);
    }
    printer.flush();
    assertThat(rows.size()).isEqualTo(14);
    assertThat(export.bodyAsString(StandardCharsets.UTF_8.name())).isEqualTo(expected.toString());

    List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(export.bodyAsString("UTF-8"))).getRecords();
    assertThat(records.get(3).get(1)).isEqualTo("say \"hi\", then leave");
    assertThat(records.get(4).get(1)).isEqualTo("line one\nline two\r\nline three");
    assertThat(records.get(5).get(1)).isEqualTo("ünïcödé 日本語 😀");
    assertThat(records.get(6).get(1)).isEqualTo("'=HYPERLINK(\"http://evil.example\")");
    assertThat(records.get(8).get(1)).isEqualTo("'-2+3");
    assertThat(records.get(8).get(3)).as("a negative number stays a number").isEqualTo("-1e+15");
    assertThat(records.get(10).get(1)).isEqualTo("'\ttab first");
    assertThat(records.get(3).get(11)).isEqualTo("\\x00ff10");
    assertThat(records.get(3).get(13)).isEqualTo("9007199254740993");
  }

  @Test
  void awkwardValuesInXlsxHoldTheGatesValuesAsText() throws Exception {
    HttpResponse<Buffer> export = post(service, "/api/query/export", new JsonObject().put("sql", AWKWARD).put("format", "xlsx"));
    assertThat(export.statusCode()).isEqualTo(200);
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(export.body().getBytes()))) {
      List<Row> rows = wb.getFirstSheet().read();
      assertThat(rows).hasSize(15);
      assertThat(rows.get(3).getCell(1).asString()).isEqualTo("say \"hi\", then leave");
      assertThat(rows.get(4).getCell(1).asString()).isEqualTo("line one\nline two\r\nline three");
      assertThat(rows.get(5).getCell(1).asString()).isEqualTo("ünïcödé 日本語 😀");
      assertThat(rows.get(6).getCell(1).asString()).as("text, never a formula").isEqualTo("=HYPERLINK(\"http://evil.example\")");
      assertThat(rows.get(6).getCell(1).getFormula()).isNull();
      assertThat(rows.get(3).getCell(5).asString()).isEqualTo("infinity");
      assertThat(rows.get(3).getCell(7).asString()).isEqualTo("0044-03-15 BC");
      assertThat(rows.get(3).getCell(13).asString()).isEqualTo("9007199254740993");
      assertThat(rows.get(3).getCell(11).asString()).isEqualTo("\\x00ff10");
    }
  }

  @Test
  void theByteBoundEndsTheFileCleanlyWithItsLine() throws Exception {
    HttpResponse<Buffer> export = post(bounded, "/api/query/export", new JsonObject().put("sql", ExportDatabase.ALL).put("format", "csv"));
    assertThat(export.statusCode()).isEqualTo(200);
    List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(export.bodyAsString("UTF-8"))).getRecords();
    String last = records.get(records.size() - 1).get(0);
    assertThat(last).startsWith("sql-agent: truncated: the export stops after ").contains(SMALL_BYTES + " bytes of data")
        .contains("SQLAGENT_EXPORT_MAX_BYTES");
    int rows = records.size() - 2;
    assertThat(rows).isBetween(500, 3000);
    assertThat(last).contains("after " + rows + " rows");
    for (int i = 1; i <= rows; i++) assertThat(records.get(i).get(0)).isEqualTo(String.valueOf(i));

    HttpResponse<Buffer> xlsx = post(bounded, "/api/query/export", new JsonObject().put("sql", ExportDatabase.ALL).put("format", "xlsx"));
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(xlsx.body().getBytes()))) {
      List<Row> sheet = wb.getFirstSheet().read();
      assertThat(sheet).hasSize(rows + 2);
      assertThat(sheet.get(sheet.size() - 1).getCell(0).asString()).isEqualTo(last);
    }
  }

  @Test
  void aClientThatHangsUpEndsTheExportItsTransactionAndItsSlot() throws Exception {
    for (int i = 0; i < 3; i++) {
      try (RawExport raw = RawExport.post(service.port(), null, ExportDatabase.ALL, "csv")) {
        assertThat(raw.status).isEqualTo(200);
        raw.read(64 * 1024);
      }
    }
    // Every export's transaction ends once its client is gone: none of the reader's stays open in the database.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int open = -1;
    while (System.nanoTime() < deadline) {
      open = openTransactions();
      if (open == 0) break;
      Thread.sleep(200);
    }
    assertThat(open).as("the reader's open transactions after the clients hung up").isZero();
    // And their slots are free: the next export (two at most at once per client) runs whole.
    HttpResponse<Buffer> next = post(service, "/api/query/export", new JsonObject().put("sql", ExportDatabase.ALL).put("format", "csv"));
    assertThat(next.statusCode()).isEqualTo(200);
    assertThat(next.bodyAsString().lines().count()).isEqualTo(ExportDatabase.ROWS + 1);
  }

  static int openTransactions() throws Exception {
    try (Connection c = database.adminConnection(); Statement s = c.createStatement();
         ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + database.reader
             + "' AND xact_start IS NOT NULL")) {
      r.next();
      return r.getInt(1);
    }
  }
}
