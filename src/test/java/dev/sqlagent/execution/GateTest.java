package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whole gate against the real database: results, refusals and PostgreSQL's errors as data. */
class GateTest {

  static Vertx vertx;
  static Gate gate;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    gate = Gate.start(vertx, Gate.Database.of(TestDatabase.get().target().roOptions()),
        Gate.Settings.DEFAULTS.withTimeouts(1500, 500).withPoolSize(2)).await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    gate.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static JsonObject run(String sql) throws Exception {
    return gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).toJson();
  }

  @Test
  void theVisibleTablesComeFromTheCatalogueAsTheAgentRole() {
    assertThat(gate.schema().tables()).extracting(VisibleSchema.Table::name)
        .contains("bills", "bill_items", "customers", "store_settings").doesNotContain("payroll");
    assertThat(gate.schema().isHidden("staff", "payroll")).isTrue();
    assertThat(gate.schema().resolve("staff", "payroll")).isEmpty();
  }

  @Test
  void aSuccessfulQueryHasTheContractsShape() throws Exception {
    JsonObject r = run("SELECT cat_id, cat_name FROM categories ORDER BY cat_id");
    assertThat(r.getBoolean("ok")).as(r.encode()).isTrue();
    assertThat(r.getString("sql")).isEqualTo("SELECT cat_id, cat_name FROM categories ORDER BY cat_id LIMIT 200");
    assertThat(r.getJsonArray("columns")).containsExactly(
        new JsonObject().put("name", "cat_id").put("type", "int4"),
        new JsonObject().put("name", "cat_name").put("type", "varchar"));
    assertThat(r.getInteger("row_count")).isEqualTo(6);
    assertThat(r.getJsonArray("rows").getJsonArray(0).getValue(0)).isEqualTo(1);
    assertThat(r.getBoolean("truncated")).isFalse();
    assertThat(r.getLong("elapsed_ms")).isNotNegative();
    assertThat(r.getDouble("plan_cost")).isPositive();
    assertThat(r.getString("static_check")).isEqualTo("parsed");
  }

  @Test
  void moreRowsThanTheCapAreTruncatedAtTheCap() throws Exception {
    JsonObject r = run("SELECT bill_id FROM bills ORDER BY bill_id");
    assertThat(r.getInteger("row_count")).isEqualTo(200);
    assertThat(r.getBoolean("truncated")).isTrue();
    JsonObject small = gate.submit(GateRequest.run("SELECT bill_id FROM bills ORDER BY bill_id").withRowCap(5)).await(30, TimeUnit.SECONDS).toJson();
    assertThat(small.getInteger("row_count")).isEqualTo(5);
    assertThat(small.getBoolean("truncated")).isTrue();
    assertThat(small.getString("sql")).endsWith("LIMIT 5");
    JsonObject own = run("SELECT bill_id FROM bills ORDER BY bill_id LIMIT 7");
    assertThat(own.getInteger("row_count")).isEqualTo(7);
    assertThat(own.getBoolean("truncated")).isFalse();
    JsonObject expr = run("SELECT bill_id FROM bills ORDER BY bill_id LIMIT (SELECT 3)");
    assertThat(expr.getInteger("row_count")).isEqualTo(3);
    assertThat(expr.getBoolean("truncated")).isFalse();
    JsonObject exprBig = run("SELECT bill_id FROM bills ORDER BY bill_id LIMIT (SELECT 100000)");
    assertThat(exprBig.getInteger("row_count")).isEqualTo(200);
    assertThat(exprBig.getBoolean("truncated")).isTrue();
  }

  @Test
  void cellsKeepNullsExactNumbersAndIsoTimes() throws Exception {
    JsonObject r = run("SELECT NULL::text AS n, ''::text AS e, 12345678901234567890.123456789::numeric AS big, "
        + "10.50::numeric(10,2) AS money, 3::int8 AS i8, 1.5::float8 AS f, 'NaN'::float8 AS nan, "
        + "DATE '2025-01-02' AS d, TIMESTAMP '2025-01-02 03:04:05.5' AS ts, "
        + "TIMESTAMPTZ '2025-01-02 03:04:05+00' AS tz, INTERVAL '1 day 2 hours' AS iv, true AS b, "
        + "ARRAY[1, NULL, 3] AS arr, '{\"a\": 1}'::jsonb AS j, repeat('x', 700) AS long_text");
    assertThat(r.getBoolean("ok")).as(r.encode()).isTrue();
    JsonArray row = r.getJsonArray("rows").getJsonArray(0);
    assertThat(row.getValue(0)).isNull();
    assertThat(row.getValue(1)).isEqualTo("");
    assertThat(row.getValue(2)).isEqualTo("12345678901234567890.123456789");
    assertThat(row.getValue(3)).isEqualTo("10.50");
    assertThat(row.getValue(4)).isEqualTo(3L);
    assertThat(row.getValue(5)).isEqualTo(1.5);
    assertThat(row.getValue(6)).isEqualTo("NaN");
    assertThat(row.getValue(7)).isEqualTo("2025-01-02");
    assertThat(row.getValue(8)).isEqualTo("2025-01-02 03:04:05.5");
    assertThat(row.getValue(9)).isEqualTo("2025-01-02 03:04:05+00");   // the test server's TimeZone is UTC
    assertThat(row.getValue(10)).isEqualTo("1 day 02:00:00");
    assertThat(row.getValue(11)).isEqualTo(true);
    assertThat(row.getJsonArray(12)).containsExactly(1, null, 3);
    assertThat(row.getJsonObject(13)).isEqualTo(new JsonObject().put("a", 1));
    assertThat(row.getString(14)).hasSize(500 + "…[clipped, 700 chars]".length()).endsWith("…[clipped, 700 chars]");
    assertThat(r.getJsonArray("columns").getJsonObject(2).getString("type")).isEqualTo("numeric");
    assertThat(r.getJsonArray("columns").getJsonObject(12).getString("type")).isEqualTo("int4[]");
  }

  @Test
  void checkOnlyRunsNothingButExplains() throws Exception {
    JsonObject r = gate.submit(GateRequest.check("SELECT * FROM bills")).await(30, TimeUnit.SECONDS).toJson();
    assertThat(r.fieldNames()).containsExactlyInAnyOrder("ok", "sql", "static_check", "plan_cost", "stages", "write_refused");
    assertThat(r.getJsonObject("stages").fieldNames()).containsExactly("static_check", "limit", "plan");
    assertThat(r.getString("static_check")).isEqualTo("parsed");
    JsonObject fb = gate.submit(GateRequest.check("SELECT cust_name COLLATE \"C\" FROM customers")).await(30, TimeUnit.SECONDS).toJson();
    assertThat(fb.getString("static_check")).isEqualTo("fallback");
  }

  @Test
  void anUnknownColumnNamesTheColumnsThatExist() throws Exception {
    JsonObject r = run("SELECT b.bill_date FROM bills b");
    assertThat(r.getString("error_type")).isEqualTo("unknown_column");
    assertThat(r.getString("sqlstate")).isEqualTo("42703");
    assertThat(r.getBoolean("repairable")).isTrue();
    assertThat(r.getInteger("position")).isEqualTo(8);
    assertThat(r.getString("hint")).contains("bills(", "bill_dt timestamp without time zone", "total_amt numeric(12,2)");
    assertThat(r.getString("sql")).isEqualTo("SELECT b.bill_date FROM bills b");
  }

  @Test
  void anUnknownColumnThatAnotherTableHasNamesThatTable() throws Exception {
    // A small model writes the column it needs on the one table it has: the hint says which table holds it.
    for (String sql : List.of("SELECT cust_name FROM bills", "SELECT b.cust_name FROM bills b WHERE b.total_amt > 0")) {
      JsonObject r = run(sql);
      assertThat(r.getString("error_type")).as(sql).isEqualTo("unknown_column");
      assertThat(r.getString("hint")).as(sql).contains("bills(").contains("cust_name is a column of bill_archive, customers: join the table that has it.");
    }
    assertThat(run("SELECT b.no_such_column FROM bills b").getString("hint")).doesNotContain("is a column of");
  }

  @Test
  void aTableUsedWithoutBeingJoinedIsNamedSo() throws Exception {
    // Recorded from a 0.5B model: a column of a table that the FROM clause never joins.
    JsonObject r = run("SELECT customers.cust_name, b.total_amt FROM bills b");
    assertThat(r.getString("error_type")).isEqualTo("unknown_table");
    assertThat(r.getString("hint")).contains("customers is used but not joined: add it to FROM with a JOIN");
    assertThat(run("SELECT x.total_amt FROM bills b").getString("hint")).doesNotContain("is used but not joined");
  }

  @Test
  void anAmbiguousColumnIsClassified() throws Exception {
    JsonObject r = run("SELECT status FROM bills b JOIN bill_archive a ON a.bill_id = b.bill_id");
    assertThat(r.getString("error_type")).isEqualTo("ambiguous_column");
    assertThat(r.getInteger("position")).isEqualTo(8);
  }

  @Test
  void groupingWindowingCardinalityAndDivisionErrorsAreClassified() throws Exception {
    assertThat(run("SELECT cust_id, bill_no, count(*) FROM bills GROUP BY cust_id").getString("error_type"))
        .isEqualTo("grouping_error");
    assertThat(run("SELECT bill_id FROM bills WHERE row_number() OVER () < 3").getString("error_type"))
        .isEqualTo("windowing_error");
    assertThat(run("SELECT (SELECT bill_id FROM bills) AS x").getString("error_type"))
        .isEqualTo("cardinality_violation");
    JsonObject div = run("SELECT total_amt / (bill_id - bill_id) FROM bills");
    assertThat(div.getString("error_type")).isEqualTo("division_by_zero");
    assertThat(div.getString("hint")).contains("NULLIF");
    assertThat(run("SELECT * FROM bills WHERE bill_dt > 'yesterday-ish'").getString("error_type"))
        .isEqualTo("type_mismatch");
    assertThat(run("SELECT datediff('day', bill_dt, now()) FROM bills").getString("error_type"))
        .isEqualTo("unknown_function");
  }

  @Test
  void aSyntaxErrorInTheFallbackComesFromPostgresWithItsPosition() throws Exception {
    String sql = "SELECT cust_name COLLATE \"C\" FROM customers WHERE WHERE cust_id = 1";
    JsonObject r = run(sql);
    assertThat(r.getString("error_type")).isEqualTo("syntax_error");
    assertThat(r.getString("sqlstate")).isEqualTo("42601");
    assertThat(r.getInteger("position")).isEqualTo(sql.indexOf("WHERE cust_id") + 1);
    JsonObject incomplete = run("SELECT * FROM bills WHERE");
    assertThat(incomplete.getString("error_type")).isEqualTo("syntax_error");
    assertThat(incomplete.getString("message")).contains("end of input");
    assertThat(incomplete.getInteger("position")).isEqualTo(25);
    JsonObject wrapped = run("SELECT cust_name COLLATE \"C\" FROM customerz LIMIT (SELECT 1)");
    assertThat(wrapped.getString("error_type")).isEqualTo("unknown_table");
    assertThat(wrapped.getInteger("position")).isEqualTo(35);
  }

  @Test
  void expensivePlansAreRefusedBeforeTheyRun() throws Exception {
    JsonObject r = run("SELECT count(*) FROM bills a, bills b, bills c");
    assertThat(r.getString("error_type")).isEqualTo("timeout");
    assertThat(r.getString("message")).contains("cost");
    assertThat(r.getString("hint")).contains("aggregate before joining");
    assertThat(r.getBoolean("repairable")).isTrue();
  }

  @Test
  void slowQueriesAreCancelledByTheStatementTimeout() throws Exception {
    JsonObject r = run("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100000000) "
        + "SELECT count(*) FROM r");
    assertThat(r.getString("error_type")).as(r.encode()).isEqualTo("timeout");
    assertThat(r.getString("sqlstate")).isEqualTo("57014");
    // The connection is usable afterwards.
    assertThat(run("SELECT 1").getBoolean("ok")).isTrue();
  }

  /**
   * The plan has a short timeout of its own (at most {@link Gate#EXPLAIN_TIMEOUT_MS}), set in the message that shows
   * it; the query then runs under its own, longer one, on first sight and on a repeat alike.
   */
  @Test
  void theQueryRunsUnderItsOwnTimeoutAfterThePlansShorterOne() throws Exception {
    Vertx own = Vertx.vertx();
    try {
      Gate longer = Gate.start(own, Gate.Database.of(TestDatabase.get().target().roOptions()),
          Gate.Settings.DEFAULTS.withTimeouts(4000, 500).withPoolSize(1)).await(60, TimeUnit.SECONDS);
      for (int i = 0; i < 2; i++) {
        JsonObject r = longer.submit(GateRequest.run("SELECT current_setting('statement_timeout') AS t"))
            .await(30, TimeUnit.SECONDS).toJson();
        assertThat(r.getBoolean("ok")).as(r.encode()).isTrue();
        assertThat(r.getJsonArray("rows").getJsonArray(0).getString(0)).isEqualTo("4s");
      }
      longer.close().await(10, TimeUnit.SECONDS);
    } finally {
      own.close().await(10, TimeUnit.SECONDS);
    }
  }
}
