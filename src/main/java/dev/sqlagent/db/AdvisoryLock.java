package dev.sqlagent.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Set-up work that several nodes may start at the same moment (an orchestrator starting every replica at once),
 * run by one node at a time: a PostgreSQL advisory lock on a fixed key, taken in a session opened for nothing
 * else and released (by unlocking, or by the session ending if this process dies) once the work is done. The
 * work itself uses its own connections. Whoever loses waits, then runs the same work, which must therefore be
 * idempotent: it finds it done and goes on. Blocking; the command line and start-up only.
 *
 * <p>An advisory lock belongs to one database: two works that must exclude each other lock in the same one.
 */
public final class AdvisoryLock {

  private static final Logger LOG = LoggerFactory.getLogger(AdvisoryLock.class);

  /** The state store's set-up (its tables, scripts and log role), locked in the state database. */
  public static final long STATE_STORE = 0x73716c5f73746174L;  // "sql_stat"
  /** Creating a database that is missing (the state database, the embedded demo), locked in the maintenance database. */
  public static final long CREATE_DATABASE = 0x73716c5f63726462L;  // "sql_crdb"
  /** Building the demo shop's tables and data in a database, locked in that database. */
  public static final long DEMO = 0x73716c5f64656d6fL;  // "sql_demo"
  /** The longest a node waits for another's set-up before it gives up, naming what it waited for. */
  public static final int WAIT_SECONDS = 120;

  /** Work done while the lock is held. */
  @FunctionalInterface
  public interface Work<T> {
    T run() throws SQLException;
  }

  private AdvisoryLock() {}

  /**
   * Runs {@code work} holding the lock {@code key} in the database of {@code url}.
   *
   * @param what the work, as a log line or error names it ("the state store's set-up")
   * @throws SQLException when the lock could not be taken within {@link #WAIT_SECONDS}, or the work's own
   */
  public static <T> T holding(PgUrl url, long key, String what, Work<T> work) throws SQLException {
    try (Connection lock = url.connect("sql-agent-setup-lock")) {
      long t0 = System.nanoTime();
      try (Statement s = lock.createStatement()) {
        // An advisory lock waits like any other lock: lock_timeout bounds the wait (55P03 when it passes).
        s.execute("SET lock_timeout = '" + WAIT_SECONDS + "s'");
      }
      try (PreparedStatement ps = lock.prepareStatement("SELECT pg_advisory_lock(?)")) {
        ps.setLong(1, key);
        ps.execute();
      } catch (SQLException e) {
        if ("55P03".equals(e.getSQLState())) {
          throw new SQLException("waited " + WAIT_SECONDS + " s for another node's " + what + " on " + url
              + " to finish (advisory lock " + key + "); is a set-up stuck there? (pg_locks shows its holder)", "55P03", e);
        }
        throw e;
      }
      long waitedMs = (System.nanoTime() - t0) / 1_000_000;
      if (waitedMs >= 100) LOG.info("{} on {}: waited {} ms for another node's", what, url, waitedMs);
      try {
        return work.run();
      } finally {
        try (PreparedStatement ps = lock.prepareStatement("SELECT pg_advisory_unlock(?)")) {
          ps.setLong(1, key);
          ps.execute();
        } catch (SQLException e) {
          // Closing the session below releases it all the same.
          LOG.debug("unlocking {} on {}: {}", what, url, e.getMessage());
        }
      }
    }
  }

  /**
   * Creates the database of {@code url} when it is missing, one node at a time (locked in the maintenance
   * database {@code postgres}, where the check and the CREATE run). Returns whether this call created it.
   *
   * @throws SQLException when the maintenance database cannot be reached or the database cannot be created
   */
  public static boolean createDatabaseIfMissing(PgUrl url, String application) throws SQLException {
    PgUrl maintenance = url.withDatabase("postgres");
    return holding(maintenance, CREATE_DATABASE, "database creation", () -> {
      try (Connection c = maintenance.connect(application);
           PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
        ps.setString(1, url.database());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) return false;
        }
        try (Statement s = c.createStatement()) {
          s.execute("CREATE DATABASE " + Identifiers.quote(url.database()) + " ENCODING 'UTF8' TEMPLATE template0");
        }
        return true;
      }
    });
  }
}
