package dev.sqlagent.catalogue;

import dev.sqlagent.db.Identifiers;

/**
 * Whether the agent role may read {@code pg_stat_statements} in the target, and what would let it: one catalogue
 * query ({@link #ACCESS}, read-only, no privilege needed) and what its row means ({@link #describe}). Used by the
 * learner before it reads the view, and by {@code sql-agent status}.
 */
public final class StatStatements {
  private StatStatements() {}

  /**
   * installed (the extension exists in this database), schema (where its view is), preload (the server's
   * {@code shared_preload_libraries}, null when the role may not see it), all_stats (superuser or
   * {@code pg_read_all_stats}: every role's statements are readable, not only its own), role.
   */
  public static final String ACCESS = "SELECT e.extname IS NOT NULL AS installed, n.nspname::text AS schema,"
      + " (SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries') AS preload,"
      + " (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR pg_has_role(current_user, 'pg_read_all_stats',"
      + " 'USAGE') AS all_stats, current_user::text AS role"
      + " FROM (SELECT 1) one LEFT JOIN pg_extension e ON e.extname = 'pg_stat_statements'"
      + " LEFT JOIN pg_namespace n ON n.oid = e.extnamespace";

  /**
   * What the access row says.
   *
   * @param readable whether the view can be read at all (the agent's own statements at least)
   * @param everyone whether every role's statements are readable, not only the agent role's
   * @param schema the view's schema (null when not installed)
   * @param detail one line for a person: what is read, or why not and the grant or setting that enables it
   */
  public record Access(boolean readable, boolean everyone, String schema, String detail) {

    /** The statements of the target's database, most executed first: query text and calls. */
    public String statementsSql(int limit) {
      return "SELECT s.query, s.calls FROM " + Identifiers.quote(schema) + ".pg_stat_statements s"
          + " WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
          + " AND s.query IS NOT NULL AND s.query <> '<insufficient privilege>'"
          + " ORDER BY s.calls DESC LIMIT " + limit;
    }
  }

  /** The access a row of {@link #ACCESS} describes. */
  public static Access describe(boolean installed, String schema, String preload, boolean allStats, String role) {
    boolean loaded = preload == null || preload.contains("pg_stat_statements");
    if (!installed) {
      return new Access(false, false, null, "not installed in this database: "
          + (preload != null && !loaded ? "add pg_stat_statements to shared_preload_libraries (restart), then " : "")
          + "CREATE EXTENSION pg_stat_statements (as an owner), and GRANT pg_read_all_stats TO " + role);
    }
    if (!loaded) {
      return new Access(false, false, schema, "installed, but not loaded: add pg_stat_statements to"
          + " shared_preload_libraries and restart the server");
    }
    if (!allStats) {
      return new Access(true, false, schema, "readable for " + role + "'s own statements only:"
          + " GRANT pg_read_all_stats TO " + role + " to learn from every role's queries");
    }
    return new Access(true, true, schema, "readable (every role's statements)");
  }
}
