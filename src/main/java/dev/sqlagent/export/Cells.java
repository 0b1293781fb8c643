package dev.sqlagent.export;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Set;

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

  /**
   * A cell as CSV text: {@link #plain}, then neutralised unless its column is numeric (a CSV opened in a spreadsheet
   * evaluates what looks like a formula); null stays null.
   */
  static String text(Object cell, String type) {
    String s = plain(cell, type);
    return s == null || numeric(type) || cell instanceof Number || cell instanceof Boolean ? s : neutralised(s);
  }

  /**
   * A cell as the text PostgreSQL shows for it: a float as {@code float4out}/{@code float8out} print it
   * ({@code 1e+300}, {@code 1.5e-07}, {@code 0.1}), any other number in plain digits, JSON encoded; null stays null.
   */
  static String plain(Object cell, String type) {
    if (cell == null) return null;
    if ((cell instanceof Double || cell instanceof Float) && ("float8".equals(type) || "float4".equals(type))) {
      return postgresFloat(((Number) cell).doubleValue(), "float4".equals(type));
    }
    if (cell instanceof Double || cell instanceof Float) {
      String s = cell.toString();
      return s.indexOf('E') >= 0 ? new BigDecimal(s).toPlainString() : s;
    }
    if (cell instanceof Number || cell instanceof Boolean) return cell.toString();
    if (cell instanceof JsonObject o) return o.encode();
    if (cell instanceof JsonArray a) return a.encode();
    return cell.toString();
  }

  /**
   * The shortest digits that read back as the value, as PostgreSQL writes them: plainly for a decimal exponent from -4
   * up to the type's precision (15 digits for float8, 6 for float4), otherwise as {@code d.ddde+XX}.
   */
  static String postgresFloat(double value, boolean real) {
    if (Double.isNaN(value)) return "NaN";
    if (Double.isInfinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (value == 0) return 1 / value < 0 ? "-0" : "0";
    BigDecimal shortest = new BigDecimal(real ? Float.toString((float) value) : Double.toString(value)).stripTrailingZeros();
    int exponent = shortest.precision() - shortest.scale() - 1;
    if (exponent >= -4 && exponent < (real ? 6 : 15)) return shortest.toPlainString();
    String digits = shortest.unscaledValue().abs().toString();
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    String sign = shortest.signum() < 0 ? "-" : "";
    return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
  }

  /** Digits past which a spreadsheet's number (a double) no longer holds every integer exactly. */
  static final int SPREADSHEET_DIGITS = 15;

  /** An integer too long for a spreadsheet's number: kept whole as text rather than rounded. */
  static boolean tooLongForASpreadsheet(Number n) {
    if (n instanceof Long || n instanceof Integer || n instanceof Short) {
      long v = n.longValue();
      return v >= 1_000_000_000_000_000L || v <= -1_000_000_000_000_000L;
    }
    BigDecimal d;
    if (n instanceof Long || n instanceof Integer || n instanceof Short) {
      d = BigDecimal.valueOf(n.longValue());
    } else if (n instanceof java.math.BigInteger b) {
      d = new BigDecimal(b);
    } else if (n instanceof BigDecimal b) {
      d = b;
    } else {
      return false;
    }
    BigDecimal whole = d.stripTrailingZeros();
    return whole.scale() <= 0 && d.abs().compareTo(BigDecimal.TEN.pow(SPREADSHEET_DIGITS)) >= 0;
  }

  /**
   * A numeric column's cell from PostgreSQL's text ({@code 42}, {@code -1234.50}, {@code 1.5e-07}) as a number that
   * writes itself as that very text: null for NaN, infinities and anything else that is not a plain number (a clipped
   * value), which stay text. A long integer part is read whole, for {@link #tooLongForASpreadsheet}.
   */
  static Number number(String text, String type) {
    int n = text.length();
    if (n == 0 || n > 400) return null;
    int integerDigits = 0;
    boolean digit = false;
    boolean fraction = false;
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9') {
        digit = true;
        if (!fraction) integerDigits++;
      } else if (c == '.' || c == 'e' || c == 'E') {
        fraction = true;
      } else if (c != '-' && c != '+') {
        return null;
      }
    }
    if (!digit) return null;
    if (integerDigits > SPREADSHEET_DIGITS) {
      try {
        return type.startsWith("int") ? Long.valueOf(text) : new BigDecimal(text);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return new Text(text);
  }

  /** A number as PostgreSQL printed it: the spreadsheet's cell holds that text. */
  private static final class Text extends Number {
    private final String text;

    Text(String text) {
      this.text = text;
    }

    @Override
    public String toString() {
      return text;
    }

    @Override
    public double doubleValue() {
      return Double.parseDouble(text);
    }

    @Override
    public float floatValue() {
      return (float) doubleValue();
    }

    @Override
    public long longValue() {
      return (long) doubleValue();
    }

    @Override
    public int intValue() {
      return (int) doubleValue();
    }
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

  /** The first year a spreadsheet's dates hold: an earlier date or timestamp is written as its text. */
  static final int SPREADSHEET_FIRST_YEAR = 1900;
  /** {@link LocalDate#toEpochDay()} of 1899-12-31, the day before the spreadsheet's day 1. */
  private static final long SPREADSHEET_EPOCH = -25_568;

  /** The days from 1899-12-31 to {@code date} (1900-01-01 is 1), as the calendar counts them. */
  static long daysSince1900(LocalDate date) {
    return date.toEpochDay() - SPREADSHEET_EPOCH;
  }

  /**
   * A date from 1900 on as a spreadsheet's day number (1900-01-01 is 1). Days from 1900-03-01 count one more, as
   * spreadsheets count a 29 February 1900 that never was.
   */
  static long spreadsheetDay(LocalDate date) {
    long day = daysSince1900(date);
    return day >= 60 ? day + 1 : day;
  }

  /** A date column's cell ({@code 2024-01-31}) as a date: null for BC dates and infinity, which stay text. */
  static LocalDate date(Object cell) {
    String s = cell.toString();
    if (s.length() != 10 || s.charAt(4) != '-' || s.charAt(7) != '-') return null;
    int y = digits(s, 0, 4);
    int m = digits(s, 5, 7);
    int d = digits(s, 8, 10);
    if (y < 0 || m < 0 || d < 0) return null;
    try {
      return LocalDate.of(y, m, d);
    } catch (java.time.DateTimeException e) {
      return null;
    }
  }

  /**
   * A timestamp's cell ({@code 2024-01-31 10:00:00[.ffffff][+01[:30[:15]]]}) as the wall time it shows (a spreadsheet
   * has no time zones: a timestamptz is shown in the session's zone, as psql shows it): null for BC and infinity.
   */
  static LocalDateTime timestamp(Object cell) {
    String s = cell.toString();
    int n = s.length();
    if (n < 19 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != ' ' || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int y = digits(s, 0, 4);
    int mo = digits(s, 5, 7);
    int d = digits(s, 8, 10);
    int h = digits(s, 11, 13);
    int mi = digits(s, 14, 16);
    int sec = digits(s, 17, 19);
    if ((y | mo | d | h | mi | sec) < 0) return null;
    int i = 19;
    int nanos = 0;
    if (i < n && s.charAt(i) == '.') {
      int from = ++i;
      while (i < n && i - from < 9 && isDigit(s.charAt(i))) nanos = nanos * 10 + (s.charAt(i++) - '0');
      if (i == from) return null;
      for (int k = i - from; k < 9; k++) nanos *= 10;
    }
    if (i < n && !zone(s, i)) return null;
    try {
      return LocalDateTime.of(y, mo, d, h, mi, sec, nanos);
    } catch (java.time.DateTimeException e) {
      return null;
    }
  }

  /** A zone offset from {@code i} to the end: {@code +HH}, {@code +HH:MM} or {@code +HH:MM:SS} (or {@code -}). */
  private static boolean zone(String s, int i) {
    int n = s.length();
    if (s.charAt(i) != '+' && s.charAt(i) != '-') return false;
    if (n - i != 3 && n - i != 6 && n - i != 9) return false;
    if (digits(s, i + 1, i + 3) < 0) return false;
    for (int k = i + 3; k < n; k += 3) {
      if (s.charAt(k) != ':' || digits(s, k + 1, k + 3) < 0) return false;
    }
    return true;
  }

  /** The decimal number of {@code s}'s ASCII digits from {@code from} to {@code to}; -1 when one is not a digit. */
  private static int digits(String s, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!isDigit(c)) return -1;
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
