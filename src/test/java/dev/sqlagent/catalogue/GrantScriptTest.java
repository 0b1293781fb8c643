package dev.sqlagent.catalogue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The grant script against a real, non-demo database: idempotent, adds only a role, follows new tables. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrantScriptTest {

  private TargetDatabase db;

  @BeforeAll
  void createDatabase() throws Exception {
    db = TargetDatabase.create();
  }

  @AfterAll
  void dropDatabase() throws Exception {
    if (db != null) db.close();
  }

  /** Every object of the database (relations, columns, schemas, functions, types) and an md5 of every table's rows; no ACLs. */
  private String fingerprint() throws SQLException {
    StringBuilder b = new StringBuilder();
    List<String> tables = new ArrayList<>();
    try (Connection c = db.admin(); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("""
          SELECT line FROM (
            SELECT 'class ' || c.oid::regclass::text || ' ' || c.relkind::text || ' ' || pg_get_userbyid(c.relowner) AS line FROM pg_class c
            UNION ALL SELECT 'attribute ' || a.attrelid::regclass::text || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
              FROM pg_attribute a WHERE a.attnum > 0 AND NOT a.attisdropped
            UNION ALL SELECT 'namespace ' || nspname || ' ' || pg_get_userbyid(nspowner) FROM pg_namespace
            UNION ALL SELECT 'proc ' || p.oid::regprocedure::text || ' ' || md5(coalesce(p.prosrc, '')) FROM pg_proc p
            UNION ALL SELECT 'type ' || t.oid::regtype::text FROM pg_type t
            UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger
            UNION ALL SELECT 'policy ' || polname FROM pg_policy) x
          ORDER BY line""")) {
        while (rs.next()) b.append(rs.getString(1)).append('\n');
      }
      try (ResultSet rs = s.executeQuery("SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c "
          + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'm') AND " + ReadOnlyProof.USER_SCHEMA
          + " ORDER BY 1")) {
        while (rs.next()) tables.add(rs.getString(1));
      }
      for (String t : tables) {
        try (ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM " + t + " x")) {
          rs.next();
          b.append("rows ").append(t).append(' ').append(rs.getLong(1)).append(' ').append(rs.getString(2)).append('\n');
        }
      }
    }
    assertThat(tables).hasSizeGreaterThanOrEqualTo(4);
    return b.toString();
  }

  private Set<String> roles() throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Connection c = db.admin(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT rolname FROM pg_roles")) {
      while (rs.next()) out.add(rs.getString(1));
    }
    return out;
  }

  @Test
  void appliedTwiceIsIdempotentAndAddsOnlyARole() throws Exception {
    String before = fingerprint();
    Set<String> rolesBefore = roles();
    String role = db.roleName("twice");
    GrantScript first;
    try (Connection c = db.admin()) {
      first = GrantScript.build(c, role, null, null);
      first.apply(c);
      first.apply(c); // the same script again
      GrantScript.build(c, role, null, "second-Pw").apply(c); // the role exists: new password, same grants
    }
    assertThat(fingerprint()).isEqualTo(before);
    Set<String> added = roles();
    added.removeAll(rolesBefore);
    assertThat(added).containsExactly(role);
    assertThat(db.scalar("SELECT count(*) FROM pg_roles WHERE rolname = '" + role + "'")).isEqualTo("1");
    // only ACLs changed: SELECT for the role on the tables
    assertThat(db.scalar("SELECT relacl::text FROM pg_class WHERE oid = 'sales.\"Orders\"'::regclass")).contains(role + "=r/");
    assertThat(db.scalar("SELECT rolconfig::text FROM pg_roles WHERE rolname = '" + role + "'"))
        .contains("default_transaction_read_only=on").contains("statement_timeout=5s").contains("lock_timeout=1s")
        .contains("idle_in_transaction_session_timeout=10s");
    assertThat(db.scalar("SELECT concat_ws(',', rolcanlogin, rolinherit, rolconnlimit, rolsuper, rolcreatedb, rolcreaterole, "
        + "rolreplication, rolbypassrls) FROM pg_roles WHERE rolname = '" + role + "'"))
        .isEqualTo("t,f,20,f,f,f,f,f");
    assertThat(db.scalar("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = '" + role + "'")).isEqualTo("t");
    // the last password is the one that works, and the role is read-only
    assertThat(db.prove(role, "second-Pw", null).readOnly()).isTrue();
    assertThatThrownBy(() -> db.connect(role, first.password()).close()).isInstanceOf(SQLException.class);
  }

  @Test
  void anExistingRoleIsBroughtBackToTheReadOnlyAttributes() throws Exception {
    String role = db.createRole("existing", "LOGIN CREATEDB CREATEROLE INHERIT BYPASSRLS CONNECTION LIMIT 3 PASSWORD 'old'");
    try (Connection c = db.admin()) {
      GrantScript.build(c, role, List.of("sales"), "new-Pw").apply(c);
    }
    assertThat(db.scalar("SELECT concat_ws(',', rolinherit, rolconnlimit, rolcreatedb, rolcreaterole, rolbypassrls) "
        + "FROM pg_roles WHERE rolname = '" + role + "'")).isEqualTo("f,20,f,f,f");
    assertThat(db.prove(role, "new-Pw", List.of("sales")).readOnly()).isTrue();
  }

  @Test
  void theNewRoleReadsTablesTheSchemaOwnerCreatesAfterTheGrant() throws Exception {
    String role = db.grantedRole("later", null, "later-Pw");
    db.exec("SET ROLE " + db.owner,
        "CREATE TABLE sales.later_" + db.suffix + " (x int)", "INSERT INTO sales.later_" + db.suffix + " VALUES (7)",
        "CREATE VIEW \"Sales\".\"Later View " + db.suffix + "\" AS SELECT 8 AS y", "RESET ROLE");
    try (Connection c = db.connect(role, "later-Pw"); Statement s = c.createStatement()) {
      ResultSet rs = s.executeQuery("SELECT x FROM sales.later_" + db.suffix);
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(7);
      rs = s.executeQuery("SELECT y FROM \"Sales\".\"Later View " + db.suffix + "\"");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(8);
    } finally {
      db.exec("DROP TABLE sales.later_" + db.suffix, "DROP VIEW \"Sales\".\"Later View " + db.suffix + "\"");
    }
  }

  @Test
  void theScriptQuotesNamesAndEndsWithTheOptionalRevokes() throws Exception {
    String role = db.roleName("Text Role");
    GrantScript script;
    try (Connection c = db.admin()) {
      script = GrantScript.build(c, role, List.of("Sales", "sales"), "it's-a\\pw");
    }
    assertThat(script.schemas()).containsExactly("Sales", "sales");
    assertThat(script.database()).isEqualTo(db.name);
    List<String> st = script.statements();
    assertThat(st.get(0)).isEqualTo("SET password_encryption = 'scram-sha-256'");
    assertThat(st.get(1)).contains("CREATE ROLE \"" + role + "\" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT "
        + "NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 20 PASSWORD E'it''s-a\\\\pw'");
    assertThat(st).contains("GRANT USAGE ON SCHEMA \"Sales\" TO \"" + role + "\"",
        "GRANT SELECT ON ALL TABLES IN SCHEMA \"Sales\" TO \"" + role + "\"",
        "ALTER DEFAULT PRIVILEGES FOR ROLE " + db.owner + " IN SCHEMA \"Sales\" GRANT SELECT ON TABLES TO \"" + role + "\"",
        "GRANT USAGE ON SCHEMA sales TO \"" + role + "\"",
        "GRANT CONNECT ON DATABASE " + db.name + " TO \"" + role + "\"");
    assertThat(st).noneMatch(s -> s.matches("(?is).*\\b(CREATE|ALTER|DROP)\\s+(TABLE|SCHEMA|VIEW|FUNCTION|TYPE|INDEX)\\b.*"));
    assertThat(st).noneMatch(s -> s.toUpperCase().contains("REVOKE"));
    String text = script.text();
    assertThat(text.strip()).endsWith("-- REVOKE TEMPORARY ON DATABASE " + db.name + " FROM PUBLIC;\n"
        + "-- REVOKE CREATE ON SCHEMA public FROM PUBLIC;");
    assertThat(text).doesNotContain("\nREVOKE");
    // the rendered text is itself a runnable script, and the role it makes works with the quoted password
    try (Connection c = db.admin(); Statement s = c.createStatement()) {
      s.execute(text);
    }
    assertThat(db.prove(role, "it's-a\\pw", List.of("Sales", "sales")).readOnly()).isTrue();
  }

  @Test
  void anUnknownSchemaIsRefusedWithTheNamesThereAre() throws Exception {
    try (Connection c = db.admin()) {
      assertThatThrownBy(() -> GrantScript.build(c, db.roleName("nope"), List.of("SALES"), null))
          .isInstanceOf(GrantScript.UnknownSchemaException.class)
          .hasMessageContaining("no schema named 'SALES'").hasMessageContaining("\"Sales\", other, public, sales");
      assertThatThrownBy(() -> GrantScript.build(c, db.roleName("nope2"), List.of("pg_catalog"), null))
          .isInstanceOf(GrantScript.UnknownSchemaException.class);
    }
  }
}
