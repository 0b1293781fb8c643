package dev.sqlagent.values;

import dev.sqlagent.state.StateStore;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Stored values kept in the state store (never the target), per target and schema shape. Blocking (JDBC). */
final class ValueStore {

  private final StateStore state;

  ValueStore(StateStore state) {
    this.state = state;
  }

  /** The values read under this shape, if any were kept. */
  Optional<List<ColumnValues>> load(String target, String shape) throws SQLException {
    try (Connection c = state.ownerConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT relation, column_name, low_cardinality, source, vals FROM stored_values"
            + " WHERE target = ? AND shape = ? ORDER BY relation, column_name")) {
      ps.setString(1, target);
      ps.setString(2, shape);
      List<ColumnValues> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new ColumnValues(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getString(4),
              List.of((String[]) rs.getArray(5).getArray())));
        }
      }
      return out.isEmpty() ? Optional.empty() : Optional.of(out);
    }
  }

  /**
   * Replaces what is kept for the target. One save of a target at a time (a transaction-scoped advisory lock):
   * clustered, every worker reads and saves the values at once on a schema refresh, and two interleaved
   * delete-then-insert transactions would collide on the primary key.
   */
  void save(String target, String shape, List<ColumnValues> columns) throws SQLException {
    try (Connection c = state.ownerConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext('stored_values ' || ?))");
           PreparedStatement del = c.prepareStatement("DELETE FROM stored_values WHERE target = ?");
           PreparedStatement ins = c.prepareStatement("INSERT INTO stored_values"
               + " (target, relation, column_name, shape, low_cardinality, source, vals) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
        lock.setString(1, target);
        lock.execute();
        del.setString(1, target);
        del.executeUpdate();
        for (ColumnValues v : columns) {
          Array vals = c.createArrayOf("text", v.values().toArray());
          ins.setString(1, target);
          ins.setString(2, v.table());
          ins.setString(3, v.column());
          ins.setString(4, shape);
          ins.setBoolean(5, v.lowCardinality());
          ins.setString(6, v.source());
          ins.setArray(7, vals);
          ins.addBatch();
        }
        ins.executeBatch();
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
