package dev.sqlagent.export;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;
import java.util.Optional;

/** The formats a result is exported in. */
public enum ExportFormat {
  /** RFC 4180: comma-separated, CRLF line ends, quotes doubled, UTF-8, a header line. */
  CSV("csv", "text/csv; charset=utf-8"),
  /** Office Open XML spreadsheet: numbers as numbers, dates and timestamps as dates, text as text. */
  XLSX("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");

  /** The most data rows one sheet can hold: Excel's 1,048,576 rows less the header and the closing note. */
  public static final int XLSX_MAX_ROWS = 1_048_574;

  private final String wireName;
  private final String contentType;

  ExportFormat(String wireName, String contentType) {
    this.wireName = wireName;
    this.contentType = contentType;
  }

  public String wireName() {
    return wireName;
  }

  public String contentType() {
    return contentType;
  }

  /** The most rows this format takes, within {@code configured}. */
  public int maxRows(int configured) {
    return this == XLSX ? Math.min(configured, XLSX_MAX_ROWS) : configured;
  }

  /** {@code csv} or {@code xlsx} (any case); empty for anything else. */
  public static Optional<ExportFormat> of(String name) {
    if (name == null) return Optional.empty();
    String n = name.trim().toLowerCase(Locale.ROOT);
    for (ExportFormat f : values()) if (f.wireName.equals(n)) return Optional.of(f);
    return Optional.empty();
  }

  /** What a client is told when it names another format. */
  public static String expected(String given) {
    return "unknown export format '" + given + "': use format=csv or format=xlsx";
  }

  /** Rows {@link #warmUp} writes in each format: enough for the JIT to compile the writers' loops. */
  static final int WARM_UP_ROWS = 20_000;

  /**
   * Writes a made-up result of every kind of cell in each format and drops the bytes, so that a service's first export
   * does not wait for the writers (and the zip) to be loaded and compiled. Blocking, a few hundred milliseconds: for a
   * thread of its own while the service starts. Nothing is read from any database.
   */
  public static void warmUp() {
    long t0 = System.nanoTime();
    for (ExportFormat format : values()) {
      try {
        format.warmUpWriter();
      } catch (IOException | RuntimeException e) {
        LoggerFactory.getLogger(ExportFormat.class).debug("the {} writer's warm-up failed: {}", format.wireName, e.toString());
      }
    }
    LoggerFactory.getLogger(ExportFormat.class).debug("export writers warmed up in {} ms", (System.nanoTime() - t0) / 1_000_000);
  }

  /** {@link #warmUp} of this format's writer: the bytes it wrote. */
  long warmUpWriter() throws IOException {
    JsonArray columns = new JsonArray();
    String[] types = {"int4", "text", "numeric", "float8", "date", "timestamp", "timestamptz", "bool", "text", "int8"};
    for (int c = 0; c < types.length; c++) columns.add(new JsonObject().put("name", "c" + c).put("type", types[c]));
    TableWriter writer = writer();
    writer.start(columns);
    long bytes = 0;
    for (int from = 0; from < WARM_UP_ROWS; from += 2000) {
      List<Object[]> rows = new ArrayList<>(2000);
      for (int i = from; i < from + 2000; i++) {
        rows.add(new Object[] {String.valueOf(i), "name " + i, i + ".25", String.valueOf(i / 7.0), "2024-01-02",
            "2024-01-01 08:31:00", "2024-01-01 00:00:01+00", i % 2 == 0 ? "true" : "false",
            i % 100 == 0 ? "=1+2, \"quoted\"" : i % 10 == 0 ? null : "note " + i, String.valueOf(i * 1000000007L)});
      }
      writer.rows(rows);
      bytes += writer.take().length();
    }
    writer.end("warm-up");
    return bytes + writer.take().length();
  }

  /** A writer of this format (the gate's side of an export writes the file: {@link ExportFile}). */
  TableWriter writer() {
    return this == CSV ? new CsvTableWriter() : new XlsxTableWriter();
  }
}
