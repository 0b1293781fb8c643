package dev.sqlagent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.cli.Status;
import dev.sqlagent.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's setup against the real shared PostgreSQL: data, proofs, rebuilds, and building it elsewhere. */
class DemoShopTest {

  /** Changing the seed data must be deliberate: update this value in the same commit. */
  static final String FINGERPRINT = "32c811100f4e4b065a0ec2c1e0d455ec";

  private final TestDatabase db = TestDatabase.get();

  private DemoShop demo() {
    return new DemoShop(db.adminUrl().withDatabase(DemoShop.DATABASE), db.target().url().password());
  }

  @Test
  void seedsExactlyTheContractedVolumes() throws SQLException {
    try (Connection c = db.target().roConnection()) {
      assertThat(count(c, "SELECT count(*) FROM bills")).isEqualTo(1_400);
      assertThat(count(c, "SELECT count(*) FROM bill_archive")).isEqualTo(900);
      assertThat(count(c, "SELECT count(*) FROM categories")).isEqualTo(6);
      assertThat(count(c, "SELECT count(*) FROM employees")).isEqualTo(12);
      assertThat(count(c, "SELECT count(*) FROM employees WHERE role = 'OWNER' AND mgr_id IS NULL AND salary IS NULL")).isEqualTo(1);
      assertThat(count(c, "SELECT count(*) FROM bills WHERE bill_dt < '2025-01-01' OR bill_dt >= '2026-11-01'")).isZero();
      assertThat(count(c, "SELECT count(*) FROM bill_archive WHERE txn_dt < '2023-01-01' OR txn_dt >= '2025-01-01'")).isZero();
      assertThat(count(c, "SELECT count(*) FROM customers")).isBetween(140, 160);
      assertThat(count(c, "SELECT count(*) FROM products")).isBetween(110, 130);
      assertThat(count(c, "SELECT count(*) FROM suppliers WHERE NOT is_active")).isPositive();
      assertThat(count(c, "SELECT count(*) FROM suppliers WHERE gst_no IS NULL")).isPositive();
    }
  }

  @Test
  void seedKeepsTheDataRules() throws SQLException {
    try (Connection c = db.target().roConnection()) {
      // total_amt = sum(line_total) - discount_amt, for every bill
      assertThat(count(c, """
          SELECT count(*) FROM bills b
          WHERE b.total_amt <> (SELECT sum(i.line_total) FROM bill_items i WHERE i.bill_id = b.bill_id) - b.discount_amt""")).isZero();
      assertThat(count(c, "SELECT count(*) FROM bills b WHERE NOT EXISTS (SELECT 1 FROM bill_items i WHERE i.bill_id = b.bill_id)")).isZero();
      assertThat(count(c, "SELECT max(n) FROM (SELECT count(*) n FROM bill_items GROUP BY bill_id) x")).isLessThanOrEqualTo(6);
      int withCustomer = count(c, "SELECT count(*) FROM bills WHERE cust_id IS NOT NULL");
      assertThat(withCustomer).isBetween(350, 490);                     // about 30%
      int cancelled = count(c, "SELECT count(*) FROM bills WHERE status = 'CANCELLED'");
      assertThat(cancelled).isBetween(20, 110);                         // a few per cent
      assertThat(count(c, "SELECT count(*) FROM payments p JOIN bills b USING (bill_id) WHERE b.status = 'CANCELLED'")).isZero();
      // PAID bills are paid in full, most in one row, some in two or three
      assertThat(count(c, """
          SELECT count(*) FROM bills b WHERE b.status = 'PAID'
            AND b.total_amt <> (SELECT coalesce(sum(amt), 0) FROM payments p WHERE p.bill_id = b.bill_id)""")).isZero();
      assertThat(count(c, "SELECT count(*) FROM (SELECT bill_id FROM payments GROUP BY bill_id HAVING count(*) > 1) x")).isPositive();
      assertThat(count(c, """
          SELECT count(*) FROM bills b WHERE b.status = 'PARTIAL'
            AND (SELECT coalesce(sum(amt), 0) FROM payments p WHERE p.bill_id = b.bill_id) >= b.total_amt""")).isZero();
      // losses negative, statuses upper case, the planted address values
      assertThat(count(c, "SELECT count(*) FROM stock_adjustments WHERE reason IN ('DAMAGE', 'THEFT') AND qty_change >= 0")).isZero();
      assertThat(count(c, "SELECT count(*) FROM bills WHERE status <> upper(status)")).isZero();
      assertThat(count(c, "SELECT count(*) FROM customers WHERE address ILIKE '%ignore previous instructions%'")).isEqualTo(1);
      assertThat(count(c, "SELECT count(*) FROM customers WHERE length(address) > 1000")).isEqualTo(1);
      assertThat(count(c, "SELECT count(*) FROM customers WHERE is_credit_customer")).isBetween(40, 60);
      assertThat(count(c, "SELECT count(*) FROM customers WHERE credit_limit IS NOT NULL AND NOT is_credit_customer")).isZero();
    }
  }

  @Test
  void everyTableAndColumnIsCommented() throws SQLException {
    try (Connection c = db.target().roConnection()) {
      assertThat(count(c, """
          SELECT count(*) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
          WHERE n.nspname = 'public' AND k.relkind = 'r' AND obj_description(k.oid, 'pg_class') IS NULL""")).isZero();
      assertThat(count(c, """
          SELECT count(*) FROM information_schema.columns
          WHERE table_schema = 'public' AND col_description((table_schema || '.' || table_name)::regclass, ordinal_position) IS NULL""")).isZero();
    }
  }

  @Test
  void rebuildGivesTheSameRowsAndThePinnedFingerprint() throws SQLException {
    String before;
    try (Connection c = db.shopAdmin()) {
      before = DemoShop.fingerprint(c);
    }
    demo().run();
    try (Connection c = db.shopAdmin()) {
      assertThat(DemoShop.fingerprint(c)).isEqualTo(before).isEqualTo(FINGERPRINT);
    }
  }

  @Test
  void aForbiddenGrantFailsSetupNamingTheStatement() throws SQLException {
    DemoShop setup = demo();
    try (Connection c = db.shopAdmin(); Statement s = c.createStatement()) {
      s.execute("GRANT DELETE ON bill_items TO sql_agent_ro");
    }
    try {
      assertThatThrownBy(setup::prove)
          .isInstanceOf(DemoShop.SetupException.class)
          .hasMessageContaining("sql_agent_ro was able to run `DELETE FROM bill_items`");
    } finally {
      setup.grantRole();        // setup's own grant step puts it right again
    }
    assertThat(setup.prove()).hasSize(9);
    try (Connection c = db.target().roConnection()) {
      assertThat(count(c, "SELECT count(*) FROM bill_items")).isPositive();   // nothing was deleted
    }
  }

  @Test
  void logRoleThatCanReadIsRefusedByTheStateStore() throws SQLException {
    try (Connection c = db.state().ownerConnection(); Statement s = c.createStatement()) {
      s.execute("GRANT SELECT ON agent_query_log TO sql_agent_log");
    }
    try {
      assertThatThrownBy(() -> db.state().proveLogRole())
          .hasMessageContaining("sql_agent_log was able to run `SELECT count(*) FROM agent_query_log`");
    } finally {
      try (Connection c = db.state().ownerConnection(); Statement s = c.createStatement()) {
        s.execute("REVOKE SELECT ON agent_query_log FROM sql_agent_log");
      }
    }
    assertThat(db.state().proveLogRole()).hasSize(6);
  }

  @Test
  void statusAttemptsEveryCheckAndAllPass() {
    List<Status.Check> checks = Status.run(db.target(), db.state(), List.of());
    assertThat(checks).allMatch(Status.Check::ok, "every status check ok");
    assertThat(checks).filteredOn(c -> c.name().equals("read-only: read_only_transaction"))
        .singleElement().extracting(Status.Check::detail).asString().contains("25006");
    assertThat(checks).filteredOn(c -> c.name().startsWith("read-only: ")).hasSizeGreaterThanOrEqualTo(9);
    assertThat(checks).filteredOn(c -> c.name().equals("log role"))
        .anySatisfy(c -> assertThat(c.detail()).contains("cannot: SELECT count(*) FROM agent_query_log (42501)"));
    assertThat(checks).filteredOn(c -> c.name().equals("relations the agent can read"))
        .singleElement().extracting(Status.Check::detail).asString().startsWith("15 in 1 schema(s) of shop");
  }

  @Test
  void demoIntoRefusesADatabaseThatHasAnyShopTableAndBuildsAnEmptyOne() throws SQLException {
    String name = "demo_into_" + System.nanoTime();
    try (Connection c = db.adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    try {
      try (Connection c = db.adminConnection(name); Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA crm");
        s.execute("CREATE TABLE crm.customers (id int PRIMARY KEY, name text)");
        s.execute("INSERT INTO crm.customers VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger')");
      }
      var url = db.adminUrl().withDatabase(name);
      assertThatThrownBy(() -> DemoShop.buildInto(url)).isInstanceOf(DemoShop.SetupException.class)
          .hasMessageContaining("already has crm.customers").hasMessageContaining("never replaces");
      try (Connection c = db.adminConnection(name)) {
        assertThat(count(c, "SELECT count(*) FROM crm.customers")).isEqualTo(3);
        assertThat(count(c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();
        Statement s = c.createStatement();
        s.execute("DROP TABLE crm.customers");
      }
      DemoShop.buildInto(url);
      try (Connection c = db.adminConnection(name)) {
        assertThat(DemoShop.fingerprint(c)).isEqualTo(FINGERPRINT);
      }
    } finally {
      try (Connection c = db.adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE " + name + " WITH (FORCE)");
      }
    }
  }

  @Test
  void agentRoleHasTheContractedLoginDefaults() throws SQLException {
    try (Connection c = db.target().roConnection()) {
      assertThat(text(c, "SHOW default_transaction_read_only")).isEqualTo("on");
      assertThat(text(c, "SHOW statement_timeout")).isEqualTo("5s");
      assertThat(text(c, "SHOW lock_timeout")).isEqualTo("1s");
      assertThat(text(c, "SHOW idle_in_transaction_session_timeout")).isEqualTo("10s");
    }
  }

  static int count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static String text(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
