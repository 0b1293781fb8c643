package dev.sqlagent.testing;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Credentials;
import dev.sqlagent.db.EmbeddedDatabase;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.state.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * One real PostgreSQL for the whole test run, set up once as the service sets up its embedded server: the
 * demo shop with its read-only agent role (the target) and the state store beside it. Testcontainers'
 * PostgreSQL when a Docker engine answers, otherwise the embedded PostgreSQL the service itself uses. Never
 * mocked, never skipped.
 */
public final class TestDatabase {

  /**
   * A table in the demo database the agent role may not read (in a schema it may not use, so re-running the
   * demo's grants on public leaves it so): what "hidden" means to the gate and discovery.
   */
  public static final String HIDDEN_TABLE = "staff.payroll";

  private static TestDatabase instance;

  private final PgUrl admin;
  private final Target target;
  private final StateStore state;
  private final Path home;
  private final String kind;
  private final EmbeddedDatabase embedded;

  private TestDatabase(PgUrl admin, Target target, StateStore state, Path home, String kind, EmbeddedDatabase embedded) {
    this.admin = admin;
    this.target = target;
    this.state = state;
    this.home = home;
    this.kind = kind;
    this.embedded = embedded;
  }

  /** The shared, set-up database (started on first use, stopped when the JVM exits). */
  public static synchronized TestDatabase get() {
    if (instance == null) {
      try {
        instance = start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start the test PostgreSQL: " + e.getMessage(), e);
      }
    }
    return instance;
  }

  private static Path binaries;

  /**
   * Where every embedded server of this JVM runs its PostgreSQL binaries from. zonky unpacks them once per JVM and
   * hands the first directory to every later server, whatever directory that server names: a test that deleted the
   * directory it named took the binaries of servers still running (their next backend could not load plpgsql).
   * One directory, kept for the JVM's life, is what zonky does anyway, said out loud.
   */
  public static synchronized Path binaries() throws IOException {
    if (binaries == null) binaries = Files.createTempDirectory("sql-agent-pgbin");
    return binaries;
  }

  private static TestDatabase start() throws IOException {
    Path home = Files.createTempDirectory("sql-agent-test");
    Credentials credentials = new Credentials(home);
    PgUrl admin;
    String kind;
    EmbeddedDatabase embedded = null;
    if (dockerAvailable()) {
      PostgreSQLContainer<?> pg = new PostgreSQLContainer<>("postgres:17-alpine");
      pg.start();
      Runtime.getRuntime().addShutdownHook(new Thread(pg::stop));
      admin = new PgUrl(pg.getHost(), pg.getFirstMappedPort(), pg.getUsername(), pg.getPassword(), "postgres");
      kind = "testcontainers";
    } else {
      embedded = EmbeddedDatabase.start(home.resolve("pgdata"), binaries(), credentials.embeddedAdminPassword());
      admin = embedded.adminUrl();
      kind = "embedded";
    }
    Credentials.RolePasswords roles = credentials.rolesOrCreate(admin.serverKey());
    DemoShop demo = new DemoShop(admin.withDatabase(DemoShop.DATABASE), roles.ro());
    demo.run();
    try (Connection c = admin.withDatabase(DemoShop.DATABASE).connect("sql-agent-test"); var s = c.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS staff");
      s.execute("CREATE TABLE IF NOT EXISTS " + HIDDEN_TABLE + " (emp_id int, monthly numeric(10,2))");
    } catch (SQLException e) {
      throw new IOException("cannot add the hidden table: " + e.getMessage(), e);
    }
    StateStore state = new StateStore(admin.withDatabase(StateStore.EMBEDDED_DATABASE), roles.log());
    state.migrate();
    System.err.println("test database: " + kind + " " + admin);
    return new TestDatabase(admin, demo.target(), state, home, kind, embedded);
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  /** The demo shop as the agent reaches it. */
  public Target target() {
    return target;
  }

  public StateStore state() {
    return state;
  }

  /** The server's superuser, on the maintenance database. */
  public PgUrl adminUrl() {
    return admin;
  }

  /** A superuser connection to {@code database} (tests build and inspect their own databases with it). */
  public Connection adminConnection(String database) throws SQLException {
    return admin.withDatabase(database).connect("sql-agent-test");
  }

  /** A superuser connection to the demo shop. */
  public Connection shopAdmin() throws SQLException {
    return adminConnection(DemoShop.DATABASE);
  }

  public Path home() {
    return home;
  }

  public String kind() {
    return kind;
  }

  /** The embedded server (null under Testcontainers), for tests that stop and start the database. */
  public EmbeddedDatabase embedded() {
    return embedded;
  }

  /** Environment for an {@link AppConfig} whose target is the demo (as its agent role) and state store this one's. */
  public Map<String, String> env(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>();
    env.put("SQLAGENT_DB_URL", target.url().withSecret());
    env.put("SQLAGENT_STATE_URL", state.owner().withSecret());
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_HTTP_PORT", "0");
    env.putAll(overrides);
    return env;
  }

  public AppConfig config(Map<String, String> overrides) {
    return AppConfig.load(env(overrides));
  }
}
