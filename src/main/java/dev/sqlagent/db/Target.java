package dev.sqlagent.db;

import io.vertx.pgclient.PgConnectOptions;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The user's database, as the agent role reaches it: only ever read. Nothing in the service holds a
 * more privileged credential for it (the admin appears only in {@code sql-agent grant --apply}).
 *
 * @param demo whether this is the embedded demo shop (the service built it, so it may rebuild it)
 */
public record Target(PgUrl url, boolean demo) {

  /** The role the embedded demo's agent connects as. */
  public static final String DEMO_ROLE = "sql_agent_ro";

  public String database() {
    return url.database();
  }

  public String role() {
    return url.user();
  }

  /** Reactive connect options of the agent role. */
  public PgConnectOptions roOptions() {
    return url.options("sql-agent");
  }

  /** A blocking connection as the agent role (command line and start-up proofs: never on an event loop). */
  public Connection roConnection() throws SQLException {
    return url.connect("sql-agent");
  }

  /** Where snapshots and caches of this target are keyed: stable across the embedded server's changing port. */
  public String key() {
    return (demo ? "embedded" : url.serverKey()) + "/" + url.database();
  }

  @Override
  public String toString() {
    return (demo ? "demo " : "") + url;
  }
}
