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
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.dhatim.fastexcel.reader.CellType;
import org.dhatim.fastexcel.reader.ReadableWorkbook;
import org.dhatim.fastexcel.reader.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * An export's cells are PostgreSQL's own text of each value: a CSV field reads exactly as PostgreSQL prints the value
 * (floats too, where Java's shortest digits are not PostgreSQL's), an XLSX number holds PostgreSQL's digits; and the
 * first export of a service finds its database connection already signed in.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExportTextTest {

  /** A value of each type of the export benchmark's table, some that Java prints otherwise than PostgreSQL. */
  static final List<String> VALUES = List.of("42::int4", "(-2147483648)::int4", "9223372036854775807::int8",
      "-48.75::numeric(12,2)", "0.00000001::numeric", "2.82879384806159e17::float8", "0.1::float8", "1e300::float8",
      "1.5e-7::float8", "'NaN'::float8", "'-Infinity'::float8", "0.1::float4", "date '2024-02-29'",
      "timestamp '2024-01-01 08:30:00.123456'", "timestamptz '2024-01-01 00:00:01.5+00'", "true", "false",
      "'plain note'::text");

  static ExportDatabase database;
  static Databases databases;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    database = new ExportDatabase();
    AppConfig config = database.config(Map.of());
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

  static String select() {
    List<String> columns = new ArrayList<>();
    for (int i = 0; i < VALUES.size(); i++) columns.add(VALUES.get(i) + " AS v" + i);
    return "SELECT " + String.join(", ", columns);
  }

  /** The reader role's open connections to the export database, once their number stopped changing. */
  static int readerConnections() throws Exception {
    int last = -1;
    int same = 0;
    for (int i = 0; i < 100 && same < 3; i++) {
      int now;
      try (Connection c = database.adminConnection(); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + database.reader + "'")) {
        rs.next();
        now = rs.getInt(1);
      }
      same = now == last ? same + 1 : 0;
      last = now;
      Thread.sleep(200);
    }
    return last;
  }

  @Test
  @Order(1)
  void theFirstExportFindsItsConnectionOpen() throws Exception {
    int before = readerConnections();
    var resp = export("SELECT id, name FROM readings WHERE id <= 10 ORDER BY id", "csv");
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(readerConnections()).as("the export used a connection opened when the service started").isEqualTo(before);
  }

  @Test
  void everyCsvFieldIsPostgresTextOfTheValue() throws Exception {
    List<String> expected = new ArrayList<>();
    try (Connection c = database.adminConnection(); Statement s = c.createStatement()) {
      for (String v : VALUES) {
        try (ResultSet rs = s.executeQuery("SELECT (" + v + ")::text")) {
          rs.next();
          expected.add(rs.getString(1));
        }
      }
    }
    var resp = export(select(), "csv");
    assertThat(resp.statusCode()).isEqualTo(200);
    List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(resp.bodyAsString(StandardCharsets.UTF_8.name())))
        .getRecords();
    assertThat(records).hasSize(2);
    List<String> written = new ArrayList<>();
    records.get(1).forEach(written::add);
    // A number's text is never neutralised: -Infinity stays as PostgreSQL prints it.
    assertThat(written).isEqualTo(expected);
  }

  @Test
  void anXlsxNumberHoldsPostgresDigits() throws Exception {
    var resp = export("SELECT 0.00000001::numeric AS tiny, 2.82879384806159e17::float8 AS wide, 42::int4 AS n", "xlsx");
    assertThat(resp.statusCode()).isEqualTo(200);
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(resp.body().getBytes()))) {
      List<Row> rows = wb.getFirstSheet().read();
      Row row = rows.get(1);
      assertThat(row.getCell(0).getType()).isEqualTo(CellType.NUMBER);
      assertThat(row.getCell(0).getRawValue()).isEqualTo("0.00000001");
      assertThat(row.getCell(1).getType()).isEqualTo(CellType.NUMBER);
      assertThat(row.getCell(1).getRawValue()).isEqualTo("2.82879384806159e+17");
      assertThat(row.getCell(2).getRawValue()).isEqualTo("42");
    }
  }

  @Test
  void anXlsxDateIsTheSpreadsheetsDayAndOneBefore1900StaysText() throws Exception {
    var resp = export("SELECT date '2024-01-02' AS d, date '1900-02-28' AS early, date '1900-03-01' AS after_gap,"
        + " date '1850-03-01' AS old, timestamp '1899-12-31 23:00:00' AS old_at, timestamp '2024-01-01 12:00:00' AS noon",
        "xlsx");
    assertThat(resp.statusCode()).isEqualTo(200);
    try (ReadableWorkbook wb = new ReadableWorkbook(new ByteArrayInputStream(resp.body().getBytes()))) {
      Row row = wb.getFirstSheet().read().get(1);
      // The days spreadsheets give these dates (1900-03-01 is 61: they count a 29 February 1900), as whole numbers.
      assertThat(row.getCell(0).getRawValue()).isEqualTo("45293");
      assertThat(row.getCell(1).getRawValue()).isEqualTo("59");
      assertThat(row.getCell(2).getRawValue()).isEqualTo("61");
      assertThat(row.getCell(0).asDate()).isEqualTo(java.time.LocalDateTime.of(2024, 1, 2, 0, 0));
      // A spreadsheet has no day before 1900: the cell is PostgreSQL's text, never a wrong number.
      assertThat(row.getCell(3).getType()).isEqualTo(CellType.STRING);
      assertThat(row.getCell(3).asString()).isEqualTo("1850-03-01");
      assertThat(row.getCell(4).getType()).isEqualTo(CellType.STRING);
      assertThat(row.getCell(4).asString()).isEqualTo("1899-12-31 23:00:00");
      assertThat(row.getCell(5).asDate()).isEqualTo(java.time.LocalDateTime.of(2024, 1, 1, 12, 0));
    }
  }
}
