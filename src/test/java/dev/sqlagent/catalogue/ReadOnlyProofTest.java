package dev.sqlagent.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.ReadOnlyProof.Proof;
import dev.sqlagent.catalogue.ReadOnlyProof.Report;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The read-only proof against a real, non-demo database: a role made by {@code grant} alone passes every
 * proof; each way of being writable in DESIGN.md's rule fails the proof it belongs to, naming the privilege.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadOnlyProofTest {

  private static final String PW = "proof-Pw-1";
  private static final List<String> ALL = List.of(ReadOnlyProof.NOT_SUPERUSER, ReadOnlyProof.NO_CREATEROLE,
      ReadOnlyProof.NO_CREATEDB, ReadOnlyProof.NO_BYPASSRLS, ReadOnlyProof.NO_WRITE_ROLES, ReadOnlyProof.NO_TABLE_WRITES,
      ReadOnlyProof.OWNS_NOTHING, ReadOnlyProof.NO_CREATE, ReadOnlyProof.NO_ESCAPE_FUNCTIONS, ReadOnlyProof.READ_ONLY_TRANSACTION);

  private TargetDatabase db;

  @BeforeAll
  void createDatabase() throws Exception {
    db = TargetDatabase.create();
  }

  @AfterAll
  void dropDatabase() throws Exception {
    if (db != null) db.close();
  }

  private static Proof proof(Report r, String name) {
    return r.proofs().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  /** The named proof fails, naming what was found, and the refusal carries the first failure and the ways out. */
  private static void assertFails(Report r, String name, String detailContains) {
    assertThat(r.readOnly()).as(r.toJson().encodePrettily()).isFalse();
    Proof p = proof(r, name);
    assertThat(p.ok()).as(r.toJson().encodePrettily()).isFalse();
    assertThat(p.detail()).contains(detailContains);
    String refusal = r.refusal().orElseThrow();
    assertThat(refusal).contains("\"" + r.role() + "\"").contains(r.firstFailure().orElseThrow().detail())
        .contains("connect as a read-only role").contains("sql-agent grant [--schemas a,b]").contains("--apply")
        .contains("SQLAGENT_ALLOW_WRITABLE_ROLE=true");
  }

  @Test
  void aRoleMadeByGrantAloneIsReadOnlyAndEveryProofIsNamed() throws Exception {
    String role = db.grantedRole("fresh", null, PW);
    Report r = db.prove(role, PW, null);
    assertThat(r.role()).isEqualTo(role);
    assertThat(r.proofs()).extracting(Proof::name).containsExactlyElementsOf(ALL);
    assertThat(r.readOnly()).as(r.toJson().encodePrettily()).isTrue();
    assertThat(r.firstFailure()).isEmpty();
    assertThat(r.refusal()).isEmpty();
    assertThat(proof(r, ReadOnlyProof.NO_WRITE_ROLES).detail()).contains("pg_write_all_data")
        .contains("pg_write_server_files").contains("pg_execute_server_program");
    JsonObject json = r.toJson();
    assertThat(json.getBoolean("read_only")).isTrue();
    assertThat(json.getJsonArray("proofs")).hasSize(ALL.size());
    assertThat(json.getJsonArray("proofs").getJsonObject(0).fieldNames()).containsExactlyInAnyOrder("name", "ok", "detail");
    // it can read what grant gave it
    try (Connection c = db.connect(role, PW); Statement s = c.createStatement()) {
      var rs = s.executeQuery("SELECT count(*) FROM sales.\"Orders\" JOIN \"Sales\".\"Line Items\" li ON li.\"orderId\" = \"Orders\".id");
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(2);
    }
  }

  @Test
  void publicDefaultsAreWarningsNotRefusals() throws Exception {
    String role = db.grantedRole("warned", null, PW);
    // PostgreSQL 15+ gives PUBLIC TEMPORARY on a new database, but no CREATE on schema public
    Report defaults = db.prove(role, PW, null);
    assertThat(defaults.readOnly()).isTrue();
    assertThat(defaults.warnings()).anySatisfy(w -> assertThat(w).contains("temporary tables")
        .contains("REVOKE TEMPORARY ON DATABASE " + db.name + " FROM PUBLIC;"));
    assertThat(defaults.warnings()).noneSatisfy(w -> assertThat(w).contains("SCHEMA public"));

    db.exec("GRANT CREATE ON SCHEMA public TO PUBLIC");
    try {
      Report old = db.prove(role, PW, null);
      assertThat(old.readOnly()).as(old.toJson().encodePrettily()).isTrue();
      assertThat(old.warnings()).anySatisfy(w -> assertThat(w).contains("REVOKE TEMPORARY ON DATABASE " + db.name + " FROM PUBLIC;"));
      assertThat(old.warnings()).anySatisfy(w -> assertThat(w).contains("REVOKE CREATE ON SCHEMA public FROM PUBLIC;"));
      assertThat(old.toJson().getJsonArray("warnings")).hasSize(old.warnings().size());

      db.exec("REVOKE CREATE ON SCHEMA public FROM PUBLIC", "REVOKE TEMPORARY ON DATABASE " + db.name + " FROM PUBLIC");
      assertThat(db.prove(role, PW, null).warnings()).isEmpty();
    } finally {
      db.exec("REVOKE CREATE ON SCHEMA public FROM PUBLIC", "GRANT TEMPORARY ON DATABASE " + db.name + " TO PUBLIC");
    }
  }

  @Test
  void theReadOnlyTransactionRefusesWithSqlstate25006AndLeavesNothingOpen() throws Exception {
    String role = db.grantedRole("rotx", null, PW);
    try (Connection c = db.connect(role, PW)) {
      c.setAutoCommit(false);
      Report r = ReadOnlyProof.check(c, null);
      Proof p = proof(r, ReadOnlyProof.READ_ONLY_TRANSACTION);
      assertThat(p.ok()).isTrue();
      assertThat(p.detail()).contains("25006").contains("CREATE TEMP TABLE");
      assertThat(c.getAutoCommit()).isFalse();
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        var rs = s.executeQuery("SELECT count(*) FROM pg_class WHERE relname = 'sql_agent_probe'");
        rs.next();
        assertThat(rs.getInt(1)).isZero();
        rs = s.executeQuery("SELECT current_setting('transaction_read_only')");
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("on"); // the role's default from grant, not left by the proof
      }
    }
    // the same 25006, seen directly under the same statement
    try (Connection c = db.connect(role, PW); Statement s = c.createStatement()) {
      s.execute("BEGIN READ ONLY");
      try {
        s.execute(ReadOnlyProof.PROBE);
        throw new AssertionError("the probe ran");
      } catch (java.sql.SQLException e) {
        assertThat(e.getSQLState()).isEqualTo("25006");
      } finally {
        s.execute("ROLLBACK");
      }
    }
  }

  @Test
  void superuser() throws Exception {
    String role = db.grantedRole("super", null, PW);
    db.exec("ALTER ROLE " + role + " SUPERUSER");
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NOT_SUPERUSER, "the role itself is a superuser");
    assertThat(r.firstFailure().orElseThrow().name()).isEqualTo(ReadOnlyProof.NOT_SUPERUSER);
  }

  @Test
  void createRole() throws Exception {
    String role = db.grantedRole("createrole", null, PW);
    db.exec("ALTER ROLE " + role + " CREATEROLE");
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NO_CREATEROLE, "the role itself has CREATEROLE");
    assertThat(r.proofs()).filteredOn(p -> !p.ok()).extracting(Proof::name).containsExactly(ReadOnlyProof.NO_CREATEROLE);
  }

  @Test
  void createDb() throws Exception {
    String role = db.grantedRole("createdb", null, PW);
    db.exec("ALTER ROLE " + role + " CREATEDB");
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NO_CREATEDB, "the role itself has CREATEDB");
    assertThat(r.proofs()).filteredOn(p -> !p.ok()).extracting(Proof::name).containsExactly(ReadOnlyProof.NO_CREATEDB);
  }

  @Test
  void memberOfPgWriteAllData() throws Exception {
    String role = db.grantedRole("writeall", null, PW);
    db.exec("GRANT pg_write_all_data TO " + role);
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NO_WRITE_ROLES, "member of pg_write_all_data");
    assertThat(r.firstFailure().orElseThrow().name()).isEqualTo(ReadOnlyProof.NO_WRITE_ROLES);
  }

  @Test
  void insertOnOneTable() throws Exception {
    String role = db.grantedRole("insert", null, PW);
    db.exec("GRANT INSERT ON sales.\"Orders\" TO " + role);
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NO_TABLE_WRITES, "INSERT on sales.\"Orders\"");
    assertThat(r.firstFailure().orElseThrow().detail()).isEqualTo("INSERT on sales.\"Orders\"");
    assertThat(r.proofs()).filteredOn(p -> !p.ok()).extracting(Proof::name).containsExactly(ReadOnlyProof.NO_TABLE_WRITES);
  }

  @Test
  void columnLevelUpdateCountsToo() throws Exception {
    String role = db.grantedRole("colupdate", null, PW);
    db.exec("GRANT UPDATE (note) ON other.audit TO " + role);
    assertFails(db.prove(role, PW, null), ReadOnlyProof.NO_TABLE_WRITES, "UPDATE on other.audit");
  }

  @Test
  void updateOnAView() throws Exception {
    String role = db.grantedRole("viewupd", null, PW);
    db.exec("GRANT UPDATE ON sales.big_orders TO " + role);
    assertFails(db.prove(role, PW, null), ReadOnlyProof.NO_TABLE_WRITES, "UPDATE on sales.big_orders");
  }

  @Test
  void truncateOnATableOutsideTheSchemasInScope() throws Exception {
    String role = db.grantedRole("truncate", List.of("sales"), PW);
    db.exec("GRANT TRUNCATE ON other.audit TO " + role);
    Report r = db.prove(role, PW, List.of("sales"));
    assertFails(r, ReadOnlyProof.NO_TABLE_WRITES, "TRUNCATE on other.audit (outside the schemas in scope)");
  }

  @Test
  void owningATable() throws Exception {
    String role = db.grantedRole("tableowner", null, PW);
    db.exec("CREATE TABLE other.owned_" + db.suffix + " (a int)", "ALTER TABLE other.owned_" + db.suffix + " OWNER TO " + role);
    try {
      Report r = db.prove(role, PW, null);
      assertFails(r, ReadOnlyProof.OWNS_NOTHING, "owns table other.owned_" + db.suffix);
      // even with its own privileges revoked, the owner can grant them back: ownership alone is refused
      db.exec("REVOKE ALL ON other.owned_" + db.suffix + " FROM " + role);
      Report revoked = db.prove(role, PW, null);
      assertThat(revoked.proofs()).filteredOn(p -> !p.ok()).extracting(Proof::name).containsExactly(ReadOnlyProof.OWNS_NOTHING);
      assertThat(revoked.firstFailure().orElseThrow().detail()).isEqualTo("owns table other.owned_" + db.suffix);
    } finally {
      db.exec("DROP TABLE other.owned_" + db.suffix);
    }
  }

  @Test
  void owningASchemaThroughMembership() throws Exception {
    String role = db.grantedRole("schemaowner", null, PW);
    db.exec("GRANT " + db.owner + " TO " + role);
    try {
      Report r = db.prove(role, PW, null);
      assertFails(r, ReadOnlyProof.OWNS_NOTHING, "owns schema \"Sales\" (owned by " + db.owner + ", a role it belongs to)");
    } finally {
      db.exec("REVOKE " + db.owner + " FROM " + role);
    }
  }

  @Test
  void createOnASchemaGrantedToTheRole() throws Exception {
    String role = db.grantedRole("schemacreate", null, PW);
    db.exec("GRANT CREATE ON SCHEMA \"Sales\" TO " + role);
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NO_CREATE, "CREATE on schema \"Sales\"");
    assertThat(r.proofs()).filteredOn(p -> !p.ok()).extracting(Proof::name).containsExactly(ReadOnlyProof.NO_CREATE);
  }

  @Test
  void createOnTheDatabase() throws Exception {
    String role = db.grantedRole("dbcreate", null, PW);
    db.exec("GRANT CREATE ON DATABASE " + db.name + " TO " + role);
    assertFails(db.prove(role, PW, null), ReadOnlyProof.NO_CREATE, "CREATE on database " + db.name);
  }

  @Test
  void temporaryOnTheDatabaseGrantedToTheRoleItself() throws Exception {
    String role = db.grantedRole("dbtemp", null, PW);
    db.exec("GRANT TEMPORARY ON DATABASE " + db.name + " TO " + role);
    assertFails(db.prove(role, PW, null), ReadOnlyProof.NO_CREATE, "TEMPORARY on database " + db.name);
  }

  @Test
  void membershipOfARoleThatHasInsert() throws Exception {
    String role = db.grantedRole("member", null, PW);
    String writer = db.createRole("writer", "NOLOGIN");
    String middle = db.createRole("middle", "NOLOGIN");
    db.exec("GRANT INSERT ON \"Sales\".\"Line Items\" TO " + writer, "GRANT " + writer + " TO " + middle,
        "GRANT " + middle + " TO " + role);
    Report r = db.prove(role, PW, null);
    assertFails(r, ReadOnlyProof.NO_TABLE_WRITES, "INSERT on \"Sales\".\"Line Items\" (through " + writer + ")");
  }

  @Test
  void theAdminItselfIsRefusedAsASuperuser() throws Exception {
    try (Connection c = db.admin()) {
      Report r = ReadOnlyProof.check(c, null);
      assertThat(r.readOnly()).isFalse();
      assertThat(r.firstFailure().orElseThrow().name()).isEqualTo(ReadOnlyProof.NOT_SUPERUSER);
      assertThat(proof(r, ReadOnlyProof.NO_TABLE_WRITES).detail()).contains("and").contains("more");
    }
  }

  @Test
  void schemasInScopeThatCannotBeUsedAreWarnedAbout() throws Exception {
    String role = db.grantedRole("scoped", List.of("sales"), PW);
    Report r = db.prove(role, PW, List.of("sales", "Sales", "nowhere"));
    assertThat(r.readOnly()).isTrue();
    assertThat(r.warnings()).contains("schema \"Sales\" is in scope but the role has no USAGE on it",
        "schema nowhere is in scope but does not exist");
  }
}
