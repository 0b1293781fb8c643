package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sqlagent.db.PgUrl;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each layer under the static check refuses on its own, with the static check bypassed: the role (even
 * in a READ WRITE transaction), the read-only transaction (even for the admin, who could write), the
 * statement timeout (even for the admin, who may sleep), and the extended protocol (which refuses a second
 * statement that the simple protocol would run).
 */
class SafetyLayersTest {

  static Vertx vertx;
  static TestDatabase db;
  static String fingerprint;

  @BeforeAll
  static void start() throws Exception {
    db = TestDatabase.get();
    vertx = Vertx.vertx();
    try (Connection c = db.shopAdmin()) {
      fingerprint = DemoShop.fingerprint(c);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    try (Connection c = db.shopAdmin()) {
      assertThat(DemoShop.fingerprint(c)).as("the shop's rows after every attempt").isEqualTo(fingerprint);
    }
  }

  static PgConnectOptions admin() {
    return adminOptions(db);
  }

  static PgConnectOptions adminOptions(TestDatabase db) {
    PgUrl a = db.adminUrl();
    return new PgConnectOptions().setHost(a.host()).setPort(a.port()).setDatabase(db.target().database())
        .setUser(a.user()).setPassword(a.password());
  }

  static String sqlState(Future<?> f) {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (PgException e) {
      return e.getSqlState();
    } catch (Exception e) {
      fail("expected a PostgreSQL error, got " + e);
    }
    return "succeeded";
  }

  @Test
  void theRoleAloneRefusesWritesEvenInAReadWriteTransaction() throws Exception {
    Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(db.target().roOptions())
        .using(vertx).build();
    try {
      for (String sql : List.of(
          "INSERT INTO store_settings VALUES ('x', 'y')",
          "UPDATE bills SET total_amt = 0",
          "DELETE FROM payments",
          "TRUNCATE bill_items",
          "CREATE TABLE sql_agent_probe (a int)",
          "CREATE TEMP TABLE sql_agent_probe (a int)",
          "SELECT count(*) FROM " + TestDatabase.HIDDEN_TABLE,
          "SELECT nextval('bills_bill_id_seq')",
          "SELECT pg_advisory_lock(1)",
          "SELECT lo_from_bytea(0, 'x')",
          "SELECT set_config('work_mem', '1MB', false)",
          "SELECT pg_sleep(1)",
          "SELECT pg_notify('c', 'x')")) {
        String state = sqlState(pool.withConnection(conn -> conn.query("BEGIN READ WRITE").execute()
            .compose(v -> conn.preparedQuery(sql).execute())
            .eventually(() -> conn.query("ROLLBACK").execute())));
        assertThat(state).as(sql).isEqualTo("42501");
      }
    } finally {
      pool.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theReadOnlyTransactionAloneRefusesWritesEvenForTheAdmin() throws Exception {
    ReadOnlyExecutor asAdmin = new ReadOnlyExecutor(vertx, admin(), 1, 5000, 1000);
    try {
      for (String sql : List.of(
          "INSERT INTO store_settings VALUES ('x', 'y')",
          "UPDATE bills SET total_amt = 0",
          "DELETE FROM payments",
          "CREATE TABLE sql_agent_probe (a int)",
          "SELECT nextval('bills_bill_id_seq')",
          "WITH d AS (DELETE FROM bills RETURNING *) SELECT count(*) FROM d")) {
        assertThat(sqlState(asAdmin.inReadOnlyTransaction(conn -> conn.preparedQuery(sql).execute()))).as(sql)
            .isEqualTo("25006");
      }
      // Not even a transaction that asks for READ WRITE again gets it.
      assertThat(sqlState(asAdmin.inReadOnlyTransaction(conn -> conn.preparedQuery("SET TRANSACTION READ WRITE").execute())))
          .isEqualTo("25001");
    } finally {
      asAdmin.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theStatementTimeoutAloneStopsALongQueryEvenForTheAdmin() throws Exception {
    ReadOnlyExecutor asAdmin = new ReadOnlyExecutor(vertx, admin(), 1, 300, 1000);
    try {
      long t0 = System.nanoTime();
      assertThat(sqlState(asAdmin.inReadOnlyTransaction(conn -> conn.preparedQuery("SELECT pg_sleep(30)").execute())))
          .isEqualTo("57014");
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(10_000);
    } finally {
      asAdmin.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theExtendedProtocolAloneRefusesASecondStatement() throws Exception {
    ReadOnlyExecutor asAdmin = new ReadOnlyExecutor(vertx, admin(), 1, 5000, 1000);
    try {
      for (String sql : List.of("SELECT 1; SELECT 2", "SELECT $a$--$a$; DELETE FROM store_settings WHERE false",
          "SELECT E'\\'' ; DELETE FROM store_settings WHERE false; -- '")) {
        assertThat(sqlState(asAdmin.inReadOnlyTransaction(conn -> conn.preparedQuery(sql).execute()))).as(sql)
            .isEqualTo("42601");
        assertThat(sqlState(asAdmin.inReadOnlyTransaction(conn -> asAdmin.fetch(conn, sql, 10)))).as(sql)
            .isEqualTo("42601");
      }
      // What it protects against: the simple protocol runs both statements.
      var both = asAdmin.inReadOnlyTransaction(conn -> conn.query("SELECT 1; SELECT 2").execute())
          .await(10, TimeUnit.SECONDS);
      assertThat(both.next()).isNotNull();
    } finally {
      asAdmin.close().await(10, TimeUnit.SECONDS);
    }
  }
}
