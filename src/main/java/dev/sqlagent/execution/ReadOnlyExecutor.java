package dev.sqlagent.execution;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Cursor;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.core.json.JsonArray;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work on a connection of the agent's read-only role inside a transaction that can only read and
 * can only end one way: {@code BEGIN READ ONLY}, {@code SET LOCAL} timeouts (literal values: EXECUTE on
 * set_config is revoked), then the caller's statements, then always {@code ROLLBACK} and
 * {@code DISCARD ALL} before the connection goes back to the pool, after success, error or timeout alike,
 * so nothing a query did (settings, prepared statements, cursors, advisory locks, temporary state) is
 * visible to the next one. There is no COMMIT anywhere in this class, and untrusted SQL only ever goes
 * through the extended protocol ({@code prepare}/{@code preparedQuery}), which refuses more than one
 * statement.
 */
public final class ReadOnlyExecutor {

  private static final Logger LOG = LoggerFactory.getLogger(ReadOnlyExecutor.class);

  private final Pool pool;
  private final String begin;

  public ReadOnlyExecutor(Vertx vertx, PgConnectOptions readOnlyRole, int poolSize, int statementTimeoutMs,
                          int lockTimeoutMs) {
    this.pool = PgBuilder.pool()
        // A reset only fails on a broken connection, which the pool drops; as a last resort every connection
        // is replaced after ten minutes.
        .with(new PoolOptions().setMaxSize(poolSize).setMaxWaitQueueSize(256).setConnectionTimeout(10)
            .setMaxLifetime(10).setMaxLifetimeUnit(java.util.concurrent.TimeUnit.MINUTES)
            .setName("sql-agent-gate-" + System.identityHashCode(this)))
        .connectingTo(readOnlyRole)
        .using(vertx)
        .build();
    // Trusted text with validated integers; the simple protocol may carry several statements here.
    this.begin = "BEGIN TRANSACTION READ ONLY; "
        + "SET LOCAL statement_timeout = " + Math.max(1, statementTimeoutMs) + "; "
        + "SET LOCAL lock_timeout = " + Math.max(1, lockTimeoutMs) + "; "
        + "SET LOCAL standard_conforming_strings = on; "
        // A first query takes the snapshot, after which PostgreSQL refuses SET TRANSACTION READ WRITE.
        + "SELECT 1";
  }

  /** The pool, for trusted catalogue reads (never for user SQL). */
  Pool pool() {
    return pool;
  }

  /** Runs {@code work} inside the read-only transaction; the connection is reset whatever happens. */
  public <T> Future<T> inReadOnlyTransaction(Function<SqlConnection, Future<T>> work) {
    return pool.getConnection().compose(conn -> {
      Future<T> outcome;
      try {
        outcome = conn.query(begin).execute().compose(v -> work.apply(conn));
      } catch (RuntimeException e) {
        outcome = Future.failedFuture(e);
      }
      return outcome.transform(done -> reset(conn).eventually(conn::close).transform(r -> done.succeeded()
          ? Future.succeededFuture(done.result()) : Future.failedFuture(done.cause())));
    });
  }

  /**
   * ROLLBACK, then DISCARD ALL (which may not run inside a transaction block), sent together: the connection
   * pipelines them and PostgreSQL runs them in order, one round trip for both.
   */
  private Future<Void> reset(SqlConnection conn) {
    Future<?> rolledBack = conn.query("ROLLBACK").execute();
    Future<?> discarded = conn.query("DISCARD ALL").execute();
    return rolledBack.compose(v -> discarded)
        .<Void>mapEmpty()
        .onFailure(e -> LOG.warn("could not reset a read-only connection: {}", e.getMessage()));
  }

  /**
   * Prepares {@code sql} (extended protocol: one statement only) and fetches at most {@code maxRows} rows
   * through a portal, whatever the statement's own LIMIT says. The portal and the statement are not
   * closed one by one: ROLLBACK and DISCARD ALL end both, two round trips fewer per query.
   */
  public Future<RowSet<Row>> fetch(SqlConnection conn, String sql, int maxRows) {
    return conn.prepare(sql).compose(ps -> {
      Cursor cursor = ps.cursor();
      return cursor.read(maxRows);
    });
  }

  /**
   * Fetches at most {@code maxRows} rows of a shaped statement ({@link ResultShape}) through a portal,
   * rendering each as it arrives and counting its bytes: past {@code budget} bytes the fetch stops with
   * {@link TooLarge}. Each read asks for no more rows than the budget could hold at the worst-case row size,
   * so memory stays near the budget whatever the query returns.
   */
  public Future<JsonArray> fetchBounded(SqlConnection conn, String sql, List<ResultShape.Column> columns, int maxRows,
                                        long budget) {
    // Memory stays within the budget whatever the chunk (worst-case row bytes); narrow rows come in one read.
    int chunk = (int) Math.max(1, Math.min(maxRows, budget / ResultShape.worstRowBytes(columns)));
    return conn.prepare(sql).compose(ps -> {
      Cursor cursor = ps.cursor();
      JsonArray out = new JsonArray();
      long[] bytes = {0};
      return readMore(cursor, columns, maxRows, budget, chunk, out, bytes);
    });
  }

  private Future<JsonArray> readMore(Cursor cursor, List<ResultShape.Column> columns, int maxRows, long budget, int chunk,
                                     JsonArray out, long[] bytes) {
    return cursor.read(Math.min(chunk, maxRows - out.size())).compose(rows -> {
      for (Row r : rows) {
        JsonArray cells = ResultJson.row(r, columns);
        bytes[0] += cells.encode().length();
        if (bytes[0] > budget) return Future.failedFuture(new TooLarge(budget, out.size() + 1));
        out.add(cells);
      }
      if (out.size() >= maxRows || !cursor.hasMore()) return Future.succeededFuture(out);
      return readMore(cursor, columns, maxRows, budget, chunk, out, bytes);
    });
  }

  /** The result grew past its byte budget. */
  static final class TooLarge extends RuntimeException {
    final long budget;
    final int rows;

    TooLarge(long budget, int rows) {
      super("result larger than " + budget + " bytes", null, false, false);
      this.budget = budget;
      this.rows = rows;
    }
  }

  public Future<Void> close() {
    return pool.close();
  }
}
