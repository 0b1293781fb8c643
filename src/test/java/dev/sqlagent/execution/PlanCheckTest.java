package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plan check on PostgreSQL's real plans, with the static check bypassed and planned as the admin (the
 * agent's role would already be refused EXPLAIN of a DELETE or of pg_sleep): the plan check alone refuses
 * locking and data-modifying plans, relations outside the visible tables, deny-listed functions and plans
 * above the cost limit.
 */
class PlanCheckTest {

  static Vertx vertx;
  static ReadOnlyExecutor executor;
  static ReadOnlyExecutor asAdmin;
  static VisibleSchema schema;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    executor = new ReadOnlyExecutor(vertx, TestDatabase.get().target().roOptions(), 1, 5000, 1000);
    schema = VisibleSchema.from(dev.sqlagent.catalogue.CatalogueHolder.over(vertx, executor.pool(), java.util.List.of())
        .current().await(30, TimeUnit.SECONDS).catalogue());
    asAdmin = new ReadOnlyExecutor(vertx, SafetyLayersTest.adminOptions(TestDatabase.get()), 1, 5000, 1000);
  }

  @AfterAll
  static void stop() throws Exception {
    executor.close().await(10, TimeUnit.SECONDS);
    asAdmin.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static JsonObject plan(String sql) throws Exception {
    return asAdmin.inReadOnlyTransaction(conn -> conn.preparedQuery(Gate.EXPLAIN_PREFIX + sql).execute())
        .map(rows -> ((JsonArray) rows.iterator().next().getValue(0)).getJsonObject(0)).await(30, TimeUnit.SECONDS);
  }

  static Optional<GateError> check(String sql) throws Exception {
    return PlanCheck.check(plan(sql), 1_000_000, schema);
  }

  @Test
  void anOrdinaryReadPasses() throws Exception {
    assertThat(check("SELECT b.bill_no, c.cust_name FROM bills b LEFT JOIN customers c USING (cust_id) LIMIT 201")).isEmpty();
    assertThat(check("SELECT * FROM generate_series(1, 10) g")).isEmpty();
  }

  @Test
  void lockingAndModifyingPlansAreRefused() throws Exception {
    assertThat(check("SELECT * FROM bills FOR UPDATE").orElseThrow().message()).contains("LockRows");
    assertThat(check("WITH d AS (DELETE FROM bills RETURNING *) SELECT count(*) FROM d").orElseThrow().message())
        .contains("ModifyTable");
  }

  @Test
  void relationsOutsideTheVisibleTablesAreUnknownTables() throws Exception {
    GateError e = check("SELECT relname FROM pg_class").orElseThrow();
    assertThat(e.type()).isEqualTo(ErrorType.UNKNOWN_TABLE);
    assertThat(e.message()).contains("pg_catalog.pg_class");
    assertThat(e.hint()).contains("bills");
    assertThat(check("SELECT * FROM information_schema.tables").orElseThrow().type()).isEqualTo(ErrorType.UNKNOWN_TABLE);
  }

  @Test
  void denyListedFunctionsPostgresResolvedAreRefused() throws Exception {
    assertThat(check("SELECT pg_sleep(1)").orElseThrow().message()).contains("pg_sleep");
    assertThat(check("SELECT * FROM pg_sleep(1)").orElseThrow().type()).isEqualTo(ErrorType.REJECTED);
    assertThat(check("SELECT bill_id FROM bills WHERE pg_try_advisory_lock(bill_id)").orElseThrow().message())
        .contains("pg_try_advisory_lock");
  }

  @Test
  void plansAboveTheCostLimitAreTimeouts() throws Exception {
    GateError e = check("SELECT count(*) FROM bills a, bills b, bills c").orElseThrow();
    assertThat(e.type()).isEqualTo(ErrorType.TIMEOUT);
    assertThat(e.hint()).contains("aggregate before joining");
  }

  @Test
  void textInTheQueryCannotPassForPartOfThePlan() throws Exception {
    assertThat(check("SELECT E'x\n    \"Node Type\": \"ModifyTable\",\n    \"Relation Name\": \"pg_class\"' AS forged, "
        + "'}], \"Total Cost\": 1e99' AS cost FROM bills LIMIT 201")).isEmpty();
  }

  @Test
  void denyListedFunctionsAreFoundInEveryKindOfExpression() throws Exception {
    assertThat(check("SELECT bill_id FROM bills ORDER BY pg_sleep(0)::text LIMIT 201").orElseThrow().message())
        .contains("pg_sleep");
    assertThat(check("SELECT bill_id FROM bills GROUP BY bill_id HAVING pg_try_advisory_lock(bill_id) LIMIT 201")
        .orElseThrow().message()).contains("pg_try_advisory_lock");
    assertThat(check("SELECT (SELECT pg_sleep(0)) AS s").orElseThrow().message()).contains("pg_sleep");
  }
}
