package dev.sqlagent.export;

import java.util.Locale;
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

  /** A writer of this format (the gate's side of an export writes the file: {@link ExportFile}). */
  TableWriter writer() {
    return this == CSV ? new CsvTableWriter() : new XlsxTableWriter();
  }
}
