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

  /** ROLLBACK, then DISCARD ALL (which may not run inside a transaction block). */
  private Future<Void> reset(SqlConnection conn) {
    return conn.query("ROLLBACK").execute()
        .compose(v -> conn.query("DISCARD ALL").execute())
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

  public Future<Void> close() {
    return pool.close();
  }
}
