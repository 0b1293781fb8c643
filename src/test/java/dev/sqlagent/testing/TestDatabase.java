package dev.sqlagent.testing;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.AdminUrl;
import dev.sqlagent.db.Credentials;
import dev.sqlagent.db.DbTarget;
import dev.sqlagent.db.EmbeddedDatabase;
import dev.sqlagent.db.Setup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * One real PostgreSQL for the whole test run, set up once: Testcontainers' PostgreSQL when a Docker engine
 * answers, otherwise the embedded PostgreSQL the service itself uses. Never mocked, never skipped.
 */
public final class TestDatabase {

  private static TestDatabase instance;

  private final DbTarget target;
  private final Path home;
  private final String kind;
  private final EmbeddedDatabase embedded;

  private TestDatabase(DbTarget target, Path home, String kind, EmbeddedDatabase embedded) {
    this.target = target;
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

  private static TestDatabase start() throws IOException {
    Path home = Files.createTempDirectory("sql-agent-test");
    Credentials credentials = new Credentials(home);
    AdminUrl admin;
    String kind;
    EmbeddedDatabase embedded = null;
    if (dockerAvailable()) {
      PostgreSQLContainer<?> pg = new PostgreSQLContainer<>("postgres:17-alpine");
      pg.start();
      Runtime.getRuntime().addShutdownHook(new Thread(pg::stop));
      admin = new AdminUrl(pg.getHost(), pg.getFirstMappedPort(), pg.getUsername(), pg.getPassword(),
          AdminUrl.DEFAULT_DATABASE);
      kind = "testcontainers";
    } else {
      embedded = EmbeddedDatabase.start(home.resolve("pgdata"), home.resolve("pgbin"), credentials.embeddedAdminPassword());
      admin = embedded.adminUrl();
      kind = "embedded";
    }
    DbTarget target = new DbTarget(admin, credentials.rolesOrCreate(admin.serverKey()));
    new Setup(target).run();
    System.err.println("test database: " + kind + " " + admin);
    return new TestDatabase(target, home, kind, embedded);
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  public DbTarget target() {
    return target;
  }

  public AdminUrl adminUrl() {
    return target.admin();
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

  /** Environment for an {@link AppConfig} that points at this database, with any overrides. */
  public Map<String, String> env(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>();
    AdminUrl a = target.admin();
    env.put("SQLAGENT_DB_URL", "postgresql://" + a.user() + ":" + a.password() + "@" + a.host() + ":" + a.port() + "/" + a.database());
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_HTTP_PORT", "0");
    env.putAll(overrides);
    return env;
  }

  public AppConfig config(Map<String, String> overrides) {
    return AppConfig.load(env(overrides));
  }
}
