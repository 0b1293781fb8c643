package dev.sqlagent.results;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Compares a gold result with the agent's on values, never on SQL text:
 * <ul>
 *   <li>column names are ignored;</li>
 *   <li>numbers are compared rounded to 2 decimal places (half up);</li>
 *   <li>row order is ignored unless the question asks for an order;</li>
 *   <li>the agent may return extra columns, as long as every gold column matches a distinct column of its
 *       result row for row (a column mapping is searched for); that is a {@link Match#SUBSET} match, the
 *       same columns and nothing more an {@link Match#EXACT} one;</li>
 *   <li>NULL and the empty string are different values;</li>
 *   <li>dates and timestamps are compared as values, whatever their text form (a date equals the
 *       timestamp at its midnight, as in PostgreSQL; a timestamp with time zone is compared in UTC).</li>
 * </ul>
 */
public final class ResultComparator {

  private ResultComparator() {}

  public enum Match {
    EXACT, SUBSET, NONE;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The better of two matches (exact over subset over none). */
    public Match best(Match other) {
      return ordinal() <= other.ordinal() ? this : other;
    }
  }

  /** The outcome; {@code mapping[g]} is the agent column matching gold column g (null unless matched). */
  public record Comparison(Match match, String reason, int[] mapping) {
    public boolean matched() {
      return match != Match.NONE;
    }
  }

  /** Beyond this many full checks the search gives up (many identical columns): reported, not hidden. */
  static final int MAX_MAPPINGS = 20_000;

  public static Comparison compare(QueryResult gold, QueryResult actual, boolean orderMatters) {
    int m = gold.width();
    int n = actual.width();
    if (gold.rows().size() != actual.rows().size()) {
      return none("row count differs: expected " + gold.rows().size() + ", got " + actual.rows().size());
    }
    if (n < m) return none("too few columns: expected " + m + ", got " + n);
    Cell[][] g = normalize(gold);
    Cell[][] a = normalize(actual);
    int rows = g.length;
    List<List<Integer>> candidates = new ArrayList<>();
    for (int gc = 0; gc < m; gc++) {
      Object gSig = signature(g, gc, orderMatters);
      List<Integer> fits = new ArrayList<>();
      if (gc < n && signature(a, gc, orderMatters).equals(gSig)) fits.add(gc);   // same position first
      for (int ac = 0; ac < n; ac++) {
        if (ac != gc && signature(a, ac, orderMatters).equals(gSig)) fits.add(ac);
      }
      if (fits.isEmpty()) {
        return none("no column of the result holds the values of expected column " + (gc + 1)
            + describeColumn(gold, gc) + (orderMatters ? " in the expected order" : ""));
      }
      candidates.add(fits);
    }
    Search search = new Search(g, a, candidates, orderMatters, rows);
    int[] mapping = new int[m];
    Arrays.fill(mapping, -1);
    if (search.assign(0, mapping, new boolean[n])) {
      return new Comparison(n == m ? Match.EXACT : Match.SUBSET, n == m ? "same values" : "expected columns found among "
          + n + " columns", mapping);
    }
    if (search.exhausted) return none("gave up after " + MAX_MAPPINGS + " candidate column mappings");
    return none(orderMatters ? "the columns hold the expected values but not together, row for row, in the expected order"
        : "the columns hold the expected values but not together, row for row");
  }

  /** The best comparison against several accepted gold results (exact over subset over none). */
  public static Comparison compareAny(List<QueryResult> golds, QueryResult actual, boolean orderMatters) {
    Comparison best = null;
    for (QueryResult gold : golds) {
      Comparison c = compare(gold, actual, orderMatters);
      if (best == null || c.match().ordinal() < best.match().ordinal()) best = c;
      if (best.match() == Match.EXACT) break;
    }
    return best == null ? none("no gold result") : best;
  }

  private static Comparison none(String reason) {
    return new Comparison(Match.NONE, reason, null);
  }

  private static String describeColumn(QueryResult r, int c) {
    String name = r.columns().get(c).name();
    return name == null ? "" : " (" + name + ")";
  }

  private static final class Search {
    final Cell[][] g;
    final Cell[][] a;
    final List<List<Integer>> candidates;
    final boolean ordered;
    final int rows;
    int checks;
    boolean exhausted;

    Search(Cell[][] g, Cell[][] a, List<List<Integer>> candidates, boolean ordered, int rows) {
      this.g = g;
      this.a = a;
      this.candidates = candidates;
      this.ordered = ordered;
      this.rows = rows;
    }

    boolean assign(int gc, int[] mapping, boolean[] used) {
      if (gc == mapping.length) {
        if (++checks > MAX_MAPPINGS) {
          exhausted = true;
          return false;
        }
        return rowsAgree(mapping);
      }
      for (int ac : candidates.get(gc)) {
        if (used[ac]) continue;
        used[ac] = true;
        mapping[gc] = ac;
        if (assign(gc + 1, mapping, used)) return true;
        if (exhausted) return false;
        used[ac] = false;
        mapping[gc] = -1;
      }
      return false;
    }

    boolean rowsAgree(int[] mapping) {
      if (ordered) {
        for (int r = 0; r < rows; r++) {
          for (int c = 0; c < mapping.length; c++) {
            if (!g[r][c].equals(a[r][mapping[c]])) return false;
          }
        }
        return true;
      }
      Map<List<Cell>, Integer> counts = new HashMap<>();
      for (int r = 0; r < rows; r++) counts.merge(Arrays.asList(g[r]), 1, Integer::sum);
      for (int r = 0; r < rows; r++) {
        Cell[] projected = new Cell[mapping.length];
        for (int c = 0; c < mapping.length; c++) projected[c] = a[r][mapping[c]];
        Integer left = counts.computeIfPresent(Arrays.asList(projected), (k, v) -> v - 1);
        if (left == null || left < 0) return false;
      }
      return true;
    }
  }

  /** A column's values: in row order when order matters, otherwise as a multiset. */
  private static Object signature(Cell[][] t, int col, boolean ordered) {
    if (ordered) {
      List<Cell> seq = new ArrayList<>(t.length);
      for (Cell[] row : t) seq.add(row[col]);
      return seq;
    }
    Map<Cell, Integer> bag = new HashMap<>();
    for (Cell[] row : t) bag.merge(row[col], 1, Integer::sum);
    return bag;
  }

  private static Cell[][] normalize(QueryResult r) {
    int w = r.width();
    Cell[][] out = new Cell[r.rows().size()][w];
    for (int i = 0; i < out.length; i++) {
      List<Object> row = r.rows().get(i);
      for (int c = 0; c < w; c++) {
        out[i][c] = cell(c < row.size() ? row.get(c) : null, r.columns().get(c).type());
      }
    }
    return out;
  }

  // ---- cells -------------------------------------------------------------------------------------

  enum Kind { NULL, NUMBER, BOOLEAN, TEMPORAL, TEXT }

  /** A normalised value: numbers at scale 2, temporals as LocalDateTime, text as is. */
  record Cell(Kind kind, Object value) {
    static final Cell NULL = new Cell(Kind.NULL, null);

    @Override
    public String toString() {
      return kind == Kind.NULL ? "NULL" : String.valueOf(value);
    }
  }

  private static final Set<String> NUMERIC_TYPES = Set.of("int2", "int4", "int8", "smallint", "integer", "int",
      "bigint", "numeric", "decimal", "float4", "float8", "real", "double precision", "double", "float", "money",
      "oid", "serial", "bigserial");
  private static final Set<String> TEXT_TYPES = Set.of("text", "varchar", "character varying", "bpchar", "char",
      "character", "name", "citext", "uuid", "json", "jsonb", "xml", "interval", "time", "timetz");
  private static final Set<String> BOOLEAN_TYPES = Set.of("bool", "boolean");
  private static final Set<String> TEMPORAL_TYPES = Set.of("date", "timestamp", "timestamptz",
      "timestamp without time zone", "timestamp with time zone");

  private static final Pattern NUMBER = Pattern.compile("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?");
  private static final Pattern TEMPORAL = Pattern.compile(
      "\\d{4}-\\d{2}-\\d{2}([ T]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?)?(Z|[+-]\\d{2}(:?\\d{2})?)?");

  /** Normalises one value; the column's type decides, the value's own form only when the type is unknown. */
  static Cell cell(Object v, String type) {
    if (v == null) return Cell.NULL;
    String t = type == null ? null : type.trim().toLowerCase(Locale.ROOT).replaceAll("\\(.*\\)", "").trim();
    if (t != null && t.startsWith("_")) t = null;                 // arrays: compared as text below
    if (v instanceof Number num) return number(num, v);
    if (v instanceof Boolean b) return new Cell(Kind.BOOLEAN, b);
    Cell temporal = temporalObject(v);
    if (temporal != null) return temporal;
    String s = v.toString();
    if (t != null && NUMERIC_TYPES.contains(t)) return numberText(s);
    if (t != null && BOOLEAN_TYPES.contains(t)) return bool(s);
    if (t != null && TEMPORAL_TYPES.contains(t)) return temporalText(s);
    if (t != null && TEXT_TYPES.contains(t)) return new Cell(Kind.TEXT, s);
    // Unknown type: infer from the text.
    if (NUMBER.matcher(s).matches()) return numberText(s);
    if (TEMPORAL.matcher(s).matches()) return temporalText(s);
    return new Cell(Kind.TEXT, s);
  }

  private static Cell number(Number num, Object original) {
    BigDecimal d;
    if (num instanceof BigDecimal bd) {
      d = bd;
    } else if (num instanceof Double || num instanceof Float) {
      double x = num.doubleValue();
      if (!Double.isFinite(x)) return new Cell(Kind.TEXT, String.valueOf(x));
      d = new BigDecimal(Double.toString(x));
    } else if (num instanceof Long || num instanceof Integer || num instanceof Short || num instanceof Byte) {
      d = BigDecimal.valueOf(num.longValue());
    } else {
      try {
        d = new BigDecimal(num.toString());
      } catch (NumberFormatException e) {
        return new Cell(Kind.TEXT, String.valueOf(original));
      }
    }
    return new Cell(Kind.NUMBER, d.setScale(2, RoundingMode.HALF_UP));
  }

  private static Cell numberText(String s) {
    try {
      return new Cell(Kind.NUMBER, new BigDecimal(s.trim()).setScale(2, RoundingMode.HALF_UP));
    } catch (NumberFormatException e) {
      return new Cell(Kind.TEXT, s);   // NaN, Infinity
    }
  }

  private static Cell bool(String s) {
    String x = s.trim().toLowerCase(Locale.ROOT);
    if (x.equals("t") || x.equals("true")) return new Cell(Kind.BOOLEAN, true);
    if (x.equals("f") || x.equals("false")) return new Cell(Kind.BOOLEAN, false);
    return new Cell(Kind.TEXT, s);
  }

  private static Cell temporalObject(Object v) {
    if (v instanceof LocalDateTime t) return new Cell(Kind.TEMPORAL, t);
    if (v instanceof LocalDate d) return new Cell(Kind.TEMPORAL, d.atStartOfDay());
    if (v instanceof OffsetDateTime o) return new Cell(Kind.TEMPORAL, o.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime());
    if (v instanceof ZonedDateTime z) return new Cell(Kind.TEMPORAL, z.withZoneSameInstant(ZoneOffset.UTC).toLocalDateTime());
    if (v instanceof java.time.Instant i) return new Cell(Kind.TEMPORAL, LocalDateTime.ofInstant(i, ZoneOffset.UTC));
    if (v instanceof java.sql.Timestamp ts) return new Cell(Kind.TEMPORAL, ts.toLocalDateTime());
    if (v instanceof java.sql.Date d) return new Cell(Kind.TEMPORAL, d.toLocalDate().atStartOfDay());
    return null;
  }

  /** ISO forms with a space or a 'T', optional seconds and fraction, optional offset (+05, +0530, +05:30, Z). */
  static Cell temporalText(String s) {
    String x = s.trim().replace(' ', 'T');
    try {
      if (x.length() == 10) return new Cell(Kind.TEMPORAL, LocalDate.parse(x).atStartOfDay());
      java.util.regex.Matcher off = Pattern.compile("(Z|[+-]\\d{2}(:?\\d{2})?)$").matcher(x);
      if (off.find() && x.indexOf('T') > 0 && off.start() > x.indexOf('T')) {
        String zone = off.group(1);
        String local = x.substring(0, off.start());
        ZoneOffset z = zone.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(zone.length() == 3 ? zone + ":00"
            : zone.length() == 5 ? zone.substring(0, 3) + ":" + zone.substring(3) : zone);
        return new Cell(Kind.TEMPORAL, LocalDateTime.parse(local).atOffset(z)
            .withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime());
      }
      return new Cell(Kind.TEMPORAL, LocalDateTime.parse(x));
    } catch (java.time.DateTimeException e) {
      return new Cell(Kind.TEXT, s);
    }
  }
}
