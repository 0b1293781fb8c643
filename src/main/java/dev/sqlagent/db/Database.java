package dev.sqlagent.db;

import dev.sqlagent.config.AppConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database the service runs on: the embedded PostgreSQL (started here) or the server of
 * {@code SQLAGENT_DB_URL}, with the agent roles' passwords. Setup runs on first start. Blocking: called
 * from the command line before any event loop exists.
 */
public final class Database implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Database.class);

  private final EmbeddedDatabase embedded;
  private final DbTarget target;

  private Database(EmbeddedDatabase embedded, DbTarget target) {
    this.embedded = embedded;
    this.target = target;
  }

  /** Connects (starting the embedded server if configured); runs setup when it has never run here. */
  public static Database open(AppConfig config) throws IOException {
    return open(config, true);
  }

  /** As {@link #open(AppConfig)}; with {@code autoSetup} false, setup is left to the caller. */
  public static Database open(AppConfig config, boolean autoSetup) throws IOException {
    Credentials credentials = new Credentials(config.home());
    EmbeddedDatabase embedded = null;
    AdminUrl admin;
    if (config.dbUrl().isPresent()) {
      admin = config.dbUrl().get();
    } else {
      embedded = EmbeddedDatabase.start(config.home().resolve("pgdata"), config.home().resolve("pgbin"),
          credentials.embeddedAdminPassword());
      admin = embedded.adminUrl();
    }
    try {
      // The embedded server gets a new port on every start: key its passwords by the server, not the port.
      String key = embedded != null ? "embedded" : admin.serverKey();
      boolean known = credentials.roles(key).isPresent();
      DbTarget target = new DbTarget(admin, credentials.rolesOrCreate(key));
      Database db = new Database(embedded, target);
      if (autoSetup && (!known || !db.isSetUp())) {
        LOG.info("first start on {}: running setup", admin);
        new Setup(target).run();
      }
      return db;
    } catch (IOException | RuntimeException e) {
      if (embedded != null) embedded.close();
      throw e;
    }
  }

  /** The agent role can log in and sees the shop: setup has run with the stored passwords. */
  public boolean isSetUp() {
    try (Connection c = target.roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'bills'")) {
      return rs.next() && rs.getInt(1) == 1;
    } catch (SQLException e) {
      return false;
    }
  }

  public DbTarget target() {
    return target;
  }

  public boolean isEmbedded() {
    return embedded != null;
  }

  public static Path dataDir(AppConfig config) {
    return config.home().resolve("pgdata");
  }

  @Override
  public void close() throws IOException {
    if (embedded != null) embedded.close();
  }
}
