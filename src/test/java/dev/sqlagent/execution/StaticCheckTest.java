package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The static check alone: no database, no Vert.x. */
class StaticCheckTest {

  private final StaticCheck check = new StaticCheck(TestSchemas.shop(), StaticCheck.Limits.DEFAULT);

  private StaticCheck.Verdict verdict(String sql) {
    return check.check(sql);
  }

  private String refusal(String sql) {
    StaticCheck.Verdict v = verdict(sql);
    assertThat(v.passed()).as("refused: " + sql).isFalse();
    return v.error().type().wireName();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT * FROM bills",
      "SELECT b.bill_no, c.cust_name FROM bills b LEFT JOIN customers c ON c.cust_id = b.cust_id",
      "WITH t AS (SELECT cust_id, sum(total_amt) s FROM bills GROUP BY 1) SELECT * FROM t ORDER BY s DESC",
      "VALUES (1), (2)",
      "TABLE categories",
      "(SELECT bill_id FROM bills) UNION (SELECT bill_id FROM bill_archive)",
      "SELECT public.bills.bill_id FROM public.bills",
      "SELECT \"bills\".bill_id FROM \"bills\"",
      "SELECT count(*) FROM bills; ",
      "SELECT upper('update'), 'delete from x' FROM bills",
      "SELECT pg_catalog.date_trunc('month', bill_dt) FROM bills",
      "SELECT pg_typeof(total_amt), '1'::pg_catalog.int4 FROM bills",
      "SELECT substring(bill_no FROM 1 FOR 3) FROM bills",
      "SELECT * FROM generate_series(1, 10) g(i)",
  })
  void readsOfShopTablesPassParsed(String sql) {
    StaticCheck.Verdict v = verdict(sql);
    assertThat(v.passed()).as(sql + " -> " + (v.error() == null ? "" : v.error().message())).isTrue();
    assertThat(v.parsed()).as(sql + " parsed").isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT cust_name COLLATE \"C\" FROM customers",
      "SELECT sum(total_amt) OVER (ORDER BY bill_dt GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM bills",
      "SELECT 1 FROM bills WHERE total_amt BETWEEN SYMMETRIC 500 AND 100",
      "SELECT * FROM bills JOIN payments USING (bill_id) AS j",
      "SELECT E'it''s', bill_no FROM bills",
      "SELECT $$x$$, bill_no FROM bills",
  })
  void constructsJSqlParserCannotReadFallBackToPostgres(String sql) {
    StaticCheck.Verdict v = verdict(sql);
    assertThat(v.passed()).as(sql).isTrue();
    assertThat(v.parsed()).as(sql).isFalse();
    assertThat(v.fallbackReason()).isNotBlank();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT 1; DELETE FROM bills",
      "SELECT $a$--$a$; DELETE FROM bills",
      "SELECT E'\\'' ; DELETE FROM bills; -- '",
      "DELETE FROM bills",
      "UPDATE bills SET total_amt = 0",
      "INSERT INTO store_settings VALUES ('a', 'b')",
      "DROP TABLE bills",
      "COPY bills TO '/tmp/x'",
      "SET statement_timeout = 0",
      "WITH d AS (DELETE FROM bills RETURNING *) SELECT * FROM d",
      "WITH d AS MATERIALIZED (UPDATE bills SET status = 'X' RETURNING *) SELECT 1",
      "WITH d AS (INSERT INTO store_settings VALUES ('a','b') RETURNING *) SELECT * FROM d",
      "SELECT * INTO TEMP x FROM bills",
      "SELECT * FROM bills FOR UPDATE",
      "SELECT * FROM bills FOR NO KEY UPDATE SKIP LOCKED",
      "SELECT * FROM bills FOR KEY SHARE",
      "SELECT pg_sleep(10)",
      "SELECT PG_SLEEP(10)",
      "SELECT \"pg_sleep\"(10)",
      "SELECT pg_catalog.pg_sleep(10)",
      "SELECT \"pg_catalog\".\"pg_sleep\"(10)",
      "SELECT U&\"\\0070g_sleep\"(10)",
      "SELECT * FROM pg_sleep(1)",
      "SELECT pg_advisory_lock(1)",
      "SELECT pg_try_advisory_lock(1)",
      "SELECT lo_from_bytea(0, 'x')",
      "SELECT lo_import('/etc/passwd')",
      "SELECT pg_read_file('postgresql.conf')",
      "SELECT * FROM pg_ls_dir('.')",
      "SELECT set_config('statement_timeout', '0', false)",
      "SELECT pg_notify('c', 'x')",
      "SELECT nextval('bills_bill_id_seq')",
      "SELECT setval('bills_bill_id_seq', 1)",
      "SELECT query_to_xml('delete from bills', true, true, '')",
      "SELECT ts_stat('select 1')",
      "SELECT dblink_exec('dbname=shop', 'delete from bills')",
      "SELECT pg_terminate_backend(1)",
      "SELECT pg_reload_conf()",
      "SELECT txid_current()",
      "SELECT count(*) FROM bills WHERE pg_sleep(1) IS NULL",
      "",
      "   ",
      "-- nothing",
      "SELECT 1\u0000; DELETE FROM bills",
  })
  void harmfulOrMalformedInputIsRejected(String sql) {
    assertThat(refusal(sql)).as(sql).isEqualTo("rejected");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT * FROM pg_class",
      "SELECT * FROM pg_catalog.pg_authid",
      "SELECT * FROM information_schema.tables",
      "SELECT * FROM agent_query_log",
      "SELECT * FROM public.agent_query_log",
      "SELECT * FROM \"agent_query_log\"",
      "SELECT * FROM no_such_table",
      "SELECT rolname COLLATE \"C\" FROM pg_roles",
      "SELECT x COLLATE \"C\" FROM information_schema.columns",
      "SELECT count(*) COLLATE \"C\" FROM agent_query_log",
      "SELECT $$x$$ FROM pg_shadow",
  })
  void catalogueHiddenAndMissingTablesAreUnknownTables(String sql) {
    StaticCheck.Verdict v = verdict(sql);
    assertThat(v.passed()).as(sql).isFalse();
    assertThat(v.error().type()).as(sql).isEqualTo(ErrorType.UNKNOWN_TABLE);
    assertThat(v.error().hint()).contains("bills", "customers", "store_settings").doesNotContain("agent_query_log");
  }

  @Test
  void cteNamesAreNotTables() {
    assertThat(verdict("WITH pg_roles AS (SELECT 1 AS x) SELECT * FROM pg_roles").passed()).isTrue();
    assertThat(verdict("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r")
        .passed()).isTrue();
  }

  @Test
  void refusalsPointAtTheOffendingText() {
    GateError e = verdict("SELECT bill_id FROM bills WHERE pg_sleep(1) IS NULL").error();
    assertThat(e.position()).isEqualTo(33);
    assertThat(e.message()).contains("pg_sleep", "sleeping");
    GateError stacked = verdict("SELECT 1; DELETE FROM bills").error();
    assertThat(stacked.position()).isEqualTo(11);
  }

  @Test
  void unbalancedAndUnterminatedTextIsASyntaxErrorWithPosition() {
    GateError e = verdict("SELECT (1 FROM bills").error();
    assertThat(e.type()).isEqualTo(ErrorType.SYNTAX_ERROR);
    GateError q = verdict("SELECT 'abc FROM bills").error();
    assertThat(q.type()).isEqualTo(ErrorType.SYNTAX_ERROR);
    assertThat(q.position()).isEqualTo(8);
    GateError breakout = verdict("SELECT 1) AS q; DELETE FROM bills; SELECT (1").error();
    assertThat(breakout.type()).isIn(ErrorType.SYNTAX_ERROR, ErrorType.REJECTED);
  }

  @Test
  void sizeAndDepthAreCappedBeforeParsing() {
    StaticCheck small = new StaticCheck(TestSchemas.shop(), new StaticCheck.Limits(100, 3, 500));
    assertThat(small.check("SELECT 1 FROM bills WHERE " + "1 = 1 AND ".repeat(20) + "true").error().message())
        .contains("characters");
    assertThat(small.check("SELECT ((((1))))").error().message()).contains("deep");
    String deep = "SELECT " + "(".repeat(30) + "1" + ")".repeat(30);
    assertThat(check.check(deep).error().type()).isEqualTo(ErrorType.REJECTED);
  }

  @Test
  void aSlowParseTimesOutIntoTheFallback() {
    StaticCheck.Verdict v = new StaticCheck(TestSchemas.shop(), new StaticCheck.Limits(20_000, 24, 200))
        .check("SELECT ((((((((cust_name #- '{x}')))))))) FROM customers");
    assertThat(v.passed()).isTrue();
    assertThat(v.parsed()).isFalse();
  }
}
