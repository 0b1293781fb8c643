package dev.sqlagent.demo;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.db.AdvisoryLock;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.RoleProofs;
import dev.sqlagent.db.SqlScript;
import dev.sqlagent.db.Target;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo shop: builds it and its read-only agent role in the embedded server, or (only on an explicit
 * {@code sql-agent demo --into URL}) its tables and data in a database that has none of them. This class and
 * the demo's notes file are the only places that know the shop's table names. Blocking JDBC: it runs from
 * the command line or before the service's event loops exist.
 *
 * <p>Rebuilding the embedded demo gives the same database row for row: the shop tables are dropped and
 * re-created in one transaction (a failure leaves the old data). Nothing here ever runs against a target
 * the service did not build: {@link #buildInto} refuses when any shop table name already exists.
 */
public final class DemoShop {

  private static final Logger LOG = LoggerFactory.getLogger(DemoShop.class);

  /** The shop's tables in dependency order: the contract of shop-schema.md. */
  public static final List<String> SHOP_TABLES = List.of(
      "categories", "suppliers", "employees", "customers", "products", "tbl_prod_master_old",
      "purchase_orders", "po_lines", "stock_entries", "bills", "bill_items", "bill_archive", "payments",
      "stock_adjustments", "store_settings");

  /** The demo database's name on the embedded server. */
  public static final String DATABASE = "shop";
  /** The demo's notes file on the classpath. */
  public static final String NOTES_RESOURCE = "/demo/shop-notes.yaml";

  /** The demo could not be built, or its role could do what it must not. */
  public static final class SetupException extends RuntimeException {
    public SetupException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final PgUrl admin;
  private final String roPassword;

  /**
   * @param admin the embedded server's superuser, on the demo database
   * @param roPassword the demo agent role's password
   */
  public DemoShop(PgUrl admin, String roPassword) {
    this.admin = admin;
    this.roPassword = roPassword;
  }

  /** The demo as the agent reaches it. */
  public Target target() {
    return new Target(admin.withUser(Target.DEMO_ROLE, roPassword), true, false, NOTES_RESOURCE);
  }

  /** The whole setup: database, schema, data, role, then the proofs. */
  public List<String> run() {
    long t0 = System.nanoTime();
    ensureDatabase();
    locked(admin, () -> {
      rebuild();
      grantRole();
    });
    List<String> proofs = prove();
    LOG.info("demo setup of {} done in {} ms; {} role proofs passed", admin, (System.nanoTime() - t0) / 1_000_000,
        proofs.size());
    return proofs;
  }

  /** The agent role can log in and sees the shop: the demo has been built with the stored password. */
  public boolean isSetUp() {
    try (Connection c = target().roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'bills'")) {
      return rs.next() && rs.getInt(1) == 1;
    } catch (SQLException e) {
      return false;
    }
  }

  /** Creates the database if it does not exist yet (one node at a time: see {@link AdvisoryLock}). */
  public void ensureDatabase() {
    try {
      if (AdvisoryLock.createDatabaseIfMissing(admin, "sql-agent-demo")) LOG.info("created database {}", admin.database());
    } catch (SQLException e) {
      throw new SetupException("cannot create database " + admin.database() + " on " + admin + ": " + e.getMessage(), e);
    }
  }

  /** Drops and re-creates the shop tables with their data, in one transaction. The embedded demo only. */
  public void rebuild() {
    build(admin, true);
  }

  /**
   * Builds the shop's tables and data in the database of {@code url}, which must have none of them: refuses,
   * naming them, if any shop table name already exists in any schema. Creates no role: the user makes a
   * read-only one with {@code sql-agent grant}.
   */
  public static void buildInto(PgUrl url) {
    // Two builds at once into one database: the second waits, then finds the first one's tables and refuses.
    locked(url, () -> buildIntoNow(url));
  }

  private static void buildIntoNow(PgUrl url) {
    try (Connection c = url.connect("sql-agent-demo"); PreparedStatement ps = c.prepareStatement(
        "SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE c.relname = ANY(?) AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' ORDER BY 1")) {
      ps.setArray(1, c.createArrayOf("text", SHOP_TABLES.toArray()));
      List<String> clashes = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) clashes.add(rs.getString(1));
      }
      if (!clashes.isEmpty()) {
        throw new SetupException("refusing to build the demo in " + url + ": it already has "
            + String.join(", ", clashes) + " (the demo never replaces a table; use an empty database)", null);
      }
    } catch (SQLException e) {
      throw new SetupException("cannot read " + url + ": " + e.getMessage(), e);
    }
    build(url, false);
  }

  /** Runs {@code build} holding the demo's advisory lock in the database of {@code url}. */
  private static void locked(PgUrl url, Runnable build) {
    try {
      AdvisoryLock.holding(url, AdvisoryLock.DEMO, "demo build", () -> {
        build.run();
        return null;
      });
    } catch (SQLException e) {
      throw new SetupException("cannot build the demo in " + url + ": " + e.getMessage(), e);
    }
  }

  private static void build(PgUrl url, boolean dropFirst) {
    try (Connection c = url.connect("sql-agent-demo")) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        if (dropFirst) {
          List<String> reversed = new ArrayList<>(SHOP_TABLES);
          Collections.reverse(reversed);
          for (String t : reversed) s.execute("DROP TABLE IF EXISTS public." + t + " CASCADE");
        }
        for (String stmt : SqlScript.load("schema.sql", Map.of())) s.execute(stmt);
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
    String marks = String.join(", ", Collections.nCopies(t.columns().size(), "?"));
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
    List<String[]> serials = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("""
             SELECT a.attrelid::regclass::text, a.attname
             FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid JOIN pg_namespace n ON n.oid = k.relnamespace
             WHERE n.nspname = 'public' AND k.relname = ANY(?) AND a.attnum > 0 AND NOT a.attisdropped
               AND pg_get_serial_sequence(a.attrelid::regclass::text, a.attname) IS NOT NULL""")) {
      ps.setArray(1, c.createArrayOf("text", SHOP_TABLES.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) serials.add(new String[] {rs.getString(1), rs.getString(2)});
      }
    }
    for (String[] sc : serials) {
      try (Statement u = c.createStatement()) {
        u.execute("SELECT setval(pg_get_serial_sequence('" + sc[0] + "', '" + sc[1] + "'), "
            + "COALESCE((SELECT max(" + sc[1] + ") FROM " + sc[0] + "), 0) + 1, false)");
      }
    }
  }

  /** Creates or updates the demo's agent role with its stored password and exact grants. */
  public void grantRole() {
    Map<String, String> values = Map.of("db", admin.database(), "ro_password", Identifiers.literal(roPassword));
    try (Connection c = admin.connect("sql-agent-demo"); Statement s = c.createStatement()) {
      for (String stmt : SqlScript.load("roles.sql", values)) s.execute(stmt);
    } catch (SQLException e) {
      throw new SetupException("cannot create the demo's agent role: " + e.getMessage(), e);
    }
  }

  /**
   * Attempts, as the demo's agent role, what it must not do, in the demo's own database. Every attempt runs
   * in its own transaction, rolled back whatever happens. Returns the proofs; throws naming the first
   * statement that got through.
   */
  public List<String> prove() {
    List<String> proofs = new ArrayList<>();
    String role = Target.DEMO_ROLE;
    RoleProofs proof = new RoleProofs(role, SetupException::new);
    try (Connection ro = target().roConnection()) {
      // Under the role's defaults: the read-only transaction refuses a write by itself.
      proofs.add(proof.mustFail(ro, false, "INSERT INTO store_settings VALUES ('x', 'y')", "25006"));
      // With READ WRITE asked for explicitly, the privileges alone must refuse.
      for (String sql : List.of(
          "INSERT INTO store_settings VALUES ('x', 'y')",
          "UPDATE bills SET total_amt = 0",
          "DELETE FROM bill_items",
          "TRUNCATE payments",
          "CREATE TABLE sql_agent_probe (a int)",
          "CREATE TEMP TABLE sql_agent_probe (a int)",
          "SELECT setval('bills_bill_id_seq', 1)",
          "SELECT pg_advisory_lock(1)")) {
        proofs.add(proof.mustFail(ro, true, sql, null));
      }
    } catch (SQLException e) {
      throw new SetupException("cannot connect as " + role + ": " + e.getMessage(), e);
    }
    return proofs;
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
