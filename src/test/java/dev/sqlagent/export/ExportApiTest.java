package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.dhatim.fastexcel.reader.CellType;
import org.dhatim.fastexcel.reader.ReadableWorkbook;
import org.dhatim.fastexcel.reader.ReadingOptions;
import org.dhatim.fastexcel.reader.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/query/export} over real HTTP on a database that is not the demo: CSV (RFC 4180, a header, every
 * row of a 100,000-row result), XLSX read back with a spreadsheet reader (numbers, dates and booleans typed), cells
 * that look like formulas neutralised, the truncation line when the export's cap cuts a result, and the errors.
 */
class ExportApiTest {

  static ExportDatabase database;
  static Databases databases;
  static RunningService service;
  static AppConfig config;

  @BeforeAll
  static void start() throws Exception {
    database = new ExportDatabase();
    config = database.config(Map.of());
    databases = database.open(config);
    service = RunningService.start(config, databases.target(), databases.state());
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    if (databases != null) databases.close();
    if (database != null) database.close();
  }

  static HttpResponse<Buffer> export(String sql, String format) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", "/api/query/export").putHeader("content-type", "application/json")
        .sendBuffer(new JsonObject().put("sql", sql).put("format", format).toBuffer()).await(120, TimeUnit.SECONDS);
  }

  static List<CSVRecord> csv(HttpResponse<Buffer> resp) throws Exception {
    return CSVFormat.RFC4180.parse(new StringReader(resp.bodyAsString(StandardCharsets.UTF_8.name()))).getRecords();
  }

  @Test
  void aHundredThousandRowsAsCsvWithAHeaderAndFormulasNeutralised() throws Exception {
    var resp = export(ExportDatabase.ALL, "csv");
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.getHeader("content-type")).startsWith("text/csv");
    assertThat(resp.getHeader("content-disposition")).contains("attachment").contains(".csv");
    String text = resp.bodyAsString("UTF-8");
    assertThat(text).startsWith("id,name,amount,ratio,taken_on,taken_at,seen_at,ok,note,big\r\n");
    List<CSVRecord> records = csv(resp);
    assertThat(records).hasSize(ExportDatabase.ROWS + 1);
    assertThat(records.get(records.size() - 1).get(0)).isEqualTo(String.valueOf(ExportDatabase.ROWS));
    CSVRecord first = records.get(1);
    assertThat(first.get(0)).isEqualTo("1");
    assertThat(first.get(2)).as("a negative number stays a number").isEqualTo("-48.75");
    assertThat(first.get(4)).isEqualTo("2024-01-02");
    assertThat(first.get(5)).as("a timestamp as PostgreSQL prints it").isEqualTo("2024-01-01 08:31:00");
    assertThat(first.get(6)).as("a timestamptz in the session's time zone").isEqualTo("2024-01-01 00:00:01+00");
    assertThat(first.get(7)).isEqualTo("false");
    assertThat(first.get(8)).isEqualTo("'=HYPERLINK(\"http://evil.example\",\"click\")");
    assertThat(records.get(2).get(8)).isEqualTo("'+1+2");
    assertThat(records.get(3).get(8)).isEqualTo("'@SUM(A1:A2)");
    assertThat(records.get(4).get(8)).isEqualTo("'-2+3");
    assertThat(records.get(5).get(8)).isEqualTo("plain note 5");
    assertThat(text).doesNotContain("sql-agent: truncated");
  }

  @Test
  void aResultPastTheExportCapEndsWithATruncatedLine() throws Exception {
    String doubled = "SELECT r.id, g AS copy FROM readings r CROSS JOIN generate_series(1, 2) g ORDER BY r.id, g";
    List<CSVRecord> records = csv(export(doubled, "csv"));
    assertThat(records).hasSize(1 + ExportDatabase.ROWS + 1);
    assertThat(records.get(ExportDatabase.ROWS).get(0)).isEqualTo("50000");
    assertThat(records.get(records.size() - 1).get(0))
        .startsWith("sql-agent: truncated: the export stops at 100000 rows (SQLAGENT_EXPORT_MAX_ROWS)");

    var xlsx = export(doubled, "xlsx");
    assertThat(xlsx.statusCode()).isEqualTo(200);
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(xlsx.body().getBytes()))) {
      List<Row> rows = wb.getFirstSheet().read();
      assertThat(rows).hasSize(1 + ExportDatabase.ROWS + 1);
      assertThat(rows.get(rows.size() - 1).getCell(0).asString()).startsWith("sql-agent: truncated");
    }
  }

  @Test
  void xlsxHasTypedCells() throws Exception {
    var resp = export("SELECT id, name, amount, ratio, taken_on, taken_at, seen_at, ok, note, big FROM readings"
        + " WHERE id <= 50 ORDER BY id", "xlsx");
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.getHeader("content-type")).isEqualTo(ExportFormat.XLSX.contentType());
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(resp.body().getBytes()),
        new ReadingOptions(true, false))) {
      List<Row> rows = wb.getFirstSheet().read();
      assertThat(rows).hasSize(51);
      assertThat(rows.get(0).getCell(0).asString()).isEqualTo("id");
      assertThat(rows.get(0).getCell(9).asString()).isEqualTo("big");
      Row first = rows.get(1);
      assertThat(first.getCell(0).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(0).asNumber()).isEqualByComparingTo("1");
      assertThat(first.getCell(2).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(2).asNumber()).isEqualByComparingTo(new BigDecimal("-48.75"));
      assertThat(first.getCell(3).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(4).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(4).getDataFormatString()).isEqualTo(XlsxTableWriter.DATE_FORMAT);
      assertThat(first.getCell(4).asDate()).isEqualTo(LocalDate.of(2024, 1, 2).atStartOfDay());
      assertThat(first.getCell(5).asDate()).isEqualTo(LocalDateTime.of(2024, 1, 1, 8, 31));
      assertThat(first.getCell(5).getDataFormatString()).isEqualTo(XlsxTableWriter.TIMESTAMP_FORMAT);
      assertThat(first.getCell(6).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(7).getType()).isEqualTo(CellType.BOOLEAN);
      assertThat(first.getCell(7).asBoolean()).isFalse();
      assertThat(first.getCell(8).getType()).isEqualTo(CellType.STRING);
      // An inline string is never evaluated: it is the text itself, no apostrophe in front.
      assertThat(first.getCell(8).asString()).isEqualTo("=HYPERLINK(\"http://evil.example\",\"click\")");
      assertThat(first.getCell(8).getFormula()).isNull();
      assertThat(first.getCell(9).asNumber()).isEqualByComparingTo("1000000007");
      assertThat(rows.get(4).getCell(8).asString()).isEqualTo("-2+3");
      assertThat(rows.get(4).getCell(8).getFormula()).isNull();
    }
  }

  /** Floats as PostgreSQL prints them in CSV; integers past a spreadsheet's 15 digits kept whole (as text) in XLSX. */
  @Test
  void numbersAreWrittenAsPostgresShowsThemAndBigintsStayExact() throws Exception {
    String sql = "SELECT 1e300::float8 AS huge, 1.5e-7::float8 AS tiny, 123.25::float8 AS plain, -1e15::float8 AS wide,"
        + " 1e6::float4 AS real_big, 9007199254740993::int8 AS past_double, 123456789012345::int8 AS fits";
    var csv = export(sql, "csv");
    assertThat(csv.statusCode()).as(csv.bodyAsString()).isEqualTo(200);
    CSVRecord row = csv(csv).get(1);
    assertThat(List.of(row.get(0), row.get(1), row.get(2), row.get(3), row.get(4), row.get(5), row.get(6)))
        .containsExactly("1e+300", "1.5e-07", "123.25", "-1e+15", "1e+06", "9007199254740993", "123456789012345");
    var xlsx = export(sql, "xlsx");
    assertThat(xlsx.statusCode()).isEqualTo(200);
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(xlsx.body().getBytes()),
        new ReadingOptions(true, false))) {
      Row first = wb.getFirstSheet().read().get(1);
      assertThat(first.getCell(0).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(5).getType()).isEqualTo(CellType.STRING);
      assertThat(first.getCell(5).asString()).isEqualTo("9007199254740993");
      assertThat(first.getCell(6).getType()).isEqualTo(CellType.NUMBER);
      assertThat(first.getCell(6).asNumber()).isEqualByComparingTo("123456789012345");
    }
  }

  /** The MCP export's own cap (what one reply holds) is the one its truncation line names, not a setting above it. */
  @Test
  void anMcpExportCutByItsOwnCapSaysSo() throws Exception {
    var tools = new dev.sqlagent.tools.DatabaseTools(service.vertx, AppConfig.load(Map.of()).deadlines(),
        new ExportStream.Limits(100_000, 64L * 1024 * 1024));
    var result = tools.call(dev.sqlagent.tools.DatabaseTools.EXPORT, new JsonObject()
        .put("sql", "SELECT g FROM generate_series(1, " + (dev.sqlagent.tools.DatabaseTools.MCP_EXPORT_MAX_ROWS + 5) + ") g"),
        null, null).await(120, TimeUnit.SECONDS);
    assertThat(result.error()).as(String.valueOf(result.data())).isFalse();
    assertThat(result.data().getBoolean("truncated")).isTrue();
    String last = result.data().getString("csv").strip().lines().reduce((a, b) -> b).orElse("");
    assertThat(last).startsWith("sql-agent: truncated").contains("one MCP reply holds at most 10000 rows")
        .doesNotContain("SQLAGENT_EXPORT_MAX_ROWS");
  }

  @Test
  void theGateRefusesBeforeTheFileBeginsAndBadRequestsAreJson() throws Exception {
    var write = export("DELETE FROM readings", "csv");
    assertThat(write.statusCode()).isEqualTo(422);
    assertThat(write.getHeader("content-type")).startsWith("application/json");
    assertThat(write.bodyAsJsonObject().getString("error_type")).isEqualTo("rejected");
    var unknown = export("SELECT * FROM no_such_table", "csv");
    assertThat(unknown.statusCode()).isEqualTo(422);
    assertThat(unknown.bodyAsJsonObject().getString("error_type")).isEqualTo("unknown_table");
    var format = export("SELECT 1", "pdf");
    assertThat(format.statusCode()).isEqualTo(400);
    assertThat(format.bodyAsJsonObject().getString("message")).contains("format=csv or format=xlsx");
    var noSql = service.client.post(service.port(), "127.0.0.1", "/api/query/export").putHeader("content-type", "application/json")
        .sendBuffer(Buffer.buffer("{}")).await(30, TimeUnit.SECONDS);
    assertThat(noSql.statusCode()).isEqualTo(400);
    assertThat(noSql.bodyAsJsonObject().getString("error_type")).isEqualTo("bad_request");
    // An error in the first rows read is the gate's error, before the file begins.
    var failsFirst = export("SELECT g, 100 / (g - 1) AS q FROM generate_series(1, 100000) g", "csv");
    assertThat(failsFirst.statusCode()).isEqualTo(422);
    assertThat(failsFirst.bodyAsJsonObject().getString("error_type")).isEqualTo("division_by_zero");
  }

  @Test
  void rowsLeaveAsPostgresqlProducesThemAndALateErrorEndsTheFile() throws Exception {
    // The checked plan streams: the rows before row 50,000 are in the file, then a last line says why it ends there.
    var failsLate = export("SELECT g, 100 / (50000 - g) AS q FROM generate_series(1, 100000) g", "csv");
    assertThat(failsLate.statusCode()).isEqualTo(200);
    List<CSVRecord> records = csv(failsLate);
    assertThat(records.get(0).values()).containsExactly("g", "q");
    assertThat(records.get(1).values()).containsExactly("1", "0");
    assertThat(records.get(records.size() - 1).get(0))
        .startsWith("sql-agent: the export failed after the rows above: division by zero");
    // Rows 1 to 49,999 are the only ones with a value, each in its place.
    int rows = records.size() - 2;
    assertThat(rows).isBetween(1, 49_999);
    assertThat(records.get(rows).get(0)).isEqualTo(String.valueOf(rows));
  }

  @Test
  void theWarmUpMakesEveryPassWholeInTurn() throws Exception {
    long onePass = ExportWarmUp.exports(service.vertx, config).await(120, TimeUnit.SECONDS);
    // Without waiting for the JIT (the suite's JVM is rarely idle), three passes read three times as much.
    assertThat(ExportWarmUp.run(service.vertx, config, 3, 0).await(300, TimeUnit.SECONDS)).isEqualTo(3 * onePass);
    // A pass that fails (here no gate answers) ends the warm-up, which completes all the same: the service goes on.
    io.vertx.core.Vertx alone = io.vertx.core.Vertx.vertx();
    try {
      assertThat(ExportWarmUp.run(alone, config, 3, 0).await(120, TimeUnit.SECONDS)).isZero();
    } finally {
      alone.close().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void theWarmUpExportsEachFormatThroughTheRoutesAndItsPortAnswersOnlyItsSecret() throws Exception {
    // Both formats' made-up rows, read to their end: every row of the CSV and a whole XLSX.
    long bytes = ExportWarmUp.exports(service.vertx, config).await(120, TimeUnit.SECONDS);
    assertThat(bytes).isGreaterThan(ExportWarmUp.ROWS * 100L);
    // Its routes serve a request with the secret only: the port lets nobody else export.
    io.vertx.core.http.HttpServer server = service.vertx.createHttpServer()
        .requestHandler(ExportWarmUp.router(service.vertx, config, "s3cret")).listen(0, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
    try {
      JsonObject body = new JsonObject().put("sql", "SELECT 1 AS one").put("format", "csv");
      var without = service.client.post(server.actualPort(), "127.0.0.1", "/api/query/export")
          .sendJsonObject(body).await(30, TimeUnit.SECONDS);
      assertThat(without.statusCode()).isEqualTo(404);
      var wrong = service.client.post(server.actualPort(), "127.0.0.1", "/api/query/export")
          .putHeader(ExportWarmUp.SECRET_HEADER, "guess").sendJsonObject(body).await(30, TimeUnit.SECONDS);
      assertThat(wrong.statusCode()).isEqualTo(404);
      var with = service.client.post(server.actualPort(), "127.0.0.1", "/api/query/export")
          .putHeader(ExportWarmUp.SECRET_HEADER, "s3cret").sendJsonObject(body).await(30, TimeUnit.SECONDS);
      assertThat(with.statusCode()).isEqualTo(200);
      assertThat(with.bodyAsString()).isEqualTo("one\r\n1\r\n");
    } finally {
      server.close().await(10, TimeUnit.SECONDS);
    }
  }
}
