package dev.sqlagent.drift;

import dev.sqlagent.state.StateDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.cli.DriftCommand;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import dev.sqlagent.testing.DatabaseCopy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each kind of schema change, made on a copy of the shop database (shop_drift), never on the shared one.
 * Most changes run inside a transaction that is rolled back: PostgreSQL's DDL is transactional, and the
 * schema is read on the same connection, as the agent role would see it.
 */
class DriftTest {

  static Target copy;
  static SchemaShape baseline;
  static Vertx vertx;
  static Pool adminPool;

  @BeforeAll
  static void copyTheShop() throws Exception {
    copy = DatabaseCopy.of("shop_drift");
    vertx = Vertx.vertx();
    adminPool = PgBuilder.pool().connectingTo(TestDatabase.get().adminUrl().withDatabase(copy.database()).options("drift-test"))
        .using(vertx).build();
    baseline = shapeAfter();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  static Connection admin() throws Exception {
    return DatabaseCopy.admin(copy);
  }

  /**
   * The schema as the agent role sees it after these statements, which are then rolled back: PostgreSQL's DDL
   * is transactional, and discovery runs in the same transaction under the agent's role (SET LOCAL ROLE).
   */
  static SchemaShape shapeAfter(String... ddl) throws Exception {
    return adminPool.withConnection(conn -> {
      Future<Void> chain = conn.query("BEGIN").execute().mapEmpty();
      for (String d : ddl) chain = chain.compose(v -> conn.query(d).execute().mapEmpty());
      return chain.compose(v -> conn.query("SET LOCAL ROLE " + Target.DEMO_ROLE).execute())
          .compose(v -> new Discovery(adminPool, List.of()).readOn(conn))
          .map(cat -> SchemaReader.shape(copy.key(), cat))
          .eventually(() -> conn.query("ROLLBACK").execute());
    }).await(60, TimeUnit.SECONDS);
  }

  /** The drift report of the schema as it is after these statements, which are then rolled back. */
  static Drift after(String... ddl) throws Exception {
    return Drift.between(baseline, shapeAfter(ddl));
  }

  @Test
  void theSnapshotHoldsTypesWithPrecisionAndScaleAndNeverTheLog() {
    assertThat(baseline.byName()).containsKeys("bills", "bill_items", "customers").doesNotContainKey("agent_query_log");
    SchemaShape.Column total = baseline.byName().get("bills").byName().get("total_amt");
    assertThat(total.type()).isEqualTo("numeric(12,2)");
    assertThat(total.precision()).isEqualTo(12);
    assertThat(total.scale()).isEqualTo(2);
    SchemaShape.Column name = baseline.byName().get("customers").byName().get("cust_name");
    assertThat(name.type()).isEqualTo("character varying(80)");
    assertThat(name.length()).isEqualTo(80);
    assertThat(name.nullable()).isFalse();
  }

  @Test
  void anUnchangedSchemaHasNoDrift() throws Exception {
    Drift d = after();
    assertThat(d.drifted()).isFalse();
    assertThat(d.compatible()).isEmpty();
  }

  @Test
  void aRenamedColumnIsDrift() throws Exception {
    Drift d = after("ALTER TABLE bills RENAME COLUMN total_amt TO bill_total");
    assertThat(d.drifted()).isTrue();
    assertThat(d.drift()).extracting(Drift.Change::describe).containsExactly("column renamed: bills.total_amt -> bill_total");
  }

  @Test
  void aDroppedColumnIsDrift() throws Exception {
    Drift d = after("ALTER TABLE bill_archive DROP COLUMN emp_name");
    assertThat(d.drift()).extracting(Drift.Change::kind, Drift.Change::table, Drift.Change::column)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("column_dropped", "bill_archive", "emp_name"));
  }

  @Test
  void aRenamedTableIsDrift() throws Exception {
    Drift d = after("ALTER TABLE bill_archive RENAME TO bills_archived");
    assertThat(d.drift()).extracting(Drift.Change::describe).containsExactly("table renamed: bill_archive -> bills_archived");
  }

  @Test
  void aDroppedTableIsDrift() throws Exception {
    Drift d = after("DROP TABLE bill_archive");
    assertThat(d.drift()).extracting(Drift.Change::kind, Drift.Change::table)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("table_dropped", "bill_archive"));
  }

  @Test
  void aTableTheAgentCanNoLongerReadIsDrift() throws Exception {
    Drift d = after("REVOKE SELECT ON payments FROM sql_agent_ro");
    assertThat(d.drift()).extracting(Drift.Change::kind, Drift.Change::table)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("table_dropped", "payments"));
  }

  @Test
  void aTypeChangeThatRoundsValuesIsDrift() throws Exception {
    Drift d = after("ALTER TABLE bills ALTER COLUMN total_amt TYPE numeric(12,0)");
    assertThat(d.drift()).extracting(Drift.Change::describe)
        .containsExactly("type changed: bills.total_amt: numeric(12,2) -> numeric(12,0)");
  }

  @Test
  void narrowingAVarcharIsDrift() throws Exception {
    Drift d = after("ALTER TABLE customers ALTER COLUMN cust_name TYPE varchar(79)");
    assertThat(d.drifted()).isTrue();
  }

  @Test
  void valuePreservingWideningsAreNotDrift() throws Exception {
    Drift d = after(
        "ALTER TABLE customers ALTER COLUMN cust_name TYPE varchar(120)",
        "ALTER TABLE suppliers ALTER COLUMN city TYPE text",
        "ALTER TABLE bills ALTER COLUMN total_amt TYPE numeric(14,2)",
        "ALTER TABLE bill_archive ALTER COLUMN bill_id TYPE bigint");
    assertThat(d.drifted()).as(d.toJson().encodePrettily()).isFalse();
    assertThat(d.compatible()).extracting(Drift.Change::describe).containsExactlyInAnyOrder(
        "type widened: customers.cust_name: character varying(80) -> character varying(120)",
        "type widened: suppliers.city: character varying(40) -> text",
        "type widened: bills.total_amt: numeric(12,2) -> numeric(14,2)",
        "type widened: bill_archive.bill_id: integer -> bigint");
  }

  @Test
  void additionsAreReportedButAreNotDrift() throws Exception {
    Drift d = after(
        "ALTER TABLE bills ADD COLUMN note text",
        "CREATE TABLE loyalty_points (cust_id int, points int)",
        "GRANT SELECT ON loyalty_points TO sql_agent_ro");
    assertThat(d.drifted()).isFalse();
    assertThat(d.compatible()).extracting(Drift.Change::kind).containsExactlyInAnyOrder("column_added", "table_added");
  }

  @Test
  void theCommandExitsTwoWithoutASnapshotZeroWhenUnchangedAndOneWithWhatMoved() throws Exception {
    SnapshotRepository store = new SnapshotRepository(StateDatabase.open(vertx, TestDatabase.get().state(), 1));
    try (Connection c = TestDatabase.get().state().ownerConnection(); Statement s = c.createStatement()) {
      s.execute("DELETE FROM schema_snapshots WHERE target = '" + copy.key() + "'");
    }

    Run none = run(store);
    assertThat(none.code).isEqualTo(DriftCommand.NO_SNAPSHOT);
    assertThat(none.err).contains("no schema snapshot").contains("sql-agent serve");

    store.write(copy.key(), baseline.withIndexBuiltAt("2025-01-01T00:00:00Z")).await(10, TimeUnit.SECONDS);
    Run same = run(store);
    assertThat(same.code).as(same.out).isEqualTo(DriftCommand.NO_DRIFT);
    assertThat(same.out).contains("no drift");

    try {
      exec("ALTER TABLE bills RENAME COLUMN total_amt TO bill_total",
          "ALTER TABLE customers ALTER COLUMN cust_name TYPE varchar(100)");
      Run moved = run(store);
      assertThat(moved.code).isEqualTo(DriftCommand.DRIFTED);
      assertThat(moved.out).contains("DRIFT (1):").contains("column renamed: bills.total_amt -> bill_total")
          .contains("compatible (not drift) (1):").contains("customers.cust_name");
    } finally {
      exec("ALTER TABLE bills RENAME COLUMN bill_total TO total_amt",
          "ALTER TABLE customers ALTER COLUMN cust_name TYPE varchar(80)");
    }
    assertThat(run(store).code).isEqualTo(DriftCommand.NO_DRIFT);
  }

  record Run(int code, String out, String err) {}

  static Run run(SnapshotRepository store) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = DriftCommand.check(copy, List.of(), store, false, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static void exec(String... ddl) throws Exception {
    try (Connection c = admin(); Statement s = c.createStatement()) {
      for (String d : List.of(ddl)) s.execute(d);
    }
  }
}
