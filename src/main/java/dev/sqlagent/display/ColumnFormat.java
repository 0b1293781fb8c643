package dev.sqlagent.display;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a result column is shown to a person, decided once from its PostgreSQL type and its name: a quantity
 * with thousands separators ({@code 1,267}), money with two decimals ({@code 12,345.60}), or plain, exactly as
 * stored. Identifiers, years and codes stay plain even when numeric: {@code 2025} is a year, not "2,025".
 *
 * <p>Only what a person reads is formatted (answer wording, the page's table, the command line, MCP text).
 * SQL and the JSON {@code rows} keep the exact values. The page applies the same rules in {@code js/answer.js}
 * from the {@code format} key this class puts on each answer column.
 */
public enum ColumnFormat {

  /** A number with thousands separators; long fractions rounded to {@link #MAX_FRACTION} places. */
  NUMBER("number"),
  /** Money: thousands separators and exactly two decimals. */
  MONEY("money"),
  /** Shown exactly as stored: text, dates, identifiers, years, codes. */
  PLAIN("plain");

  /** A quantity's fraction is cut to this many places (rounded half up) when it has more. */
  public static final int MAX_FRACTION = 4;

  private static final Set<String> INTEGER_TYPES = Set.of("int2", "int4", "int8", "smallint", "integer", "bigint");
  private static final Set<String> DECIMAL_TYPES = Set.of("numeric", "decimal", "float4", "float8", "real",
      "double precision");
  /** Words of a column name that make a number an identifier, a year or a code rather than a quantity. */
  private static final Set<String> IDENTIFIER_WORDS = Set.of("id", "ids", "uuid", "key", "code", "zip", "zipcode",
      "pin", "pincode", "postcode", "postal", "phone", "mobile", "year", "yr", "yyyy", "sku", "isbn", "ean", "gst",
      "extract", "date_part", "version");
  /** Last words that name a number ({@code bill_no}, {@code invoice_number}). */
  private static final Set<String> NUMBER_SUFFIXES = Set.of("no", "nr", "num", "number");
  /** Last words that make a name a measure whatever came before ({@code customer_id_count}). */
  private static final Set<String> MEASURE_WORDS = Set.of("count", "total", "sum", "qty", "quantity", "avg",
      "average", "amount", "amt", "n");
  private static final Set<String> MONEY_WORDS = Set.of("amount", "amt", "revenue", "sales", "price", "cost",
      "salary", "salaries", "wage", "wages", "paid", "billed", "collected", "spend", "spent", "balance", "fee",
      "fees", "tax", "income", "profit", "value", "turnover", "payment", "payments", "limit", "discount");
  private static final Pattern WORD = Pattern.compile("[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+");

  private final String wireName;

  ColumnFormat(String wireName) {
    this.wireName = wireName;
  }

  /** The name in JSON ({@code number}, {@code money}, {@code plain}). */
  public String wireName() {
    return wireName;
  }

  /** The format of a column named {@code name} of PostgreSQL type {@code type} (pg_type.typname). */
  public static ColumnFormat of(String name, String type) {
    String t = type == null ? "" : type.strip().toLowerCase(Locale.ROOT);
    boolean integer = INTEGER_TYPES.contains(t);
    if (t.equals("money")) return MONEY;
    if (!integer && !DECIMAL_TYPES.contains(t)) return PLAIN;
    List<String> words = words(name);
    String last = words.isEmpty() ? "" : words.get(words.size() - 1);
    boolean measure = MEASURE_WORDS.contains(last);
    if (!measure && (NUMBER_SUFFIXES.contains(last) || words.stream().anyMatch(IDENTIFIER_WORDS::contains))) {
      return PLAIN;
    }
    if (!integer && words.stream().anyMatch(MONEY_WORDS::contains)) return MONEY;
    return NUMBER;
  }

  /** The format of a result column {@code {name, type}}. */
  public static ColumnFormat of(JsonObject column) {
    return of(column.getString("name"), column.getString("type"));
  }

  /** The formats of result columns, in order. */
  public static List<ColumnFormat> of(JsonArray columns) {
    List<ColumnFormat> out = new ArrayList<>(columns.size());
    for (int i = 0; i < columns.size(); i++) out.add(of(columns.getJsonObject(i)));
    return out;
  }

  /** A copy of result columns, each with its {@code format} added (the page reads it). */
  public static JsonArray annotate(JsonArray columns) {
    if (columns == null) return null;
    JsonArray out = new JsonArray();
    for (int i = 0; i < columns.size(); i++) {
      JsonObject c = columns.getJsonObject(i);
      out.add(c.copy().put("format", of(c).wireName()));
    }
    return out;
  }

  /**
   * A row for a reader that takes JSON (the answer-wording prompt): numbers of quantity and money columns as
   * formatted text, every other cell as it is.
   */
  public static JsonArray displayRow(JsonArray columns, JsonArray row) {
    JsonArray out = new JsonArray();
    for (int i = 0; i < row.size(); i++) {
      Object cell = row.getValue(i);
      ColumnFormat f = i < columns.size() ? of(columns.getJsonObject(i)) : PLAIN;
      out.add(f == PLAIN || cell == null ? cell : f.format(cell));
    }
    return out;
  }

  /** A cell as a person reads it: NULL, a formatted number, or the value as stored. */
  public String format(Object cell) {
    if (cell == null) return "NULL";
    if (this == PLAIN) return text(cell);
    BigDecimal n = decimal(cell);
    if (n == null) return text(cell);  // NaN, Infinity, or not a number after all
    if (this == MONEY) return grouped(n.setScale(2, RoundingMode.HALF_UP));
    return grouped(n.scale() > MAX_FRACTION ? n.setScale(MAX_FRACTION, RoundingMode.HALF_UP) : n);
  }

  private static String text(Object cell) {
    if (cell instanceof JsonObject o) return o.encode();
    if (cell instanceof JsonArray a) return a.encode();
    return String.valueOf(cell);
  }

  private static BigDecimal decimal(Object cell) {
    try {
      if (cell instanceof Integer || cell instanceof Long || cell instanceof Short) {
        return BigDecimal.valueOf(((Number) cell).longValue());
      }
      if (cell instanceof Double || cell instanceof Float) {
        double d = ((Number) cell).doubleValue();
        return Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
      }
      if (cell instanceof BigDecimal b) return b;
      if (cell instanceof String s) return new BigDecimal(s.strip());
    } catch (NumberFormatException notANumber) {
      return null;
    }
    return null;
  }

  /** Digits grouped by three with commas, the fraction as it is: exact for any size. */
  private static String grouped(BigDecimal n) {
    String plain = n.toPlainString();
    boolean negative = plain.startsWith("-");
    String digits = negative ? plain.substring(1) : plain;
    int dot = digits.indexOf('.');
    String whole = dot < 0 ? digits : digits.substring(0, dot);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < whole.length(); i++) {
      if (i > 0 && (whole.length() - i) % 3 == 0) b.append(',');
      b.append(whole.charAt(i));
    }
    return (negative ? "-" : "") + b + (dot < 0 ? "" : digits.substring(dot));
  }

  /** A column name's words: split at anything not a letter or digit, and at camel case ({@code CustomerId}). */
  static List<String> words(String name) {
    List<String> out = new ArrayList<>();
    if (name == null) return out;
    if (name.strip().toLowerCase(Locale.ROOT).equals("date_part")) return List.of("date_part");
    Matcher m = WORD.matcher(name);
    while (m.find()) out.add(m.group().toLowerCase(Locale.ROOT));
    return out;
  }
}
