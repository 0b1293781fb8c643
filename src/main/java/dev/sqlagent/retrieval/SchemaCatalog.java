package dev.sqlagent.retrieval;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads the schema live from pg_catalog as {@code sql_agent_ro}. "Visible" means a table, view or
 * materialised view in schema {@code public} that the role may SELECT; the system catalogues live in other
 * schemas and the query log is not granted, so neither ever appears.
 */
public final class SchemaCatalog {

  /** Never-analysed tables up to this size are counted exactly; bigger ones get a null (unknown) count. */
  static final long EXACT_COUNT_MAX_BYTES = 16L * 1024 * 1024;

  // The log is excluded by name as well as by privilege: a grant mistake must not put it in a prompt.
  private static final String VISIBLE = "c.relnamespace = 'public'::regnamespace"
      + " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition"
      + " AND has_table_privilege(c.oid, 'SELECT') AND c.relname <> 'agent_query_log'";

  private static final String TABLES = "SELECT c.oid::int8 AS oid, c.relname::text AS name, c.relkind::text AS kind,"
      + " obj_description(c.oid, 'pg_class') AS comment, c.reltuples::float8 AS reltuples,"
      + " pg_relation_size(c.oid) AS bytes"
      + " FROM pg_class c WHERE " + VISIBLE + " ORDER BY c.relname";

  private static final String COLUMNS = "SELECT a.attrelid::int8 AS oid, a.attname::text AS name,"
      + " format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,"
      + " col_description(a.attrelid, a.attnum) AS comment"
      + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
      + " WHERE " + VISIBLE + " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attrelid, a.attnum";

  private static final String KEYS = "SELECT con.conrelid::int8 AS oid, con.contype::text AS kind,"
      + " ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)"
      + "   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i) AS cols,"
      + " r.relname::text AS ref_table,"
      + " ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)"
      + "   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i) AS ref_cols"
      + " FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid"
      + " LEFT JOIN pg_class r ON r.oid = con.confrelid"
      + " WHERE " + VISIBLE + " AND con.contype IN ('p', 'f') ORDER BY con.conrelid, con.conname";

  private final Pool pool;

  public SchemaCatalog(Pool pool) {
    this.pool = pool;
  }

  /** The catalogue as it is now (notes are added by {@link TableNotes}). */
  public Future<Catalogue> read() {
    return ReadOnly.run(pool, conn -> conn.query(TABLES).execute()
        .compose(tables -> conn.query(COLUMNS).execute()
            .compose(columns -> conn.query(KEYS).execute()
                .compose(keys -> exactCounts(conn, tables)
                    .map(counts -> assemble(tables, columns, keys, counts))))));
  }

  /**
   * reltuples is -1 until the table is first analysed (and 0 when it was analysed empty, which may be
   * stale). Those tables are counted exactly when small, in one statement; the SQL is ours, with quoted
   * identifiers. A table with no pages at all is empty and needs no count.
   */
  private Future<Map<String, Long>> exactCounts(SqlConnection conn, RowSet<Row> tables) {
    List<String> parts = new ArrayList<>();
    for (Row t : tables) {
      long bytes = t.getLong("bytes");
      if (t.getDouble("reltuples") <= 0 && hasOwnStorage(t) && bytes > 0 && bytes <= EXACT_COUNT_MAX_BYTES) {
        String name = t.getString("name");
        parts.add("SELECT '" + name.replace("'", "''") + "'::text AS name, count(*) AS n FROM public."
            + ReadOnly.quote(name));
      }
    }
    if (parts.isEmpty()) return Future.succeededFuture(Map.of());
    return conn.query(String.join(" UNION ALL ", parts)).execute().map(rows -> {
      Map<String, Long> counts = new HashMap<>();
      for (Row r : rows) counts.put(r.getString("name"), r.getLong("n"));
      return counts;
    });
  }

  /** The planner's estimate when it has one, else the exact count, else 0 for an empty file, else unknown. */
  private static Long rowCount(Row table, Long exact) {
    double reltuples = table.getDouble("reltuples");
    if (reltuples > 0) return Math.round(reltuples);
    if (exact != null) return exact;
    if (hasOwnStorage(table) && table.getLong("bytes") == 0) return 0L;
    return null;
  }

  /** A plain table or materialised view: its size says how big a count would be (a view's or parent's does not). */
  private static boolean hasOwnStorage(Row table) {
    String kind = table.getString("kind");
    return kind.equals("r") || kind.equals("m");
  }

  private static Catalogue assemble(RowSet<Row> tables, RowSet<Row> columns, RowSet<Row> keys,
      Map<String, Long> counts) {
    Map<Long, List<TableInfo.Column>> columnsOf = new HashMap<>();
    for (Row r : columns) {
      columnsOf.computeIfAbsent(r.getLong("oid"), k -> new ArrayList<>()).add(new TableInfo.Column(
          r.getString("name"), r.getString("type"), !r.getBoolean("not_null"), r.getString("comment")));
    }
    Map<Long, List<String>> primaryKeyOf = new HashMap<>();
    Map<Long, List<TableInfo.ForeignKey>> foreignKeysOf = new HashMap<>();
    for (Row r : keys) {
      List<String> cols = List.of(r.getArrayOfStrings("cols"));
      if (r.getString("kind").equals("p")) {
        primaryKeyOf.put(r.getLong("oid"), cols);
      } else {
        foreignKeysOf.computeIfAbsent(r.getLong("oid"), k -> new ArrayList<>()).add(
            new TableInfo.ForeignKey(cols, r.getString("ref_table"), List.of(r.getArrayOfStrings("ref_cols"))));
      }
    }
    Map<String, TableInfo> byName = new LinkedHashMap<>();
    for (Row t : tables) {
      long oid = t.getLong("oid");
      String name = t.getString("name");
      Long rows = rowCount(t, counts.get(name));
      byName.put(name, new TableInfo(name, t.getString("comment"), null, rows,
          List.copyOf(columnsOf.getOrDefault(oid, List.of())),
          primaryKeyOf.getOrDefault(oid, List.of()),
          List.copyOf(foreignKeysOf.getOrDefault(oid, List.of()))));
    }
    return new Catalogue(byName.values().stream().collect(Collectors.toUnmodifiableList()));
  }
}
