package dev.sqlagent.catalogue;

import dev.sqlagent.db.Target;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The catalogue service's reads for the command line and the start, over JDBC (never on an event loop): who the
 * agent role is on which server, the read-only proofs, whether {@code pg_stat_statements} may be read. Each opens a
 * connection of the agent role of its own and reads the catalogue only, never a relation's rows.
 */
public final class Probes {
  private Probes() {}

  /** "role on database, PostgreSQL version, default_transaction_read_only=…". */
  public static String server(Target target) throws SQLException {
    try (Connection c = target.roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT current_user || ' on ' || current_database() || ', PostgreSQL '"
             + " || current_setting('server_version') || ', default_transaction_read_only='"
             + " || current_setting('default_transaction_read_only')")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * The read-only proofs of the agent role ({@link ReadOnlyProof}).
   *
   * @param schemas the schemas in scope; empty: every non-system schema
   * @param timeoutSeconds every network wait bounded by this (0: unbounded)
   */
  public static ReadOnlyProof.Report proof(Target target, List<String> schemas, int timeoutSeconds) throws SQLException {
    return proof(target, schemas, timeoutSeconds, (schema, name) -> false);
  }

  /** The same, accepting the functions {@code accepted} names ({@link ReadOnlyProof#check(Connection, List, java.util.function.BiPredicate)}). */
  public static ReadOnlyProof.Report proof(Target target, List<String> schemas, int timeoutSeconds,
      java.util.function.BiPredicate<String, String> accepted) throws SQLException {
    try (Connection c = target.roConnection(timeoutSeconds > 0 ? "sql-agent-health" : "sql-agent", timeoutSeconds)) {
      return ReadOnlyProof.check(c, schemas.isEmpty() ? null : schemas, accepted);
    }
  }

  /** Whether the agent role may read {@code pg_stat_statements}, and what would let it. */
  public static StatStatements.Access statStatements(Target target) throws SQLException {
    try (Connection c = target.roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(StatStatements.ACCESS)) {
      rs.next();
      return StatStatements.describe(rs.getBoolean("installed"), rs.getString("schema"), rs.getString("preload"),
          rs.getBoolean("all_stats"), rs.getString("role"));
    }
  }
}
