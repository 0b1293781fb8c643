package dev.sqlagent.execution;

import dev.sqlagent.policy.Mask;
import dev.sqlagent.policy.SensitiveColumns;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which columns of a result hold a sensitive column's values, and their masks: the one place results are masked, so
 * every way in (ask, {@code /api/query}, MCP, the page) gets the same.
 *
 * <p>A column PostgreSQL says comes from a table's column as it is (its RowDescription names the table and the column,
 * through aliases, subqueries, CTEs and {@code *}) is masked when that column is sensitive, by the column's own mask. A
 * computed column (an expression, an aggregate, a set operation's) cannot be traced to its inputs, so it is masked
 * ({@code redact}) whenever the statement reads sensitive data at all: it names a sensitive column, or reads a table
 * with one as a whole row ({@code row_to_json(c)}, {@code c::text}) or through {@code *} (other than {@code count(*)}).
 */
final class ResultMasks {

  /** Where the columns of a relation come from, and their names: asked only for relations not seen before. */
  private static final String ORIGINS = "SELECT a.attrelid::int8, a.attnum::int4, n.nspname::text, c.relname::text,"
      + " a.attname::text FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
      + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
      + " JOIN unnest($1::int8[], $2::int4[]) AS w(rel, att) ON a.attrelid = w.rel::oid AND a.attnum = w.att";

  /** Words after a table's name that are not its alias. */
  private static final Set<String> NOT_ALIASES = Set.of("where", "join", "inner", "left", "right", "full", "cross",
      "natural", "on", "using", "group", "order", "limit", "offset", "union", "except", "intersect", "window", "having",
      "fetch", "for", "tablesample", "lateral", "as", "select", "from", "returning", "with");

  /** Words after which a table's name declares it (FROM t, JOIN t, FROM only t, schema.t). */
  private static final Set<String> DECLARING = Set.of("from", "join", "only");

  private final Map<Long, Optional<Mask>> known = new ConcurrentHashMap<>();
  private volatile long knownVersion = -1;

  /**
   * The mask of each column (null: shown as it is) of a statement with these {@code columns} and {@code tokens}, for a
   * catalogue of this {@code version}; asks {@code conn} (inside the statement's transaction) where columns of relations
   * not seen before come from.
   */
  Future<Mask[]> of(SqlConnection conn, List<ResultShape.Column> columns, List<PgLexer.Token> tokens,
                    SensitiveColumns sensitive, long version) {
    Mask[] masks = new Mask[columns.size()];
    if (!sensitive.hasRules()) return Future.succeededFuture(masks);
    if (version != knownVersion) {
      known.clear();
      knownVersion = version;
    }
    boolean tainted = readsSensitive(tokens, sensitive.columnNames(), sensitive.tableNames());
    List<Long> rels = new ArrayList<>();
    List<Integer> atts = new ArrayList<>();
    for (ResultShape.Column c : columns) {
      if (c.computed()) continue;
      long key = key(c.relation(), c.attribute());
      if (!known.containsKey(key)) {
        rels.add(c.relation());
        atts.add(c.attribute());
      }
    }
    Future<Void> looked = rels.isEmpty() ? Future.succeededFuture()
        : conn.preparedQuery(ORIGINS).execute(Tuple.tuple().addArrayOfLong(rels.toArray(new Long[0]))
            .addArrayOfInteger(atts.toArray(new Integer[0])))
            .map(rows -> {
              for (Row r : rows) {
                known.put(key(r.getLong(0), r.getInteger(1)), sensitive.mask(r.getString(2), r.getString(3), r.getString(4)));
              }
              // A column PostgreSQL cannot name (a system column) is not one of the notes file's.
              for (int i = 0; i < rels.size(); i++) known.putIfAbsent(key(rels.get(i), atts.get(i)), Optional.empty());
              return null;
            });
    return looked.map(v -> {
      for (int i = 0; i < masks.length; i++) {
        ResultShape.Column c = columns.get(i);
        masks[i] = c.computed() ? (tainted ? Mask.REDACT : null)
            : known.getOrDefault(key(c.relation(), c.attribute()), Optional.empty()).orElse(null);
      }
      return masks;
    });
  }

  private static long key(long relation, int attribute) {
    return (relation << 16) | (attribute & 0xFFFF);
  }

  /** Masks the cells of every masked column, in place. */
  static void apply(Mask[] masks, JsonArray rows) {
    if (masks == null || !any(masks)) return;
    for (int r = 0; r < rows.size(); r++) {
      JsonArray row = rows.getJsonArray(r);
      for (int i = 0; i < masks.length && i < row.size(); i++) {
        if (masks[i] != null) row.set(i, masks[i].apply(row.getValue(i)));
      }
    }
  }

  /** The same for rows as arrays of cells (an export's). */
  static void applyToCells(Mask[] masks, java.util.List<Object[]> rows) {
    if (masks == null || !any(masks)) return;
    for (Object[] row : rows) {
      for (int i = 0; i < masks.length && i < row.length; i++) {
        if (masks[i] != null) row[i] = masks[i].apply(row[i]);
      }
    }
  }

  /**
   * The same for an export's rows ({@link ResultJson#exportCells}): a masked native column's text is first the value an
   * answer would mask ({@link ResultJson#nativeValue}).
   */
  static void applyToExportCells(Mask[] masks, List<ResultShape.Column> columns, List<Object[]> rows) {
    if (masks == null || !any(masks)) return;
    for (Object[] row : rows) {
      for (int i = 0; i < masks.length && i < row.length; i++) {
        if (masks[i] == null) continue;
        Object v = row[i];
        if (i < columns.size() && columns.get(i).kind() == ResultShape.Kind.NATIVE && v instanceof String s) {
          v = ResultJson.nativeValue(s, columns.get(i).type());
        }
        row[i] = masks[i].apply(v);
      }
    }
  }

  static boolean any(Mask[] masks) {
    for (Mask m : masks) if (m != null) return true;
    return false;
  }

  /**
   * Whether the statement reads sensitive data: it names a sensitive column ({@code columns}, lower case), or reads a
   * table with one ({@code tables}) as a whole row (its name or alias alone, not before a dot, outside its declaration)
   * or through a {@code *} other than {@code count(*)}.
   */
  static boolean readsSensitive(List<PgLexer.Token> tokens, Set<String> columns, Set<String> tables) {
    if (columns.isEmpty()) return false;
    Set<String> wholeRow = new HashSet<>(tables);
    Set<Integer> declared = new HashSet<>();
    boolean readsTable = false;
    for (int i = 0; i < tokens.size(); i++) {
      PgLexer.Token t = tokens.get(i);
      if (!t.isIdentifier() || !tables.contains(lower(t)) || punct(tokens, i + 1, ".")) continue;
      readsTable = true;
      PgLexer.Token before = i > 0 ? tokens.get(i - 1) : null;
      if (before == null || !(before.isPunct(".") || before.isPunct(",") || before.kind() == PgLexer.Kind.WORD
          && DECLARING.contains(before.name()))) {
        continue;
      }
      declared.add(i);
      int j = i + 1;
      if (j < tokens.size() && tokens.get(j).isWord("as")) j++;
      if (j < tokens.size() && tokens.get(j).isIdentifier()
          && !(tokens.get(j).kind() == PgLexer.Kind.WORD && NOT_ALIASES.contains(tokens.get(j).name()))) {
        wholeRow.add(lower(tokens.get(j)));
        declared.add(j);
      }
    }
    for (int i = 0; i < tokens.size(); i++) {
      PgLexer.Token t = tokens.get(i);
      if (t.isIdentifier() && !punct(tokens, i + 1, ".") && !punct(tokens, i + 1, "(")) {
        String n = lower(t);
        if (columns.contains(n)) return true;
        if (wholeRow.contains(n) && !declared.contains(i)) return true;
      }
      if (readsTable && "*".equals(t.text()) && !(punct(tokens, i - 1, "(") && punct(tokens, i + 1, ")"))) return true;
    }
    return false;
  }

  private static boolean punct(List<PgLexer.Token> tokens, int i, String p) {
    return i >= 0 && i < tokens.size() && tokens.get(i).isPunct(p);
  }

  private static String lower(PgLexer.Token t) {
    return t.name() == null ? t.text().toLowerCase(Locale.ROOT) : t.name().toLowerCase(Locale.ROOT);
  }
}
