package dev.sqlagent.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.cli.GrantCommand;
import dev.sqlagent.cli.Main;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

/** {@code sql-agent grant} through picocli's Main: the printed script, --apply with its proofs and URL, exit codes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrantCommandTest {

  private TargetDatabase db;

  @BeforeAll
  void createDatabase() throws Exception {
    db = TargetDatabase.create();
  }

  @AfterAll
  void dropDatabase() throws Exception {
    if (db != null) db.close();
  }

  private record Run(int exit, String out, String err) {
    String all() {
      return out + err;
    }
  }

  private Run run(Supplier<AppConfig> config, String... args) {
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == GrantCommand.class) return cls.cast(new GrantCommand(config));
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    Run r = new Run(exit, out.toString(), err.toString());
    assertThat(r.all()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
    return r;
  }

  private Run grant(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "grant";
    System.arraycopy(args, 0, all, 1, args.length);
    return run(() -> TestDatabase.get().config(Map.of("SQLAGENT_DB_URL", db.adminDbUrl())), all);
  }

  private boolean roleExists(String role) throws SQLException {
    return "1".equals(db.scalar("SELECT count(*) FROM pg_roles WHERE rolname = '" + role + "'"));
  }

  @Test
  void withoutApplyItPrintsTheScriptAndChangesNothing() throws Exception {
    String role = db.roleName("printed");
    Run r = grant("--role", role);
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.out()).contains("SET password_encryption = 'scram-sha-256';")
        .contains("CREATE ROLE " + role + " LOGIN NOSUPERUSER")
        .contains("GRANT USAGE ON SCHEMA \"Sales\" TO " + role + ";")
        .contains("GRANT SELECT ON ALL TABLES IN SCHEMA other TO " + role + ";")
        .contains("-- REVOKE TEMPORARY ON DATABASE " + db.name + " FROM PUBLIC;")
        .contains("-- REVOKE CREATE ON SCHEMA public FROM PUBLIC;")
        .contains("-- SQLAGENT_DB_URL=postgresql://" + role + ":");
    assertThat(roleExists(role)).isFalse();
  }

  @Test
  void applyCreatesTheRoleProvesItAndPrintsAUrlThatWorks() throws Exception {
    String role = db.roleName("applied");
    Run r = grant("--apply", "--role", role, "--schemas", "sales,Sales");
    assertThat(r.exit()).as(r.all()).isZero();
    for (String proof : new String[] {"not_superuser", "no_createrole", "no_createdb", "no_bypassrls", "no_write_roles",
        "no_table_writes", "owns_nothing", "no_create", "read_only_transaction"}) {
      assertThat(r.out()).contains("ok     " + proof + ": ");
    }
    assertThat(r.out()).contains("warning: PUBLIC may create temporary tables");
    String line = Arrays.stream(r.out().split("\n")).filter(l -> l.startsWith("SQLAGENT_DB_URL=")).findFirst().orElseThrow();
    PgUrl url = PgUrl.parse(line.substring("SQLAGENT_DB_URL=".length()));
    assertThat(url.user()).isEqualTo(role);
    assertThat(url.database()).isEqualTo(db.name);
    Properties p = new Properties();
    p.setProperty("user", url.user());
    p.setProperty("password", url.password());
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + url.host() + ":" + url.port() + "/" + url.database(), p);
         Statement s = c.createStatement()) {
      ResultSet rs = s.executeQuery("SELECT count(*) FROM sales.\"Orders\"");
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(20);
      try {
        s.execute("DELETE FROM sales.\"Orders\"");
        throw new AssertionError("the new role deleted rows");
      } catch (SQLException e) {
        assertThat(e.getSQLState()).isEqualTo("25006");
      }
      try {
        s.executeQuery("SELECT count(*) FROM other.audit");
        throw new AssertionError("other was not in --schemas");
      } catch (SQLException e) {
        assertThat(e.getSQLState()).isEqualTo("42501");
      }
    }
    // applying again is fine: a new password, the same role
    Run again = grant("--apply", "--role", role, "--schemas", "sales,Sales");
    assertThat(again.exit()).as(again.all()).isZero();
    assertThat(again.out()).doesNotContain(line);
  }

  @Test
  void aRoleThatStaysWritableExitsOneNamingTheProofAndThePrivilege() throws Exception {
    String role = db.createRole("stillwritable", "LOGIN");
    db.exec("GRANT INSERT ON other.audit TO " + role);
    Run r = grant("--apply", "--role", role, "--schemas", "sales");
    assertThat(r.exit()).as(r.all()).isEqualTo(1);
    assertThat(r.out()).contains("FAILED no_table_writes: INSERT on other.audit (outside the schemas in scope)");
    assertThat(r.err()).contains("is NOT read-only").contains("no_table_writes").contains("INSERT on other.audit");
    assertThat(r.out()).doesNotContain("SQLAGENT_DB_URL=");
  }

  @Test
  void withoutAnAdminUrlItSaysWhatItNeeds() throws Exception {
    String home = java.nio.file.Files.createTempDirectory("grant-no-url").toString();
    Run r = run(() -> AppConfig.load(Map.of("SQLAGENT_HOME", home)), "grant");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("grant needs SQLAGENT_DB_URL pointing at an admin");
  }

  @Test
  void anUnknownSchemaOrAWrongPasswordIsOneLineNotAStackTrace() throws Exception {
    Run unknown = grant("--schemas", "nowhere");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err().strip()).startsWith("sql-agent grant: ").contains("no schema named 'nowhere'").doesNotContain("\n");

    PgUrl a = TestDatabase.get().adminUrl();
    String wrong = "postgresql://" + a.user() + ":wrong-password@" + a.host() + ":" + a.port() + "/" + db.name;
    Run denied = run(() -> TestDatabase.get().config(Map.of("SQLAGENT_DB_URL", wrong)), "grant", "--apply");
    assertThat(denied.exit()).isEqualTo(2);
    assertThat(denied.err()).startsWith("sql-agent grant: cannot connect to ").contains("as admin " + a.user());
  }
}
