package dev.sqlagent.export;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * XLSX written as it streams: one sheet whose XML is written byte by byte straight into the zip, each chunk's rows as
 * they come (text as inline strings, so no table of every string is kept), numbers as numbers, dates and timestamps
 * from 1900 on as dates with a date format (a spreadsheet has no earlier days: those stay PostgreSQL's text), booleans
 * as booleans, the header in bold. The zip is deflated at the fastest level: the sheet's XML is repetitive, so it still
 * shrinks several times, at a fraction of the default level's cost.
 */
final class XlsxTableWriter implements TableWriter {

  static final String DATE_FORMAT = "yyyy-mm-dd";
  static final String TIMESTAMP_FORMAT = "yyyy-mm-dd hh:mm:ss";

  /** How each column's cells are written, decided once from its type. */
  private enum Kind { NUMBER, BOOL, DATE, TIMESTAMP, OTHER }

  /** The styles of {@link #STYLES}, by their index. */
  private static final int BOLD = 1;
  private static final int DATE = 2;
  private static final int TIMESTAMP = 3;
  private static final int ITALIC = 4;

  private static final String XML = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";
  private static final String MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  private static final String RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  private static final String CONTENT_TYPES = XML
      + "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
      + "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
      + "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
      + "<Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
      + "<Override PartName=\"/xl/styles.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>"
      + "<Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
      + "<Override PartName=\"/docProps/app.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.extended-properties+xml\"/>"
      + "</Types>";
  private static final String ROOT_RELS = XML
      + "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
      + "<Relationship Id=\"rId1\" Type=\"" + RELATIONSHIPS + "/officeDocument\" Target=\"xl/workbook.xml\"/>"
      + "<Relationship Id=\"rId2\" Type=\"" + RELATIONSHIPS + "/extended-properties\" Target=\"docProps/app.xml\"/>"
      + "</Relationships>";
  private static final String APP = XML
      + "<Properties xmlns=\"http://schemas.openxmlformats.org/officeDocument/2006/extended-properties\">"
      + "<Application>sql-agent</Application></Properties>";
  private static final String WORKBOOK = XML
      + "<workbook xmlns=\"" + MAIN + "\" xmlns:r=\"" + RELATIONSHIPS + "\"><workbookPr date1904=\"false\"/>"
      + "<bookViews><workbookView activeTab=\"0\"/></bookViews>"
      + "<sheets><sheet name=\"result\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
  private static final String WORKBOOK_RELS = XML
      + "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
      + "<Relationship Id=\"rId1\" Type=\"" + RELATIONSHIPS + "/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
      + "<Relationship Id=\"rId2\" Type=\"" + RELATIONSHIPS + "/styles\" Target=\"styles.xml\"/>"
      + "</Relationships>";
  /** Plain, bold (the header), a date, a timestamp, italic (the closing note). */
  private static final String STYLES = XML
      + "<styleSheet xmlns=\"" + MAIN + "\">"
      + "<numFmts count=\"2\"><numFmt numFmtId=\"165\" formatCode=\"" + DATE_FORMAT + "\"/>"
      + "<numFmt numFmtId=\"166\" formatCode=\"" + TIMESTAMP_FORMAT + "\"/></numFmts>"
      + "<fonts count=\"3\"><font><sz val=\"11\"/><color rgb=\"FF000000\"/><name val=\"Calibri\"/></font>"
      + "<font><b/><sz val=\"11\"/><color rgb=\"FF000000\"/><name val=\"Calibri\"/></font>"
      + "<font><i/><sz val=\"11\"/><color rgb=\"FF000000\"/><name val=\"Calibri\"/></font></fonts>"
      + "<fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill><fill><patternFill patternType=\"gray125\"/></fill></fills>"
      + "<borders count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders>"
      + "<cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>"
      + "<cellXfs count=\"5\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>"
      + "<xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/>"
      + "<xf numFmtId=\"165\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      + "<xf numFmtId=\"166\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      + "<xf numFmtId=\"0\" fontId=\"2\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/></cellXfs>"
      + "<cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>"
      + "</styleSheet>";
  private static final String SHEET_START = XML
      + "<worksheet xmlns=\"" + MAIN + "\" xmlns:r=\"" + RELATIONSHIPS + "\"><sheetData>";
  private static final String SHEET_END = "</sheetData></worksheet>";

  private Buffer bytes = Buffer.buffer(1 << 16);
  private final ZipOutputStream zip = new ZipOutputStream(new OutputStream() {
    @Override
    public void write(int b) {
      bytes.appendByte((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes.appendBytes(b, off, len);
    }
  });
  /** The sheet's XML not yet deflated. */
  private byte[] out = new byte[1 << 16];
  private int at;
  private Kind[] kinds = new Kind[0];
  private String[] types = new String[0];
  /** Each column's letters (A, B, ..., AA), as a cell's reference starts. */
  private byte[][] letters = new byte[0][];
  /** The row being written, one-based as the sheet counts, and its digits (every cell's reference ends with them). */
  private int row;
  private final byte[] rowDigits = new byte[10];
  private int rowDigitCount;

  XlsxTableWriter() {
    zip.setLevel(Deflater.BEST_SPEED);
  }

  @Override
  public void start(JsonArray columns) throws IOException {
    part("[Content_Types].xml", CONTENT_TYPES);
    part("_rels/.rels", ROOT_RELS);
    part("docProps/app.xml", APP);
    part("xl/workbook.xml", WORKBOOK);
    part("xl/_rels/workbook.xml.rels", WORKBOOK_RELS);
    part("xl/styles.xml", STYLES);
    zip.putNextEntry(new ZipEntry("xl/worksheets/sheet1.xml"));
    ascii(SHEET_START);
    int n = columns.size();
    kinds = new Kind[n];
    types = new String[n];
    letters = new byte[n][];
    row = 1;
    rowStart();
    for (int c = 0; c < n; c++) {
      JsonObject column = columns.getJsonObject(c);
      String type = column.getString("type");
      types[c] = type;
      kinds[c] = Cells.numeric(type) ? Kind.NUMBER : "bool".equals(type) ? Kind.BOOL : "date".equals(type) ? Kind.DATE
          : "timestamp".equals(type) || "timestamptz".equals(type) ? Kind.TIMESTAMP : Kind.OTHER;
      letters[c] = columnLetters(c).getBytes(StandardCharsets.US_ASCII);
      text(c, BOLD, column.getString("name"));
    }
    rowEnd();
    deflate();
  }

  /** A part of the package other than the sheet: fixed XML. */
  private void part(String name, String xml) throws IOException {
    zip.putNextEntry(new ZipEntry(name));
    zip.write(xml.getBytes(StandardCharsets.UTF_8));
    zip.closeEntry();
  }

  @Override
  public void rows(List<Object[]> rows) throws IOException {
    for (Object[] cells : rows) {
      row++;
      rowStart();
      for (int c = 0; c < cells.length; c++) {
        if (cells[c] != null) cell(c, cells[c]);
      }
      rowEnd();
    }
    deflate();
  }

  /** Writes one cell (not null). */
  private void cell(int c, Object value) {
    Kind kind = c < kinds.length ? kinds[c] : Kind.OTHER;
    String type = c < types.length ? types[c] : "";
    if (value instanceof Boolean b) {
      bool(c, b);
      return;
    }
    // A boolean's text: bool::text is true or false.
    if (kind == Kind.BOOL && ("true".equals(value) || "false".equals(value))) {
      bool(c, "true".equals(value));
      return;
    }
    if (kind == Kind.NUMBER || value instanceof Number) {
      Number n = value instanceof String text ? Cells.number(text, type) : Cells.number(value);
      if (n != null && Cells.tooLongForASpreadsheet(n)) {
        text(c, 0, new BigDecimal(n.toString()).toPlainString());
        return;
      }
      if (n != null) {
        number(c, 0, n.toString());
        return;
      }
    }
    if (kind == Kind.DATE) {
      LocalDate d = Cells.date(value);
      if (d != null && d.getYear() >= Cells.SPREADSHEET_FIRST_YEAR) {
        // The day's number, written as digits: no double to print for a whole day.
        number(c, DATE, Long.toString(Cells.spreadsheetDay(d)));
        return;
      }
    }
    if (kind == Kind.TIMESTAMP) {
      LocalDateTime t = Cells.timestamp(value);
      if (t != null && t.getYear() >= Cells.SPREADSHEET_FIRST_YEAR) {
        cellStart(c, TIMESTAMP);
        ascii("><v>");
        serial(t);
        ascii("</v></c>");
        return;
      }
    }
    // An inline string is never evaluated by a spreadsheet: it is written as it is, without CSV's apostrophe.
    text(c, 0, Cells.plain(value, type));
  }

  /**
   * A timestamp from 1900 on as the spreadsheet's day and fraction of a day, to the millisecond (a spreadsheet keeps no
   * more): the fraction's first {@link #FRACTION_DIGITS} decimals, rounded, far finer than a millisecond, so the cell
   * reads back as the very millisecond. Written from integers: no double is printed.
   */
  private void serial(LocalDateTime t) {
    long ms = ((t.getHour() * 60L + t.getMinute()) * 60L + t.getSecond()) * 1000L + t.getNano() / 1_000_000;
    long day = Cells.spreadsheetDay(t.toLocalDate());
    // ms / 86,400,000 days in units of 10^-12 days: ms * 10^7 / 864, rounded (no overflow: under 10^15).
    long scaled = (ms * 20_000_000L + 864) / 1728;
    if (scaled >= FRACTION_SCALE) {
      day++;
      scaled -= FRACTION_SCALE;
    }
    longDigits(day);
    if (scaled == 0) return;
    room(FRACTION_DIGITS + 1);
    out[at++] = '.';
    int end = at + FRACTION_DIGITS;
    for (int i = end; i > at; scaled /= 10) out[--i] = (byte) ('0' + scaled % 10);
    while (out[end - 1] == '0') end--;
    at = end;
  }

  /** Decimals of a timestamp's fraction of a day: 10^-12 of a day is under a tenth of a microsecond. */
  private static final int FRACTION_DIGITS = 12;
  private static final long FRACTION_SCALE = 1_000_000_000_000L;

  private void longDigits(long v) {
    ascii(Long.toString(v));
  }

  private void rowStart() {
    String digits = Integer.toString(row);
    rowDigitCount = digits.length();
    digits.getBytes(0, rowDigitCount, rowDigits, 0);
    ascii("<row r=\"");
    rowDigits();
    ascii("\">");
  }

  private void rowDigits() {
    room(rowDigitCount);
    System.arraycopy(rowDigits, 0, out, at, rowDigitCount);
    at += rowDigitCount;
  }

  private void rowEnd() {
    ascii("</row>");
  }

  /** {@code <c r="B12"} and the style, when it has one. */
  private void cellStart(int c, int style) {
    ascii("<c r=\"");
    byte[] l = c < letters.length ? letters[c] : columnLetters(c).getBytes(StandardCharsets.US_ASCII);
    room(l.length);
    System.arraycopy(l, 0, out, at, l.length);
    at += l.length;
    rowDigits();
    if (style != 0) {
      ascii("\" s=\"");
      room(1);
      out[at++] = (byte) ('0' + style);
    }
    ascii("\"");
  }

  private void bool(int c, boolean b) {
    cellStart(c, 0);
    ascii(b ? " t=\"b\"><v>1</v></c>" : " t=\"b\"><v>0</v></c>");
  }

  /** A number cell: {@code digits} are its text (ASCII). */
  private void number(int c, int style, String digits) {
    cellStart(c, style);
    ascii("><v>");
    ascii(digits);
    ascii("</v></c>");
  }

  /** An inline string cell: XML-escaped, UTF-8, without the characters XML cannot hold. */
  private void text(int c, int style, String s) {
    cellStart(c, style);
    ascii(" t=\"inlineStr\"><is><t>");
    escaped(s);
    ascii("</t></is></c>");
  }

  private void escaped(String s) {
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char ch = s.charAt(i);
      room(12);
      if (ch >= 0x20 && ch < 0x7f) {
        switch (ch) {
          case '<' -> ascii("&lt;");
          case '>' -> ascii("&gt;");
          case '&' -> ascii("&amp;");
          case '"' -> ascii("&quot;");
          case '\'' -> ascii("&apos;");
          default -> out[at++] = (byte) ch;
        }
      } else if (ch == '\t' || ch == '\n' || ch == '\r') {
        // As references: an XML reader turns a bare CR or CRLF into LF.
        ascii(ch == '\t' ? "&#x9;" : ch == '\n' ? "&#xa;" : "&#xd;");
      } else if (ch < 0x20) {
        // Not a character XML 1.0 allows: left out.
      } else if (ch < 0x80) {
        out[at++] = (byte) ch;
      } else if (ch < 0x800) {
        out[at++] = (byte) (0xc0 | ch >> 6);
        out[at++] = (byte) (0x80 | ch & 0x3f);
      } else if (Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(ch, s.charAt(++i));
        out[at++] = (byte) (0xf0 | cp >> 18);
        out[at++] = (byte) (0x80 | cp >> 12 & 0x3f);
        out[at++] = (byte) (0x80 | cp >> 6 & 0x3f);
        out[at++] = (byte) (0x80 | cp & 0x3f);
      } else if (Character.isSurrogate(ch) || ch == 0xfffe || ch == 0xffff) {
        // A lone surrogate or a non-character: left out, as XML cannot hold it.
      } else {
        out[at++] = (byte) (0xe0 | ch >> 12);
        out[at++] = (byte) (0x80 | ch >> 6 & 0x3f);
        out[at++] = (byte) (0x80 | ch & 0x3f);
      }
    }
  }

  /** Text known to be ASCII (markup, digits). */
  private void ascii(String s) {
    int n = s.length();
    room(n);
    s.getBytes(0, n, out, at);
    at += n;
  }

  /** Room for {@code n} more bytes in {@link #out}: a full buffer goes into the zip first. */
  private void room(int n) {
    if (at + n <= out.length) return;
    flushXml();
    if (n > out.length) out = new byte[Math.max(n, out.length * 2)];
  }

  private void flushXml() {
    if (at == 0) return;
    try {
      zip.write(out, 0, at);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    at = 0;
  }

  /** The XML written so far into the zip, so that {@link #pending} counts it. */
  private void deflate() {
    flushXml();
  }

  /** A column's letters: 0 is A, 25 Z, 26 AA. */
  static String columnLetters(int c) {
    StringBuilder sb = new StringBuilder();
    for (int n = c + 1; n > 0; n = (n - 1) / 26) sb.append((char) ('A' + (n - 1) % 26));
    return sb.reverse().toString();
  }

  @Override
  public void end(String note) throws IOException {
    if (note != null) {
      row++;
      rowStart();
      text(0, ITALIC, note);
      rowEnd();
    }
    ascii(SHEET_END);
    flushXml();
    zip.closeEntry();
    zip.finish();
  }

  @Override
  public int pending() {
    return bytes.length();
  }

  @Override
  public Buffer take() {
    Buffer taken = bytes;
    bytes = Buffer.buffer(1 << 16);
    return taken;
  }
}
