package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One pooled connection, many queries: whatever a query did to its session (with the static check
 * bypassed: SET, PREPARE, cursors, LISTEN, advisory lock attempts, a timeout) is gone for the next
 * query on the same backend.
 */
class PooledConnectionTest {

  static Vertx vertx;
  static ReadOnlyExecutor executor;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    executor = new ReadOnlyExecutor(vertx, TestDatabase.get().target().roOptions(), 1, 500, 200);
  }

  @AfterAll
  static void stop() throws Exception {
    executor.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static Row one(String sql) throws Exception {
    RowSet<Row> rows = executor.inReadOnlyTransaction(conn -> conn.preparedQuery(sql).execute()).await(30, TimeUnit.SECONDS);
    return rows.iterator().next();
  }

  static void attempt(String sql) {
    try {
      executor.inReadOnlyTransaction(conn -> conn.preparedQuery(sql).execute()).await(30, TimeUnit.SECONDS);
    } catch (Exception refusedOrTimedOut) {
      // Refused or not: what matters is what the next query sees.
    }
  }

  @Test
  void nothingAQueryDidIsVisibleToTheNextQueryOnTheSameConnection() throws Exception {
    int pid = one("SELECT pg_backend_pid()").getInteger(0);
    String workMem = one("SELECT current_setting('work_mem')").getString(0);
    String searchPath = one("SELECT current_setting('search_path')").getString(0);

    for (String sql : List.of(
        "SET work_mem = '1234kB'",
        "SET SESSION search_path = pg_catalog",
        "SET statement_timeout = 0",
        "SET idle_in_transaction_session_timeout = 0",
        "SELECT set_config('application_name', 'changed', false)",
        "PREPARE leftover AS SELECT 1",
        "DECLARE leftover_cursor CURSOR WITH HOLD FOR SELECT 1",
        "LISTEN leftover_channel",
        "SELECT pg_advisory_lock(42)",
        "SELECT pg_try_advisory_lock(42)",
        "CREATE TEMP TABLE leftover_table (a int)",
        "SELECT setseed(0.5)",
        "SELECT count(*) FROM generate_series(1, (SELECT 100000000))")) {
      attempt(sql);
    }

    assertThat(one("SELECT pg_backend_pid()").getInteger(0)).as("the same pooled connection").isEqualTo(pid);
    assertThat(one("SELECT current_setting('work_mem')").getString(0)).isEqualTo(workMem);
    assertThat(one("SELECT current_setting('search_path')").getString(0)).isEqualTo(searchPath);
    assertThat(one("SELECT current_setting('statement_timeout')").getString(0)).as("the gate's own SET LOCAL").isEqualTo("500ms");
    assertThat(one("SELECT current_setting('idle_in_transaction_session_timeout')").getString(0)).isEqualTo("10s");
    assertThat(one("SELECT current_setting('application_name')").getString(0)).isEqualTo("sql-agent");
    assertThat(one("SELECT count(*) FROM pg_prepared_statements WHERE name = 'leftover'").getLong(0)).isZero();
    assertThat(one("SELECT count(*) FROM pg_cursors WHERE name = 'leftover_cursor'").getLong(0)).isZero();
    assertThat(one("SELECT count(*) FROM pg_listening_channels()").getLong(0)).isZero();
    assertThat(one("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").getLong(0)).isZero();
    assertThat(one("SELECT count(*) FROM pg_class WHERE relname = 'leftover_table'").getLong(0)).isZero();
    assertThat(one("SELECT current_setting('transaction_read_only')").getString(0)).isEqualTo("on");
    assertThat(one("SELECT pg_backend_pid()").getInteger(0)).isEqualTo(pid);
  }

  @Test
  void aTimedOutQueryLeavesAUsableConnection() throws Exception {
    int pid = one("SELECT pg_backend_pid()").getInteger(0);
    attempt("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r");
    assertThat(one("SELECT 41 + 1").getInteger(0)).isEqualTo(42);
    assertThat(one("SELECT pg_backend_pid()").getInteger(0)).isEqualTo(pid);
  }
}
