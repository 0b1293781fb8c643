package dev.sqlagent.catalogue;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.db.OneAfterAnother;
import dev.sqlagent.db.Target;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The one door to the target's data outside the gate: row counts, sample rows, stored values, sensitive-column
 * suggestions, the workload statistics. A caller hands it a relation of the catalogue and the columns it wants; the
 * SQL is the reader's own (catalogue names, always quoted; values bound), so no text of a user's or a model's ever
 * reaches it.
 *
 * <p>By construction, whoever calls it:
 * <ul>
 *   <li>a relation the catalogue names unsafe ({@link Functions#unsafe}: a view, a row-level policy or a generated
 *       column that reaches an escape-capable or deny-listed function) is never read: its read comes back
 *       {@link Outcome#skipped() skipped}, with why; so is everything when the catalogue's functions were not read;
 *   <li>every read runs inside {@code BEGIN READ ONLY} under {@code statement_timeout} and {@code lock_timeout},
 *       always rolled back, each relation behind a savepoint of its own (one refusal spares the others);
 *   <li>it is, with the gate and the catalogue service, the only code that connects to the target (an architecture
 *       test says so).
 * </ul>
 */
public final class TargetReader {

  /** Each read's {@code statement_timeout} and {@code lock_timeout}, in milliseconds. */
  public record Timeouts(int statementMs, int lockMs) {
    public Timeouts {
      statementMs = Math.max(1, statementMs);
      lockMs = Math.max(1, lockMs);
    }
  }

  /** What to read from one relation of the catalogue. */
  public sealed interface Read permits Rows, Distinct, Count, Present {
    TableInfo table();

    /** The reader's statement and its bound parameters. */
    String sql();

    Tuple params();
  }

  /**
   * The first {@code limit} rows of {@code columns}, each value as text cut to {@code clip + 1} characters (one more
   * than the caller shows, so it can tell a value was cut); a null in {@code columns} reads as a NULL cell.
   */
  public record Rows(TableInfo table, List<String> columns, int limit, int clip) implements Read {
    public Rows {
      columns = java.util.Collections.unmodifiableList(new ArrayList<>(columns));
    }

    public String sql() {
      List<String> cells = new ArrayList<>();
      for (String c : columns) {
        cells.add(c == null ? "NULL::text" : "left(" + Identifiers.quote(c) + "::text, " + (clip + 1) + ")");
      }
      return "SELECT " + String.join(", ", cells) + " FROM " + from(table) + " LIMIT $1";
    }

    public Tuple params() {
      return Tuple.of(limit);
    }
  }

  /** Up to {@code limit} distinct non-null values of one column, as text cut to {@code clip + 1} characters. */
  public record Distinct(TableInfo table, String column, int limit, int clip) implements Read {
    public String sql() {
      String col = Identifiers.quote(column);
      return "SELECT DISTINCT left(" + col + "::text, " + (clip + 1) + ") FROM " + from(table) + " WHERE " + col
          + " IS NOT NULL LIMIT $1";
    }

    public Tuple params() {
      return Tuple.of(limit);
    }
  }

  /** The exact number of rows, as one cell. */
  public record Count(TableInfo table) implements Read {
    public String sql() {
      return "SELECT count(*)::text FROM " + from(table);
    }

    public Tuple params() {
      return Tuple.tuple();
    }
  }

  /** Which of {@code values} the column holds (compared as text), one per row. */
  public record Present(TableInfo table, String column, List<String> values) implements Read {
    public Present {
      values = List.copyOf(values);
    }

    public String sql() {
      return "SELECT v FROM unnest($1::text[]) AS v WHERE EXISTS (SELECT 1 FROM " + from(table) + " WHERE "
          + Identifiers.quote(column) + "::text = v)";
    }

    public Tuple params() {
      return Tuple.of(values.toArray(String[]::new));
    }
  }

  /**
   * What became of one read: its rows (each cell text or null), or why it was not read at all ({@code skipped}: the
   * catalogue names the relation unsafe, or a column is not the relation's), or why PostgreSQL refused it
   * ({@code failed}: a grant revoked since, a timeout).
   */
  public record Outcome(Read read, List<List<String>> rows, String skipped, String failed) {
    public boolean ok() {
      return skipped == null && failed == null;
    }
  }

  /** One column's planner statistics ({@code pg_stats}): a catalogue read, no user function runs. */
  public record ColumnStats(String schema, String relname, String column, double nDistinct, int avgWidth,
                            List<String> mostCommon) {}

  /** What {@code pg_stat_statements} holds for this database: whether it may be read, and its statements. */
  public record Workload(StatStatements.Access access, List<Statement> statements) {}

  /** One statement of the workload and how often it ran. */
  public record Statement(String query, long calls) {}

  private static final String COLUMN_STATS = """
      SELECT s.schemaname::text AS schemaname, s.tablename::text AS tablename, s.attname::text AS attname,
             s.n_distinct, s.avg_width,
             CASE WHEN s.most_common_vals IS NULL THEN NULL ELSE s.most_common_vals::text::text[] END AS mcv
        FROM pg_stats s
        JOIN pg_namespace n ON n.nspname = s.schemaname
        JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = s.attname
        JOIN pg_type t ON t.oid = a.atttypid
       WHERE t.typcategory = 'S'
       ORDER BY s.inherited DESC""";

  private final Pool pool;
  private final boolean ownsPool;
  private final Timeouts timeouts;

  TargetReader(Pool pool, boolean ownsPool, Timeouts timeouts) {
    this.pool = pool;
    this.ownsPool = ownsPool;
    this.timeouts = timeouts;
  }

  /** A reader with a pool of its own on the target, as the agent role (closed by {@link #close}). */
  public static TargetReader open(Vertx vertx, Target target, Timeouts timeouts, int connections, String name) {
    Pool pool = PgBuilder.pool().with(target.url().netOptions())
        .with(new PoolOptions().setMaxSize(Math.max(1, connections)).setName(name))
        .connectingTo(target.roOptions().addProperty("application_name", name)).using(vertx).build();
    return new TargetReader(pool, true, timeouts);
  }

  /** A reader over the caller's pool, connected as the agent role, which stays the caller's to close. */
  public static TargetReader over(Pool pool, Timeouts timeouts) {
    return new TargetReader(pool, false, timeouts);
  }

  /**
   * The reads from a thread that is not an event loop (the command line): a Vert.x and a connection of their own,
   * closed after.
   */
  public static List<Outcome> readBlocking(Target target, Timeouts timeouts, Catalogue catalogue, List<? extends Read> reads) {
    Vertx vertx = Vertx.vertx(new io.vertx.core.VertxOptions()
        .setPreferNativeTransport(target.roOptions().isUsingDomainSocket()));
    try {
      TargetReader reader = open(vertx, target, timeouts, 1, "sql-agent-read");
      return reader.read(catalogue, null, reads).await(5, TimeUnit.MINUTES);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("reading " + target.database() + " did not finish in 5 minutes", e);
    } finally {
      vertx.close().await();
    }
  }

  /** Why a read of {@code table} must not run, or empty: the catalogue's verdict on the relation. */
  public static Optional<String> refusal(Catalogue catalogue, TableInfo table) {
    if (catalogue.functions() == Functions.NONE) {
      return Optional.of("not read: the catalogue's functions were not read, so no view or policy is known safe");
    }
    return catalogue.functions().unsafe(table.schema(), table.relname()).map(why -> why + ", so it is not read");
  }

  /**
   * The reads, in order, as {@code role} ({@code SET LOCAL ROLE}; null: the agent role), in one read-only transaction
   * that is rolled back. Everything is sent at once (BEGIN, the settings, every read behind its savepoint, the
   * ROLLBACK: one round trip); when one read fails, the rest are read again one by one in a new transaction, so a
   * refusal costs only its own relation. The future fails only when the transaction itself could not be had.
   */
  public Future<List<Outcome>> read(Catalogue catalogue, String role, List<? extends Read> reads) {
    List<Outcome> outcomes = new ArrayList<>(reads.size());
    List<Integer> toRead = new ArrayList<>();
    for (Read r : reads) {
      String skip = refusal(catalogue, r.table()).orElse(null);
      if (skip == null) skip = unknownColumn(r);
      outcomes.add(skip == null ? null : new Outcome(r, List.of(), skip, null));
      if (skip == null) toRead.add(outcomes.size() - 1);
    }
    if (toRead.isEmpty()) return Future.succeededFuture(outcomes);
    return pool.withConnection(conn -> {
      List<Future<?>> setUp = begin(conn, role);
      List<Future<RowSet<Row>>> selects = new ArrayList<>();
      List<Future<?>> all = new ArrayList<>(setUp);
      for (int i : toRead) {
        Read r = reads.get(i);
        all.add(conn.query("SAVEPOINT target_read").execute());
        Future<RowSet<Row>> select = conn.preparedQuery(r.sql()).execute(r.params());
        selects.add(select);
        all.add(select);
        all.add(conn.query("RELEASE SAVEPOINT target_read").execute());
      }
      Future<?> ended = conn.query("ROLLBACK").execute();
      all.add(ended);
      return Future.join(all).transform(done -> {
        for (Future<?> f : setUp) if (f.failed()) return Future.failedFuture(f.cause());
        if (ended.failed()) return Future.failedFuture(ended.cause());
        if (done.succeeded()) {
          for (int k = 0; k < toRead.size(); k++) {
            int i = toRead.get(k);
            outcomes.set(i, new Outcome(reads.get(i), cells(selects.get(k).result()), null, null));
          }
          return Future.succeededFuture(outcomes);
        }
        return inTransaction(conn, role, () -> OneAfterAnother.each(toRead, i -> one(conn, reads.get(i))
            .map(o -> outcomes.set(i, o)))).map(outcomes);
      });
    });
  }

  /** One read behind its own savepoint: a refusal is rolled back to it and reported, the transaction goes on. */
  private static Future<Outcome> one(SqlConnection conn, Read r) {
    return conn.query("SAVEPOINT target_read").execute()
        .compose(v -> conn.preparedQuery(r.sql()).execute(r.params()))
        .compose(rows -> conn.query("RELEASE SAVEPOINT target_read").execute().map(new Outcome(r, cells(rows), null, null)))
        .recover(e -> conn.query("ROLLBACK TO SAVEPOINT target_read").execute()
            .map(new Outcome(r, List.of(), null, describe(e))));
  }

  /** The planner's statistics of the text-like columns the agent role may read ({@code pg_stats} shows no others). */
  public Future<List<ColumnStats>> columnStats() {
    return pool.withConnection(conn -> inTransaction(conn, null, () -> conn.query(COLUMN_STATS).execute().map(rows -> {
      List<ColumnStats> out = new ArrayList<>();
      for (Row r : rows) {
        String[] mcv = r.getArrayOfStrings("mcv");
        out.add(new ColumnStats(r.getString("schemaname"), r.getString("tablename"), r.getString("attname"),
            r.getFloat("n_distinct"), r.getInteger("avg_width"), mcv == null ? null : List.of(mcv)));
      }
      return out;
    })));
  }

  /**
   * The statements {@code pg_stat_statements} holds for this database, most executed first (at most {@code limit}),
   * when the agent role may read it; otherwise none, and why.
   */
  public Future<Workload> workload(int limit) {
    return pool.withConnection(conn -> inTransaction(conn, null, () -> conn.query(StatStatements.ACCESS).execute()
        .compose(rows -> {
          Row r = rows.iterator().next();
          StatStatements.Access access = StatStatements.describe(Boolean.TRUE.equals(r.getBoolean("installed")),
              r.getString("schema"), r.getString("preload"), Boolean.TRUE.equals(r.getBoolean("all_stats")),
              r.getString("role"));
          if (!access.readable()) return Future.succeededFuture(new Workload(access, List.of()));
          return conn.query(access.statementsSql(limit)).execute().map(found -> {
            List<Statement> out = new ArrayList<>();
            for (Row s : found) out.add(new Statement(s.getString("query"), s.getLong("calls")));
            return new Workload(access, out);
          });
        })));
  }

  public Future<Void> close() {
    return ownsPool ? pool.close() : Future.succeededFuture();
  }

  // ---- the transaction ----

  private List<Future<?>> begin(SqlConnection conn, String role) {
    List<Future<?>> setUp = new ArrayList<>();
    setUp.add(conn.query(ReadOnly.BEGIN).execute());
    setUp.add(conn.query("SET LOCAL statement_timeout = " + timeouts.statementMs()).execute());
    setUp.add(conn.query("SET LOCAL lock_timeout = " + timeouts.lockMs()).execute());
    if (role != null) setUp.add(conn.query(ReadOnly.setRole(role)).execute());
    return setUp;
  }

  private <T> Future<T> inTransaction(SqlConnection conn, String role, java.util.function.Supplier<Future<T>> work) {
    List<Future<?>> setUp = begin(conn, role);
    return Future.all(setUp).compose(v -> work.get()).eventually(() -> conn.query("ROLLBACK").execute());
  }

  private static String unknownColumn(Read r) {
    List<String> wanted = List.of();
    if (r instanceof Rows rows) wanted = rows.columns().stream().filter(java.util.Objects::nonNull).toList();
    if (r instanceof Distinct d) wanted = List.of(d.column());
    if (r instanceof Present p) wanted = List.of(p.column());
    for (String c : wanted) {
      if (r.table().columns().stream().noneMatch(col -> col.name().equals(c))) {
        return "not read: " + r.table().name() + " has no column " + c + " the agent role may read";
      }
    }
    return null;
  }

  private static String from(TableInfo t) {
    return Identifiers.qualified(t.schema(), t.relname());
  }

  private static List<List<String>> cells(RowSet<Row> rows) {
    List<List<String>> out = new ArrayList<>(rows.size());
    for (Row r : rows) {
      List<String> row = new ArrayList<>(r.size());
      for (int i = 0; i < r.size(); i++) row.add(r.getString(i));
      out.add(row);
    }
    return out;
  }

  private static String describe(Throwable e) {
    if (e instanceof io.vertx.pgclient.PgException pg) return pg.getSqlState() + " " + pg.getErrorMessage();
    return String.valueOf(e.getMessage());
  }
}
