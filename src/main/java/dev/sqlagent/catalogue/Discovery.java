package dev.sqlagent.catalogue;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one definition of what the agent can see in the target, read from pg_catalog as the agent role (so it
 * is true of whatever database and role the service is given). In the service it is read by the catalogue
 * ({@link CatalogueHolder}) only; gate, retrieval, {@code /api/schema}, MCP, drift and health work from its snapshots.
 *
 * <p>In scope: every schema outside the system ones ({@code pg_*}, {@code information_schema}), or only
 * {@code SQLAGENT_SCHEMAS}. Visible: tables, partitioned tables (as one relation: partitions are hidden),
 * views, materialized views and foreign tables on which the role holds SELECT (on the relation or on some of
 * its columns, then only those columns), in a schema it may use. A view is visible on its own privilege:
 * its base tables need not be readable. Relations that belong to an extension ({@link #EXTENSION_OWNED}) are not
 * the user's: never offered, hidden from the gate (a view of the user's that reads one still may).
 */
public final class Discovery {

  /** Never-analysed tables up to this size are counted exactly; bigger ones get a null (unknown) count. */
  static final long EXACT_COUNT_MAX_BYTES = 16L * 1024 * 1024;

  private static final String SCOPE = "n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'"
      + " AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))";
  /**
   * A relation that belongs to an extension ({@code pg_depend} deptype 'e' on it or on its schema:
   * {@code pg_stat_statements}, {@code pg_stat_statements_info}, PostGIS's {@code geometry_columns}) is the
   * extension's, not the user's: it is never offered, and the gate treats it as hidden.
   */
  static final String EXTENSION_OWNED = "(EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass"
      + " AND d.objid = c.oid AND d.deptype = 'e') OR EXISTS (SELECT 1 FROM pg_depend d"
      + " WHERE d.classid = 'pg_namespace'::regclass AND d.objid = n.oid AND d.deptype = 'e'))";
  private static final String RELATION = "c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition"
      + " AND NOT " + EXTENSION_OWNED;
  /** The relations in scope that an extension owns, to be hidden (the gate says plainly they are not the user's). */
  private static final String EXTENSION_RELATIONS = "SELECT n.nspname::text AS schema, c.relname::text AS relname,"
      + " pg_table_is_visible(c.oid) AS on_path FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
      + " WHERE " + SCOPE + " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND " + EXTENSION_OWNED;
  private static final String READABLE = "has_schema_privilege(n.oid, 'USAGE') AND has_any_column_privilege(c.oid, 'SELECT')";

  private static final String RELATIONS = "SELECT c.oid::int8 AS oid, n.nspname::text AS schema, c.relname::text AS relname,"
      + " quote_ident(n.nspname) AS q_schema, quote_ident(c.relname) AS q_rel, c.relkind::text AS kind,"
      + " pg_table_is_visible(c.oid) AS on_path, " + READABLE + " AS readable,"
      + " obj_description(c.oid, 'pg_class') AS comment, c.reltuples::float8 AS reltuples,"
      + " CASE WHEN c.relkind IN ('r', 'm') THEN pg_relation_size(c.oid) ELSE 0 END AS bytes"
      + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
      + " WHERE " + SCOPE + " AND " + RELATION + " ORDER BY n.nspname, c.relname";

  private static final String COLUMNS = "SELECT a.attrelid::int8 AS oid, a.attname::text AS name, a.attnum::int AS position,"
      + " format_type(a.atttypid, a.atttypmod) AS type, t.typname::text AS base, a.atttypmod AS typmod,"
      + " NOT a.attnotnull AS nullable, col_description(a.attrelid, a.attnum) AS comment,"
      + " CASE WHEN e.typtype = 'e' THEN ARRAY(SELECT l.enumlabel::text FROM pg_enum l WHERE l.enumtypid = e.oid"
      + "   ORDER BY l.enumsortorder) END AS enum_labels,"
      + " CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS domain_base"
      + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
      + " JOIN pg_type t ON t.oid = a.atttypid"
      + " JOIN pg_type e ON e.oid = CASE WHEN t.typcategory = 'A' AND t.typelem <> 0 THEN t.typelem ELSE t.oid END"
      + " WHERE " + SCOPE + " AND " + RELATION + " AND " + READABLE
      + " AND a.attnum > 0 AND NOT a.attisdropped AND has_column_privilege(c.oid, a.attnum, 'SELECT')"
      + " ORDER BY a.attrelid, a.attnum";

  private static final String KEYS = "SELECT con.conrelid::int8 AS oid, con.contype::text AS kind,"
      + " ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)"
      + "   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i) AS cols,"
      + " con.confrelid::int8 AS ref_oid, quote_ident(rn.nspname) || '.' || quote_ident(r.relname) AS ref_qualified,"
      + " ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)"
      + "   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i) AS ref_cols"
      + " FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
      + " LEFT JOIN pg_class r ON r.oid = con.confrelid LEFT JOIN pg_namespace rn ON rn.oid = r.relnamespace"
      + " WHERE " + SCOPE + " AND " + RELATION + " AND " + READABLE
      + " AND con.contype IN ('p', 'f') AND con.conparentid = 0 ORDER BY con.conrelid, con.conname";

  /**
   * Relations a query on the visible ones may scan without naming them: the partitions of a visible partitioned
   * table (and children of an inheritance parent), and the relations a visible view reads (through views it
   * reads in turn). PostgreSQL checks the privilege on the parent or the view only, so they are reachable even
   * though the role may not read them by name; the gate's plan check must not refuse them.
   */
  private static final String UNDERLYING = "WITH RECURSIVE visible AS (SELECT c.oid FROM pg_class c"
      + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE " + SCOPE + " AND " + RELATION + " AND " + READABLE + "),"
      + " edges(parent, child) AS (SELECT i.inhparent, i.inhrelid FROM pg_inherits i"
      + "   UNION ALL SELECT w.ev_class, d.refobjid FROM pg_rewrite w JOIN pg_class v ON v.oid = w.ev_class AND v.relkind = 'v'"
      + "   JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid"
      + "     AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> w.ev_class),"
      + " reach(oid) AS (SELECT oid FROM visible UNION SELECT e.child FROM edges e JOIN reach r ON e.parent = r.oid)"
      + " SELECT n.nspname::text AS schema, c.relname::text AS relname FROM reach r JOIN pg_class c ON c.oid = r.oid"
      + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE r.oid NOT IN (SELECT oid FROM visible)";

  /** Which relations in scope the current role may read (the user's role's view: {@link #visibilityOn}). */
  private static final String VISIBILITY = "SELECT n.nspname::text AS schema, c.relname::text AS relname,"
      + " pg_table_is_visible(c.oid) AS on_path, " + READABLE + " AS readable"
      + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE " + SCOPE + " AND " + RELATION;

  /** Counting a table of at most {@link #EXACT_COUNT_MAX_BYTES} takes well under this; a lock is not waited for. */
  private static final TargetReader.Timeouts COUNT_TIMEOUTS = new TargetReader.Timeouts(30_000, 1_000);

  private final Pool pool;
  private final List<String> schemas;

  /**
   * @param pool connected as the agent role
   * @param schemas the schemas in scope ({@code SQLAGENT_SCHEMAS}); empty: every non-system schema
   */
  public Discovery(Pool pool, List<String> schemas) {
    this.pool = pool;
    this.schemas = List.copyOf(schemas);
  }

  /** One discovery of the target as its agent role, from a thread that is not an event loop (the command line). */
  public static Catalogue readBlocking(dev.sqlagent.db.Target target, List<String> schemas) {
    return readBlocking(target.roOptions(), schemas);
  }

  /** One discovery from a thread that is not an event loop (the command line): its own Vert.x, then closed. */
  public static Catalogue readBlocking(io.vertx.pgclient.PgConnectOptions agentRole, List<String> schemas) {
    // a Unix socket needs the native transport
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx(
        new io.vertx.core.VertxOptions().setPreferNativeTransport(agentRole.isUsingDomainSocket()));
    try {
      Pool pool = io.vertx.pgclient.PgBuilder.pool().connectingTo(agentRole).using(vertx).build();
      return new Discovery(pool, schemas).read().await(2, java.util.concurrent.TimeUnit.MINUTES);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("discovery of " + agentRole.getDatabase() + " did not finish in 2 minutes", e);
    } finally {
      vertx.close().await();
    }
  }

  /** The catalogue as it is now, in one snapshot (notes are added by the caller). */
  public Future<Catalogue> read() {
    Set<String> toCount = java.util.concurrent.ConcurrentHashMap.newKeySet();
    return ReadOnly.run(pool, conn -> readOn(conn, true, toCount)).compose(cat -> counted(cat, toCount));
  }

  /**
   * The catalogue with the exact row counts of its small never-analysed tables, read through the one door to the
   * target's data ({@link TargetReader}): a table whose row-level policy reaches an escape-capable function is never
   * read, and one that cannot be counted keeps an unknown count.
   */
  private Future<Catalogue> counted(Catalogue cat, Set<String> toCount) {
    List<TargetReader.Read> reads = new ArrayList<>();
    for (TableInfo t : cat.tables()) if (t.rowCount() == null && toCount.contains(t.schema() + "." + t.relname())) {
      reads.add(new TargetReader.Count(t));
    }
    if (reads.isEmpty()) return Future.succeededFuture(cat);
    return new TargetReader(pool, false, COUNT_TIMEOUTS).read(cat, null, reads).map(outcomes -> {
      Map<String, Long> counts = new HashMap<>();
      for (TargetReader.Outcome o : outcomes) {
        if (o.ok() && !o.rows().isEmpty()) {
          counts.put(o.read().table().schema() + "." + o.read().table().relname(), Long.parseLong(o.rows().get(0).get(0)));
        }
      }
      List<TableInfo> tables = new ArrayList<>();
      for (TableInfo t : cat.tables()) {
        Long n = counts.get(t.schema() + "." + t.relname());
        tables.add(n == null ? t : new TableInfo(t.name(), t.schema(), t.relname(), t.kind(), t.onSearchPath(),
            t.comment(), t.note(), n, t.columns(), t.primaryKey(), t.foreignKeys()));
      }
      return cat.withTables(tables);
    });
  }

  /**
   * The catalogue as {@code conn}'s current role sees it, inside the caller's transaction (tests read a schema
   * change before rolling it back this way).
   */
  public Future<Catalogue> readOn(SqlConnection conn) {
    return readOn(conn, true, null);
  }

  /**
   * The relations, columns and keys as they are now, without the functions (so {@link Functions#NONE}) and without
   * counting never-analysed tables (their row count is the planner's or unknown): what drift and the table count
   * need, at a fraction of the reads.
   */
  public Future<Catalogue> readShape() {
    return ReadOnly.run(pool, conn -> readOn(conn, false, null));
  }

  /** @param toCount where the relations worth counting exactly are put (null: none wanted) */
  private Future<Catalogue> readOn(SqlConnection conn, boolean full, Set<String> toCount) {
    Tuple scope = Tuple.of(schemas.isEmpty() ? null : schemas.toArray(new String[0]));
    return conn.preparedQuery("SELECT current_database()").execute()
        .compose(db -> conn.preparedQuery(RELATIONS).execute(scope)
            .compose(relations -> conn.preparedQuery(COLUMNS).execute(scope)
                .compose(columns -> conn.preparedQuery(KEYS).execute(scope)
                    .compose(keys -> conn.preparedQuery(UNDERLYING).execute(scope)
                        .compose(underlying -> conn.preparedQuery(EXTENSION_RELATIONS).execute(scope)
                        .compose(extension -> (full ? functions(conn) : Future.succeededFuture(Functions.NONE))
                            .map(functions -> {
                          if (toCount != null) toCount.addAll(countable(relations));
                          return assemble(db.iterator().next().getString(0), relations, columns, keys, extension)
                              .withUnderlying(underlyingNames(underlying)).withFunctions(functions);
                        })))))));
  }

  /**
   * What {@code conn}'s current role (a user's database role, inside the caller's transaction) may read: two
   * catalogue reads, no columns, keys, counts or functions (those are the agent role's snapshot's).
   */
  public Future<Catalogue.Visibility> visibilityOn(SqlConnection conn) {
    Tuple scope = Tuple.of(schemas.isEmpty() ? null : schemas.toArray(new String[0]));
    return conn.preparedQuery(VISIBILITY).execute(scope)
        .compose(relations -> conn.preparedQuery(UNDERLYING).execute(scope)
            .compose(underlying -> conn.preparedQuery(EXTENSION_RELATIONS).execute(scope).map(extension -> {
          Set<String> readable = new HashSet<>();
          Set<String> hidden = new HashSet<>();
          for (Row r : extension) hide(hidden, r);
          for (Row r : relations) {
            if (Boolean.TRUE.equals(r.getBoolean("readable"))) {
              readable.add(r.getString("schema") + "." + r.getString("relname"));
            } else {
              hide(hidden, r);
            }
          }
          return new Catalogue.Visibility(readable, hidden, underlyingNames(underlying));
        })));
  }

  /** A relation in scope the role may not read: by {@code schema.relname}, and bare when the search path finds it. */
  private static void hide(Set<String> hidden, Row r) {
    hidden.add(r.getString("schema") + "." + r.getString("relname"));
    if (Boolean.TRUE.equals(r.getBoolean("on_path"))) hidden.add(r.getString("relname"));
  }

  /** The functions a query could reach ({@link Functions}): six catalogue reads, sent together. */
  static Future<Functions> functions(SqlConnection conn) {
    List<Future<List<Functions.Cols>>> reads = new ArrayList<>();
    for (String sql : List.of(Functions.FUNCTIONS_SQL, Functions.OPERATORS_SQL, Functions.CORE_OPERATORS_SQL,
        Functions.CORE_FUNCTIONS_SQL, Functions.TYPES_SQL, Functions.RELATION_CALLS_SQL)) {
      reads.add(conn.query(sql).execute().map(Discovery::cols));
    }
    return Future.all(reads).map(all -> Functions.of(reads.get(0).result(), reads.get(1).result(), reads.get(2).result(),
        reads.get(3).result(), reads.get(4).result(), reads.get(5).result()));
  }

  private static List<Functions.Cols> cols(RowSet<Row> rows) {
    List<Functions.Cols> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(new Functions.Cols() {
        public String text(String column) {
          return r.getString(column);
        }

        public long int8(String column) {
          return r.getLong(column);
        }

        public boolean bool(String column) {
          return Boolean.TRUE.equals(r.getBoolean(column));
        }
      });
    }
    return out;
  }

  /**
   * reltuples is -1 until the table is first analysed (and 0 when it was analysed empty, which may be stale). Those
   * tables are counted exactly when small ({@link #counted}); a table with no pages at all is empty and needs no count.
   */
  private static Set<String> countable(RowSet<Row> relations) {
    Set<String> out = new HashSet<>();
    for (Row t : relations) {
      long bytes = t.getLong("bytes");
      if (Boolean.TRUE.equals(t.getBoolean("readable")) && t.getDouble("reltuples") <= 0 && hasOwnStorage(t)
          && bytes > 0 && bytes <= EXACT_COUNT_MAX_BYTES) {
        out.add(t.getString("schema") + "." + t.getString("relname"));
      }
    }
    return out;
  }

  private static Set<String> underlyingNames(RowSet<Row> rows) {
    Set<String> out = new HashSet<>();
    for (Row r : rows) out.add(r.getString("schema") + "." + r.getString("relname"));
    return out;
  }

  /** The planner's estimate when it has one, else the exact count, else 0 for an empty file, else unknown. */
  private static Long rowCount(Row table) {
    double reltuples = table.getDouble("reltuples");
    if (reltuples > 0) return Math.round(reltuples);
    if (hasOwnStorage(table) && table.getLong("bytes") == 0) return 0L;
    return null;
  }

  /** A plain table or materialised view: its size says how big a count would be (a view's or parent's does not). */
  private static boolean hasOwnStorage(Row table) {
    String kind = table.getString("kind");
    return kind.equals("r") || kind.equals("m");
  }

  static String kind(String relkind) {
    return switch (relkind) {
      case "p" -> "partitioned table";
      case "v" -> "view";
      case "m" -> "materialized view";
      case "f" -> "foreign table";
      default -> "table";
    };
  }

  private static Catalogue assemble(String database, RowSet<Row> relations, RowSet<Row> columns, RowSet<Row> keys,
      RowSet<Row> extension) {
    // Bare names only where the search path finds the relation and no other readable schema has the same name.
    Map<String, Integer> sameName = new HashMap<>();
    for (Row r : relations) {
      if (Boolean.TRUE.equals(r.getBoolean("readable"))) sameName.merge(r.getString("relname"), 1, Integer::sum);
    }
    Map<Long, String> nameOf = new HashMap<>();
    Set<String> hidden = new HashSet<>();
    for (Row r : extension) hide(hidden, r);
    for (Row r : relations) {
      if (!Boolean.TRUE.equals(r.getBoolean("readable"))) {
        hide(hidden, r);
        continue;
      }
      boolean bare = Boolean.TRUE.equals(r.getBoolean("on_path")) && sameName.get(r.getString("relname")) == 1;
      nameOf.put(r.getLong("oid"), bare ? r.getString("q_rel") : r.getString("q_schema") + "." + r.getString("q_rel"));
    }
    Map<Long, List<TableInfo.Column>> columnsOf = new HashMap<>();
    for (Row r : columns) {
      String[] labels = r.getArrayOfStrings("enum_labels");
      columnsOf.computeIfAbsent(r.getLong("oid"), k -> new ArrayList<>()).add(new TableInfo.Column(
          r.getString("name"), r.getInteger("position"), r.getString("type"), r.getString("base"),
          r.getInteger("typmod"), r.getBoolean("nullable"), r.getString("comment"),
          labels == null ? List.of() : List.of(labels), r.getString("domain_base")));
    }
    Map<Long, List<String>> primaryKeyOf = new HashMap<>();
    Map<Long, List<TableInfo.ForeignKey>> foreignKeysOf = new HashMap<>();
    for (Row r : keys) {
      List<String> cols = List.of(r.getArrayOfStrings("cols"));
      if (r.getString("kind").equals("p")) {
        primaryKeyOf.put(r.getLong("oid"), cols);
      } else {
        String ref = nameOf.getOrDefault(r.getLong("ref_oid"), r.getString("ref_qualified"));
        foreignKeysOf.computeIfAbsent(r.getLong("oid"), k -> new ArrayList<>()).add(
            new TableInfo.ForeignKey(cols, ref, List.of(r.getArrayOfStrings("ref_cols"))));
      }
    }
    Map<Long, TableInfo> tables = new LinkedHashMap<>();
    for (Row t : relations) {
      long oid = t.getLong("oid");
      if (!nameOf.containsKey(oid)) continue;
      tables.put(oid, new TableInfo(nameOf.get(oid), t.getString("schema"), t.getString("relname"),
          kind(t.getString("kind")), Boolean.TRUE.equals(t.getBoolean("on_path")), t.getString("comment"), null, rowCount(t),
          List.copyOf(columnsOf.getOrDefault(oid, List.of())),
          primaryKeyOf.getOrDefault(oid, List.of()),
          List.copyOf(foreignKeysOf.getOrDefault(oid, List.of()))));
    }
    List<TableInfo> sorted = new ArrayList<>(tables.values());
    sorted.sort(java.util.Comparator.comparing(TableInfo::name));
    return new Catalogue(database, sorted, hidden);
  }
}
