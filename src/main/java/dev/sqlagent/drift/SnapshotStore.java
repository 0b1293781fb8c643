package dev.sqlagent.drift;

import dev.sqlagent.db.AdminUrl;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The schema snapshots, one JSON file per server and database under
 * {@code <SQLAGENT_HOME>/schema-snapshots/}. Blocking file I/O: call off the event loop.
 */
public final class SnapshotStore {

  private final Path dir;

  public SnapshotStore(Path home) {
    this.dir = home.resolve("schema-snapshots");
  }

  public Path path(AdminUrl server) {
    String key = (server.host() + "_" + server.port() + "_" + server.database()).replaceAll("[^A-Za-z0-9._-]", "_");
    return dir.resolve(key + ".json");
  }

  public Optional<SchemaShape> read(AdminUrl server) throws IOException {
    Path p = path(server);
    if (!Files.exists(p)) return Optional.empty();
    try {
      return Optional.of(SchemaShape.fromJson(new JsonObject(Files.readString(p, StandardCharsets.UTF_8))));
    } catch (RuntimeException e) {
      throw new IOException("the schema snapshot " + p + " cannot be read (" + e.getMessage() + "); delete it and restart the service", e);
    }
  }

  /** Replaces the snapshot atomically, so a reader never sees half a file. */
  public Path write(AdminUrl server, SchemaShape shape) throws IOException {
    Files.createDirectories(dir);
    Path p = path(server);
    Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
    Files.writeString(tmp, shape.toJson().encodePrettily(), StandardCharsets.UTF_8);
    Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return p;
  }
}
