package dev.sqlagent.execution;

import io.vertx.sqlclient.desc.ColumnDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How the gate makes PostgreSQL send a result that is bounded in bytes and shown as PostgreSQL shows it.
 *
 * <p>The reactive client holds a whole row in memory before anyone sees a cell, so a bound applied after
 * decoding comes too late: {@code SELECT repeat('x', 100000000)} would put 100 MB on the event loop. The
 * gate therefore first describes the statement (PostgreSQL's parse of it: names and types, nothing planned or
 * run), then runs it wrapped so that PostgreSQL itself turns every column that is not a small
 * fixed-size value into its own text output, clipped to {@link ResultJson#CLIP_CHARS} characters with the
 * marker {@code …[clipped, N chars]}. Numbers and booleans keep their native form (they are small); dates and
 * times arrive as PostgreSQL's own text (small too, so never clipped): ISO DateStyle in the session's
 * {@code TimeZone}, {@code infinity} and BC dates included, exactly what {@code psql} shows; everything else — numeric, text, network, bit strings, xml, oid and reg* types, money, geometric,
 * interval, ranges, arrays, json, uuid, bytea, tsvector, enums, domains, records — arrives as PostgreSQL's
 * text, NULL only for NULL. A cell can then never be larger than about 2 KB on the wire.
 */
final class ResultShape {
  private ResultShape() {}

  /** Types sent as they are: bounded in size, and rendered as JSON numbers or booleans. */
  private static final Set<String> NATIVE = Set.of("bool", "int2", "int4", "int8", "float4", "float8");

  /** Dates and times: PostgreSQL's text output, bounded in size, so never clipped. */
  private static final Set<String> TIMES = Set.of("date", "time", "timetz", "timestamp", "timestamptz");

  /** Characters of the longest date/time text ({@code 294276-12-31 23:59:59.999999+14:59:59 BC} and the like). */
  private static final int TIME_CHARS = 48;

  /** Types whose text is parsed back into JSON (objects and arrays only) when it was not clipped. */
  private static final Set<String> JSON = Set.of("json", "jsonb");

  /** Array element types whose unclipped array text becomes a JSON array of numbers/booleans/strings. */
  private static final Set<String> ARRAY_ELEMENTS = Set.of("bool", "int2", "int4", "int8", "float4", "float8",
      "numeric", "text", "varchar", "bpchar", "name", "char");

  /**
   * What one column is and how it travels; {@code relation} and {@code attribute} are where PostgreSQL says it comes
   * from (the table's oid and the column's number, for a column taken as it is from a table or view, through aliases,
   * subqueries and CTEs), 0 for a computed one.
   */
  record Column(String name, String type, Kind kind, long relation, int attribute) {
    Column(String name, String type, Kind kind) {
      this(name, type, kind, 0, 0);
    }

    boolean computed() {
      return relation == 0;
    }
  }

  /**
   * Where a described column comes from. The client reads it from PostgreSQL's RowDescription (its table OID and column
   * attribute number) but keeps it in fields of its own: read here, {0, 0} when they cannot be.
   */
  private static final java.lang.reflect.Field RELATION;
  private static final java.lang.reflect.Field ATTRIBUTE;

  static {
    java.lang.reflect.Field rel = null;
    java.lang.reflect.Field att = null;
    try {
      Class<?> desc = Class.forName("io.vertx.pgclient.impl.codec.PgColumnDesc");
      rel = desc.getDeclaredField("relationId");
      att = desc.getDeclaredField("relationAttributeNo");
      rel.setAccessible(true);
      att.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      rel = null;
      att = null;
    }
    RELATION = rel;
    ATTRIBUTE = att;
  }

  private static long[] origin(ColumnDescriptor d) {
    if (RELATION == null || !RELATION.getDeclaringClass().isInstance(d)) return new long[] {0, 0};
    try {
      return new long[] {Integer.toUnsignedLong(RELATION.getInt(d)), ATTRIBUTE.getShort(d)};
    } catch (IllegalAccessException e) {
      return new long[] {0, 0};
    }
  }

  enum Kind {
    /** decoded by the client (numbers, booleans). */
    NATIVE,
    /** dates and times: PostgreSQL's text output, unclipped (it is short). */
    TIME,
    /** PostgreSQL's text output, clipped in SQL. */
    TEXT,
    /** json/jsonb: text, parsed back into JSON when short. */
    JSON,
    /** an array of simple elements: text, parsed back into a JSON array when short. */
    ARRAY
  }

  static List<Column> columns(List<ColumnDescriptor> descriptors) {
    List<Column> out = new ArrayList<>();
    for (ColumnDescriptor d : descriptors) {
      String type = ResultJson.typeName(d);
      String base = type.endsWith("[]") ? type.substring(0, type.length() - 2) : type;
      Kind kind;
      if (type.endsWith("[]")) kind = ARRAY_ELEMENTS.contains(base) ? Kind.ARRAY : Kind.TEXT;
      else if (NATIVE.contains(type)) kind = Kind.NATIVE;
      else if (TIMES.contains(type)) kind = Kind.TIME;
      else if (JSON.contains(type)) kind = Kind.JSON;
      else kind = Kind.TEXT;
      long[] from = origin(d);
      out.add(new Column(d.name(), type, kind, from[0], (int) from[1]));
    }
    return out;
  }

  /** The select list that clips every non-native column in PostgreSQL. */
  static String prefix(List<Column> columns) {
    return prefix(columns, true);
  }

  /**
   * The select list; without {@code clip} (the gate's grading mode) every non-native column is PostgreSQL's
   * whole text, and the bound on the result is the caller's byte budget alone.
   */
  static String prefix(List<Column> columns, boolean clip) {
    return prefix(columns, clip, false);
  }

  /**
   * The select list; with {@code nativeAsText} (an export's) the native columns too arrive as PostgreSQL's own text
   * ({@code ::text}: a number as {@code psql} shows it, a boolean {@code true} or {@code false}): the file is written
   * from text, so nothing is decoded into numbers only to be printed again.
   */
  static String prefix(List<Column> columns, boolean clip, boolean nativeAsText) {
    StringBuilder sb = new StringBuilder("SELECT ");
    for (int i = 0; i < columns.size(); i++) {
      if (i > 0) sb.append(", ");
      String c = "q.c" + (i + 1);
      if (columns.get(i).kind() == Kind.NATIVE) {
        sb.append(c);
        if (nativeAsText) sb.append("::text");
      } else if (!clip || columns.get(i).kind() == Kind.TIME) {
        sb.append(c).append("::text");
      } else {
        String t = c + "::text";
        // octet_length is read from the value's header; length() scans, so it only runs for long values.
        sb.append("CASE WHEN octet_length(").append(t).append(") <= ").append(ResultJson.CLIP_CHARS)
            .append(" OR length(").append(t).append(") <= ").append(ResultJson.CLIP_CHARS)
            .append(" THEN ").append(t).append(" ELSE left(").append(t).append(", ").append(ResultJson.CLIP_CHARS)
            .append(") || '…[clipped, ' || length(").append(t).append(") || ' chars]' END");
      }
    }
    return sb.append(" FROM (\n").toString();
  }

  /**
   * The statement the gate explains and runs: the bounded query, every column shaped (clipped unless the grading
   * mode asks for whole values, see {@link #prefix(List, boolean)}), and at most {@code rows} rows whatever the
   * query's own text says (the statement runs as {@code EXECUTE}, whose rows PostgreSQL holds whole before the
   * first read).
   */
  static String shaped(String executed, List<Column> columns, boolean clip, int rows) {
    return shaped(executed, columns, clip, false, rows);
  }

  /** The same, the native columns as text with {@code nativeAsText} (see {@link #prefix(List, boolean, boolean)}). */
  static String shaped(String executed, List<Column> columns, boolean clip, boolean nativeAsText, int rows) {
    StringBuilder alias = new StringBuilder("\n) AS q");
    if (!columns.isEmpty()) {
      alias.append('(');
      for (int i = 0; i < columns.size(); i++) alias.append(i > 0 ? ", " : "").append('c').append(i + 1);
      alias.append(')');
    }
    return prefix(columns, clip, nativeAsText) + executed + alias + "\nLIMIT " + rows;
  }

  /** Worst-case bytes of one row on the wire (UTF-8, four bytes a character), for the fetch size. */
  static long worstRowBytes(List<Column> columns) {
    long bytes = 16;
    for (Column c : columns) {
      bytes += switch (c.kind()) {
        case NATIVE -> 48;
        case TIME -> 8 + TIME_CHARS;
        default -> (ResultJson.CLIP_CHARS + 40L) * 4;
      };
    }
    return bytes;
  }

  /** Lower-case type base name, for the renderer. */
  static String elementType(String type) {
    return type.endsWith("[]") ? type.substring(0, type.length() - 2).toLowerCase(Locale.ROOT) : type;
  }
}
