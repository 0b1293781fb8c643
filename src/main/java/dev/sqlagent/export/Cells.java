package dev.sqlagent.export;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A result's cells as an export writes them: numbers stay numbers, dates become dates where the format has them,
 * and text that a spreadsheet would read as a formula is neutralised.
 */
final class Cells {
  private Cells() {}

  /** PostgreSQL's numeric types: written as numbers, never neutralised (a negative number stays a number). */
  private static final Set<String> NUMBERS = Set.of("int2", "int4", "int8", "float4", "float8", "numeric");
  /** The first characters that make a spreadsheet evaluate a cell ({@code =SUM(...)}, {@code +1}, {@code @cmd}, tab, CR). */
  private static final String FORMULA_STARTS = "=+-@\t\r";
  private static final Pattern TIMESTAMP =
      Pattern.compile("(\\d{4}-\\d{2}-\\d{2}) (\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?)(?:[+-]\\d{2}(?::\\d{2}){0,2})?");

  static boolean numeric(String type) {
    return NUMBERS.contains(type);
  }

  /**
   * Text a spreadsheet would evaluate ({@code =HYPERLINK(...)}, {@code +cmd}, {@code -2+3}, {@code @SUM}, a leading
   * tab or carriage return) with an apostrophe in front, so it is shown as text; anything else as it is.
   */
  static String neutralised(String text) {
    return !text.isEmpty() && FORMULA_STARTS.indexOf(text.charAt(0)) >= 0 ? "'" + text : text;
  }

  /** A cell as text: a number in plain digits, JSON encoded, text neutralised unless its column is numeric; null stays null. */
  static String text(Object cell, String type) {
    if (cell == null) return null;
    if (cell instanceof Double || cell instanceof Float) {
      String s = cell.toString();
      return s.indexOf('E') >= 0 ? new BigDecimal(s).toPlainString() : s;
    }
    if (cell instanceof Number || cell instanceof Boolean) return cell.toString();
    if (cell instanceof JsonObject o) return neutralised(o.encode());
    if (cell instanceof JsonArray a) return neutralised(a.encode());
    String s = cell.toString();
    return numeric(type) ? s : neutralised(s);
  }

  /** A numeric column's cell as a number: null for NaN and infinities, which stay text. */
  static Number number(Object cell) {
    if (cell instanceof Number n) return n;
    try {
      return new BigDecimal(cell.toString());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A date column's cell ({@code 2024-01-31}) as a date: null for BC dates and infinity, which stay text. */
  static LocalDate date(Object cell) {
    String s = cell.toString();
    if (s.length() != 10) return null;
    try {
      return LocalDate.parse(s);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  /**
   * A timestamp's cell ({@code 2024-01-31 10:00:00[.ffffff][+01]}) as the wall time it shows (a spreadsheet has no
   * time zones: a timestamptz is shown in the session's zone, as psql shows it): null for BC and infinity.
   */
  static LocalDateTime timestamp(Object cell) {
    Matcher m = TIMESTAMP.matcher(cell.toString());
    if (!m.matches()) return null;
    try {
      return LocalDateTime.parse(m.group(1) + "T" + m.group(2));
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }
}
