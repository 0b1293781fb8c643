package dev.sqlagent.drift;

import dev.sqlagent.state.StateStore;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The schema snapshots, one row per target in the state store's {@code schema_snapshots}, keyed by
 * {@code Target.key()} (so the embedded demo's changing port does not matter). Blocking JDBC: call off the
 * event loop.
 */
public final class SnapshotStore {

  private final StateStore state;

  public SnapshotStore(StateStore state) {
    this.state = state;
  }

  /** Where a snapshot lives, as messages name it. */
  public String where(String target) {
    return "schema_snapshots['" + target + "'] in the state store " + state.owner();
  }

  public Optional<SchemaShape> read(String target) throws SQLException {
    try (Connection c = state.ownerConnection();
         PreparedStatement ps = c.prepareStatement("SELECT snapshot::text FROM schema_snapshots WHERE target = ?")) {
      ps.setString(1, target);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) return Optional.empty();
        try {
          return Optional.of(SchemaShape.fromJson(new JsonObject(rs.getString(1))));
        } catch (RuntimeException e) {
          throw new SQLException("the schema snapshot " + where(target) + " cannot be read (" + e.getMessage()
              + "); it is replaced when the service next builds its index", e);
        }
      }
    }
  }

  /** Replaces the snapshot in one statement, so a reader never sees half of one. */
  public void write(String target, SchemaShape shape) throws SQLException {
    try (Connection c = state.ownerConnection(); PreparedStatement ps = c.prepareStatement(
        "INSERT INTO schema_snapshots (target, snapshot, written_at) VALUES (?, ?::jsonb, now()) "
            + "ON CONFLICT (target) DO UPDATE SET snapshot = EXCLUDED.snapshot, written_at = now()")) {
      ps.setString(1, target);
      ps.setString(2, shape.toJson().encode());
      ps.executeUpdate();
    }
  }
}
