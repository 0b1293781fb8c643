package dev.sqlagent.catalogue;

import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

/**
 * A user's database that is not the demo: its own database on the test server ({@code proof_<random>}),
 * schemas {@code sales}, mixed-case {@code "Sales"} and {@code other} owned by a schema-owner role, a
 * table, a view, a partitioned table, a materialized view, an enum and a function. Roles are cluster-wide:
 * every role made here has a unique name and is dropped, with the database, on close.
 */
final class TargetDatabase implements AutoCloseable {

  final String name;
  final String owner;
  final String suffix;
  private final List<String> roles = new ArrayList<>();

  private TargetDatabase(String suffix) {
    this.suffix = suffix;
    this.name = "proof_" + suffix;
    this.owner = "proof_schemas_" + suffix;
  }

  static TargetDatabase create() throws SQLException {
    TargetDatabase t = new TargetDatabase(UUID.randomUUID().toString().replace("-", "").substring(0, 10));
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + t.name);
      s.execute("CREATE ROLE " + t.owner + " NOLOGIN");
    }
    t.roles.add(t.owner);
    try (Connection c = t.admin(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA sales AUTHORIZATION " + t.owner);
      s.execute("CREATE SCHEMA \"Sales\" AUTHORIZATION " + t.owner);
      s.execute("CREATE SCHEMA other AUTHORIZATION " + t.owner);
      s.execute("SET ROLE " + t.owner);
      s.execute("CREATE TABLE sales.\"Orders\" (id int PRIMARY KEY, amount numeric NOT NULL, region text)");
      s.execute("INSERT INTO sales.\"Orders\" SELECT g, g * 10, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END "
          + "FROM generate_series(1, 20) g");
      s.execute("CREATE VIEW sales.big_orders AS SELECT * FROM sales.\"Orders\" WHERE amount > 100");
      s.execute("CREATE TABLE sales.events (id int, at date NOT NULL) PARTITION BY RANGE (at)");
      s.execute("CREATE TABLE sales.events_2025 PARTITION OF sales.events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')");
      s.execute("INSERT INTO sales.events VALUES (1, '2025-03-01'), (2, '2025-07-14')");
      s.execute("CREATE TYPE sales.mood AS ENUM ('ok', 'bad')");
      s.execute("CREATE TABLE \"Sales\".\"Line Items\" (id int, \"orderId\" int, mood sales.mood)");
      s.execute("INSERT INTO \"Sales\".\"Line Items\" VALUES (1, 1, 'ok'), (2, 1, 'bad')");
      s.execute("CREATE TABLE other.audit (id int, note text)");
      s.execute("INSERT INTO other.audit VALUES (1, 'created')");
      s.execute("CREATE MATERIALIZED VIEW other.audit_count AS SELECT count(*) AS n FROM other.audit");
      s.execute("CREATE FUNCTION sales.double_it(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2'");
      s.execute("RESET ROLE");
    }
    return t;
  }

  /** Superuser connection to this database. */
  Connection admin() throws SQLException {
    return TestDatabase.get().adminConnection(name);
  }

  /** A unique role name with this tag, dropped on close (whether or not the test creates it). */
  String roleName(String tag) {
    String r = "proof_" + tag + "_" + suffix;
    roles.add(r);
    return r;
  }

  /** A plain role (created here), dropped on close. */
  String createRole(String tag, String attributes) throws SQLException {
    String r = roleName(tag);
    exec("CREATE ROLE " + r + " " + attributes);
    return r;
  }

  /** A role made by {@link GrantScript} alone, with the given password, for the given schemas (null: all). */
  String grantedRole(String tag, List<String> schemas, String password) throws SQLException {
    String r = roleName(tag);
    try (Connection c = admin()) {
      GrantScript.build(c, r, schemas, password).apply(c);
    }
    return r;
  }

  Connection connect(String role, String password) throws SQLException {
    PgUrl a = TestDatabase.get().adminUrl();
    Properties p = new Properties();
    p.setProperty("user", role);
    p.setProperty("password", password);
    return DriverManager.getConnection("jdbc:postgresql://" + a.host() + ":" + a.port() + "/" + name, p);
  }

  ReadOnlyProof.Report prove(String role, String password, List<String> schemas) throws SQLException {
    try (Connection c = connect(role, password)) {
      return ReadOnlyProof.check(c, schemas);
    }
  }

  void exec(String... sql) throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement()) {
      for (String q : sql) s.execute(q);
    }
  }

  String scalar(String sql) throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** The SQLAGENT_DB_URL of the admin, pointed at this database. */
  String adminDbUrl() {
    PgUrl a = TestDatabase.get().adminUrl();
    return "postgresql://" + a.user() + ":" + a.password() + "@" + a.host() + ":" + a.port() + "/" + name;
  }

  @Override
  public void close() throws SQLException {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      SQLException first = null;
      for (int i = roles.size() - 1; i >= 0; i--) {
        try {
          s.execute("DROP ROLE IF EXISTS \"" + roles.get(i).replace("\"", "\"\"") + "\"");
        } catch (SQLException e) {
          if (first == null) first = e;
        }
      }
      if (first != null) throw first;
    }
  }
}
