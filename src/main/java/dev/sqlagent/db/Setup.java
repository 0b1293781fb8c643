package dev.sqlagent.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the shop database from nothing and proves the agent's roles. Blocking JDBC: it runs from the
 * command line or before the service's event loops exist, never on one.
 *
 * <p>Re-running rebuilds the same database row for row: the shop tables are dropped and re-created in one
 * transaction (a failure leaves the old data), the query log is kept.
 */
public final class Setup {

  private static final Logger LOG = LoggerFactory.getLogger(Setup.class);

  /** The shop's tables in dependency order: the contract of shop-schema.md. */
  public static final List<String> SHOP_TABLES = List.of(
      "categories", "suppliers", "employees", "customers", "products", "tbl_prod_master_old",
      "purchase_orders", "po_lines", "stock_entries", "bills", "bill_items", "bill_archive", "payments",
      "stock_adjustments", "store_settings");

  public static final String QUERY_LOG = "agent_query_log";

  /** Setup refused to finish: a role could do what it must not, or the database could not be built. */
  public static final class SetupException extends RuntimeException {
    public SetupException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final DbTarget target;

  public Setup(DbTarget target) {
    this.target = target;
  }

  /** The whole setup: database, schema, data, log table, roles, then the proofs. */
  public void run() {
    long t0 = System.nanoTime();
    ensureDatabase();
    rebuild();
    grantRoles();
    List<String> proofs = prove();
    LOG.info("setup of {} done in {} ms; {} role proofs passed", target.admin(),
        (System.nanoTime() - t0) / 1_000_000, proofs.size());
  }

  /** Creates the database if it does not exist yet. */
  public void ensureDatabase() {
    try (Connection c = target.adminConnection("postgres");
         PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      ps.setString(1, target.database());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) return;
      }
      try (Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + target.database() + " ENCODING 'UTF8' TEMPLATE template0");
      }
      LOG.info("created database {}", target.database());
    } catch (SQLException e) {
      throw new SetupException("cannot create database " + target.database() + " on " + target.admin() + ": "
          + e.getMessage(), e);
    }
  }

  /** Drops and re-creates the shop tables with their data, in one transaction; keeps the query log. */
  public void rebuild() {
    try (Connection c = target.adminConnection(target.database())) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        List<String> reversed = new ArrayList<>(SHOP_TABLES);
        java.util.Collections.reverse(reversed);
        for (String t : reversed) s.execute("DROP TABLE IF EXISTS " + t + " CASCADE");
        for (String stmt : SqlScript.load("schema.sql", Map.of())) s.execute(stmt);
        for (String stmt : SqlScript.load("query_log.sql", Map.of())) s.execute(stmt);
      }
      for (SeedData.Table t : SeedData.generate()) insert(c, t);
      resetSequences(c);
      c.commit();
    } catch (SQLException e) {
      throw new SetupException("cannot build the shop schema and data: " + e.getMessage(), e);
    }
  }

  private static void insert(Connection c, SeedData.Table t) throws SQLException {
    String cols = String.join(", ", t.columns());
    String marks = String.join(", ", java.util.Collections.nCopies(t.columns().size(), "?"));
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.name() + " (" + cols + ") VALUES (" + marks + ")")) {
      for (List<Object> row : t.rows()) {
        for (int i = 0; i < row.size(); i++) ps.setObject(i + 1, row.get(i));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Explicit ids were inserted; serial sequences continue after the largest. */
  private static void resetSequences(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("""
             SELECT a.attrelid::regclass::text, a.attname
             FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid JOIN pg_namespace n ON n.oid = k.relnamespace
             WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
               AND pg_get_serial_sequence(a.attrelid::regclass::text, a.attname) IS NOT NULL
               AND k.relname <> 'agent_query_log'""")) {
      List<String[]> serials = new ArrayList<>();
      while (rs.next()) serials.add(new String[] {rs.getString(1), rs.getString(2)});
      for (String[] sc : serials) {
        try (Statement u = c.createStatement()) {
          u.execute("SELECT setval(pg_get_serial_sequence('" + sc[0] + "', '" + sc[1] + "'), "
              + "COALESCE((SELECT max(" + sc[1] + ") FROM " + sc[0] + "), 0) + 1, false)");
        }
      }
    }
  }

  /** Creates or updates the two agent roles with their stored passwords and exact grants. */
  public void grantRoles() {
    Map<String, String> values = Map.of(
        "db", target.database(),
        "ro_password", SqlScript.literal(target.roles().ro()),
        "log_password", SqlScript.literal(target.roles().log()));
    try (Connection c = target.adminConnection(target.database()); Statement s = c.createStatement()) {
      for (String stmt : SqlScript.load("roles.sql", values)) s.execute(stmt);
    } catch (SQLException e) {
      throw new SetupException("cannot create the agent roles: " + e.getMessage(), e);
    }
  }

  /**
   * Attempts, as each role, what it must not do. Every attempt runs in its own transaction, which is
   * rolled back whatever happens. Returns the proofs; throws naming the first statement that got through.
   */
  public List<String> prove() {
    List<String> proofs = new ArrayList<>();
    try (Connection ro = target.roConnection()) {
      // Under the role's defaults: the read-only transaction refuses a write by itself.
      proofs.add(mustFail(ro, DbTarget.RO_ROLE, false, "INSERT INTO store_settings VALUES ('x', 'y')", "25006"));
      // With READ WRITE asked for explicitly, the privileges alone must refuse.
      for (String sql : List.of(
          "INSERT INTO store_settings VALUES ('x', 'y')",
          "UPDATE bills SET total_amt = 0",
          "DELETE FROM bill_items",
          "TRUNCATE payments",
          "CREATE TABLE sql_agent_probe (a int)",
          "CREATE TEMP TABLE sql_agent_probe (a int)",
          "SELECT count(*) FROM agent_query_log",
          "SELECT setval('bills_bill_id_seq', 1)",
          "SELECT pg_advisory_lock(1)")) {
        proofs.add(mustFail(ro, DbTarget.RO_ROLE, true, sql, null));
      }
    } catch (SQLException e) {
      throw new SetupException("cannot connect as " + DbTarget.RO_ROLE + ": " + e.getMessage(), e);
    }
    try (Connection log = target.logConnection()) {
      for (String sql : List.of(
          "SELECT count(*) FROM bills",
          "SELECT count(*) FROM agent_query_log",
          "UPDATE agent_query_log SET mode = 'x'",
          "DELETE FROM agent_query_log")) {
        proofs.add(mustFail(log, DbTarget.LOG_ROLE, true, sql, null));
      }
      proofs.add(mustSucceed(log, DbTarget.LOG_ROLE, """
          INSERT INTO agent_query_log (run_id, question, asked_at, mode, attempts_used, gave_up, refused)
          VALUES ('setup-proof', 'setup proof', now(), 'agent', 0, false, false)"""));
    } catch (SQLException e) {
      throw new SetupException("cannot connect as " + DbTarget.LOG_ROLE + ": " + e.getMessage(), e);
    }
    return proofs;
  }

  private static String mustFail(Connection c, String role, boolean readWrite, String sql, String expectState)
      throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      if (readWrite) s.execute("SET TRANSACTION READ WRITE");
      s.execute(sql);
    } catch (SQLException refused) {
      c.rollback();
      if (expectState != null && !expectState.equals(refused.getSQLState())) {
        throw new SetupException("role " + role + " was refused `" + sql + "` with SQLSTATE " + refused.getSQLState()
            + ", expected " + expectState + ": " + refused.getMessage(), refused);
      }
      return role + " cannot: " + sql + " (" + refused.getSQLState() + ")";
    }
    c.rollback();
    throw new SetupException("role " + role + " was able to run `" + sql + "`: its grants are wrong, "
        + "setup stops here (the statement was rolled back)", null);
  }

  private static String mustSucceed(Connection c, String role, String sql) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      c.rollback();
      throw new SetupException("role " + role + " could not run `" + sql.strip() + "`: " + e.getMessage(), e);
    }
    c.rollback();
    return role + " can: " + sql.strip().lines().findFirst().orElse(sql) + " (rolled back)";
  }

  private static String keyColumn(Connection c, String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass AND attnum = 1")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /** An md5 over every shop table's rows in primary-key order: pins the seed data. */
  public static String fingerprint(Connection c) throws SQLException {
    StringBuilder all = new StringBuilder();
    try (Statement s = c.createStatement()) {
      for (String t : SHOP_TABLES) {
        // Ordered by the key's text in the C collation, so the order is the same on every server.
        try (ResultSet rs = s.executeQuery("SELECT md5(coalesce(string_agg(x::text, E'\\n' ORDER BY "
            + "(x." + keyColumn(c, t) + ")::text COLLATE \"C\"), '')) FROM " + t + " x")) {
          rs.next();
          all.append(t).append('=').append(rs.getString(1)).append('\n');
        }
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT md5(?)")) {
        ps.setString(1, all.toString());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getString(1);
        }
      }
    }
  }
}
