package dev.sqlagent.drift;

import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Tuple;
import java.util.Optional;

/**
 * The schema snapshots, one row per target in the state store's {@code schema_snapshots}, keyed by
 * {@code Target.key()} (so the embedded demo's changing port does not matter), through the state store's
 * shared owner pool.
 */
public final class SnapshotRepository {

  private static final String READ = "SELECT snapshot::text FROM schema_snapshots WHERE target = $1";
  /** Replaces the snapshot in one statement, so a reader never sees half of one. */
  private static final String WRITE = "INSERT INTO schema_snapshots (target, snapshot, written_at) VALUES ($1, $2::jsonb, now()) "
      + "ON CONFLICT (target) DO UPDATE SET snapshot = EXCLUDED.snapshot, written_at = now()";

  /** A snapshot that is kept but cannot be read back. */
  public static final class UnreadableSnapshot extends RuntimeException {
    UnreadableSnapshot(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final StateDatabase state;

  public SnapshotRepository(StateDatabase state) {
    this.state = state;
  }

  /** Where a snapshot lives, as messages name it. */
  public String where(String target) {
    return "schema_snapshots['" + target + "'] in the state store " + state.store().owner();
  }

  public Future<Optional<SchemaShape>> read(String target) {
    return state.owner().preparedQuery(READ).execute(Tuple.of(target)).map(rows -> {
      if (rows.size() == 0) return Optional.empty();
      try {
        return Optional.of(SchemaShape.fromJson(new JsonObject(rows.iterator().next().getString(0))));
      } catch (RuntimeException e) {
        throw new UnreadableSnapshot("the schema snapshot " + where(target) + " cannot be read (" + e.getMessage()
            + "); it is replaced when the service next builds its index", e);
      }
    });
  }

  public Future<Void> write(String target, SchemaShape shape) {
    return state.owner().preparedQuery(WRITE).execute(Tuple.of(target, shape.toJson())).mapEmpty();
  }
}
