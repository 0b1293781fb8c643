package dev.sqlagent.state;

import dev.sqlagent.db.AdvisoryLock;
import dev.sqlagent.db.Identifiers;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.RoleProofs;
import dev.sqlagent.db.SqlScript;
import io.vertx.pgclient.PgConnectOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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
 * The service's own PostgreSQL: the query log, schema snapshots, the embedding cache and evaluation runs.
 * Everything the service writes goes here, never to the target. Its owner ({@code SQLAGENT_STATE_URL}, or
 * the embedded server's superuser) creates the tables and the INSERT-only log role; the service writes
 * snapshots, embeddings and runs as the owner and the query log only as {@code sql_agent_log}.
 *
 * <p>This is the store's address and its set-up (blocking JDBC: migration, the log role's proofs, the command
 * line's reports). While the service runs, its connections are {@link StateDatabase}'s two pools.
 */
public record StateStore(PgUrl owner, String logPassword) {

  private static final Logger LOG = LoggerFactory.getLogger(StateStore.class);

  public static final String LOG_ROLE = "sql_agent_log";
  /** The state database's name on the embedded server. */
  public static final String EMBEDDED_DATABASE = "sql_agent";
  /**
   * The store's scripts, run in this order; each is idempotent. A feature that stores something adds its own
   * script under {@code db/state/} here.
   */
  static final List<String> SCRIPTS = List.of("state/query_log.sql", "state/state.sql", "state/cluster.sql",
      "state/stored_values.sql", "state/run_user.sql", "state/conversations.sql", "state/run_claims.sql",
      "state/trace_id.sql", "state/client_addr.sql", "state/budget_usage.sql");
  /** The log role's script, run after the tables with the database's name and the role's password. */
  static final String LOG_ROLE_SCRIPT = "state/log_role.sql";
  /** Derived from the scripts' text, so any change to them migrates existing stores at the next start. */
  static final int VERSION = scriptsVersion();

  /** The store could not be prepared, or its log role could do what it must not. */
  public static final class StateStoreException extends RuntimeException {
    public StateStoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  @Override
  public String toString() {
    return "StateStore[" + owner + "]";
  }

  public PgUrl logUrl() {
    return owner.withUser(LOG_ROLE, logPassword);
  }

  public PgConnectOptions ownerOptions() {
    return owner.options(StateDatabase.OWNER_APPLICATION);
  }

  public PgConnectOptions logOptions() {
    return logUrl().options(StateDatabase.LOG_APPLICATION);
  }

  /** Blocking: set-up and the command line only; the service uses {@link StateDatabase#owner()}. */
  public Connection ownerConnection() throws SQLException {
    return owner.connect("sql-agent-state");
  }

  /** Blocking. */
  public Connection logConnection() throws SQLException {
    return logUrl().connect("sql-agent-log");
  }

  /**
   * Creates the database (when it is missing and the owner may), the tables and the log role, and proves the
   * role, unless the store is already at the current version. Blocking; idempotent. Safe when several nodes start
   * at once on one fresh store: the set-up runs under an advisory lock ({@link AdvisoryLock#STATE_STORE}) in a
   * session of its own, one node at a time; the others wait, find the store current and go on.
   */
  public void migrate() {
    if (isCurrent()) return;
    ensureDatabase();
    try {
      AdvisoryLock.holding(owner, AdvisoryLock.STATE_STORE, "state store set-up", () -> {
        if (!isCurrent()) migrateNow();  // another node may have done it while this one waited
        return null;
      });
    } catch (SQLException e) {
      throw new StateStoreException("cannot prepare the state store " + owner + ": " + e.getMessage(), e);
    }
  }

  /** The set-up itself; the caller holds the lock. */
  private void migrateNow() {
    long t0 = System.nanoTime();
    try (Connection c = ownerConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String script : SCRIPTS) {
          for (String stmt : SqlScript.load(script, Map.of())) s.execute(stmt);
        }
        for (String stmt : SqlScript.load(LOG_ROLE_SCRIPT, Map.of("db", Identifiers.quote(owner.database()),
            "log_password", Identifiers.literal(logPassword)))) {
          s.execute(stmt);
        }
      }
      c.commit();
    } catch (SQLException e) {
      throw new StateStoreException("cannot prepare the state store " + owner + ": " + e.getMessage()
          + (e.getMessage() != null && e.getMessage().contains("permission denied to create role")
              ? " (the state store's user needs CREATEROLE to create the log role " + LOG_ROLE + ")" : ""), e);
    }
    List<String> proofs = proveLogRole();
    try (Connection c = ownerConnection(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO state_version (version) VALUES (" + VERSION + ") ON CONFLICT DO NOTHING");
    } catch (SQLException e) {
      throw new StateStoreException("cannot record the state store's version: " + e.getMessage(), e);
    }
    LOG.info("state store {} ready in {} ms; {} log-role proofs passed", owner, (System.nanoTime() - t0) / 1_000_000,
        proofs.size());
  }

  /** At the current version, and the log role logs in with the stored password. */
  private boolean isCurrent() {
    try (Connection c = ownerConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT 1 FROM state_version WHERE version = " + VERSION)) {
      if (!rs.next()) return false;
    } catch (SQLException e) {
      return false;
    }
    try (Connection ignored = logConnection()) {
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  private void ensureDatabase() {
    try {
      if (AdvisoryLock.createDatabaseIfMissing(owner, "sql-agent-state")) LOG.info("created the state database {}", owner.database());
    } catch (SQLException e) {
      // Not fatal yet: the database may exist and only the maintenance database be closed to this user.
      LOG.debug("state database check on {}: {}", owner, e.getMessage());
    }
  }

  /**
   * Attempts, as the log role, what it must not do (each in its own transaction, rolled back), and the one
   * thing it must. Throws naming the first statement that got through.
   */
  public List<String> proveLogRole() {
    List<String> proofs = new ArrayList<>();
    RoleProofs proof = new RoleProofs(LOG_ROLE, StateStoreException::new);
    try (Connection log = logConnection()) {
      for (String sql : List.of(
          "SELECT count(*) FROM agent_query_log",
          "SELECT count(*) FROM schema_snapshots",
          "UPDATE agent_query_log SET mode = 'x'",
          "DELETE FROM agent_query_log",
          "CREATE TABLE sql_agent_probe (a int)")) {
        proofs.add(proof.mustFail(log, true, sql, null));
      }
      proofs.add(proof.mustSucceed(log, """
          INSERT INTO agent_query_log (run_id, question, asked_at, mode, attempts_used, gave_up, refused)
          VALUES ('state-proof', 'state store proof', now(), 'agent', 0, false, false)"""));
    } catch (SQLException e) {
      throw new StateStoreException("cannot connect as " + LOG_ROLE + ": " + e.getMessage(), e);
    }
    return proofs;
  }

  private static int scriptsVersion() {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String script : SCRIPTS) sha.update(SqlScript.text(script).getBytes(StandardCharsets.UTF_8));
      sha.update(SqlScript.text(LOG_ROLE_SCRIPT).getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(sha.digest()).getInt() & Integer.MAX_VALUE;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

}
