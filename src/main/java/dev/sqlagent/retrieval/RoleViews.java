package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.ReadOnly;
import dev.sqlagent.catalogue.TableInfo;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a user's database role may read: the agent's catalogue narrowed to the tables discovery finds when it
 * runs as that role (grants and schema privileges as PostgreSQL checks them), so retrieval, {@code /api/schema}
 * and the MCP tools show a user only their tables. One discovery per role, kept until the catalogue changes.
 * Touched only on the retrieval verticle's context.
 */
final class RoleViews {

  private final Pool pool;
  private final List<String> schemas;
  private final Map<String, View> views = new HashMap<>();

  private record View(Catalogue base, Future<Catalogue> narrowed) {}

  RoleViews(Pool pool, List<String> schemas) {
    this.pool = pool;
    this.schemas = schemas;
  }

  /** {@code base} as {@code role} sees it ({@code role} null: the agent's own view, {@code base} itself). */
  Future<Catalogue> view(Catalogue base, String role) {
    if (role == null) return Future.succeededFuture(base);
    View v = views.get(role);
    if (v == null || v.base() != base || v.narrowed().failed()) {
      Future<Catalogue> narrowed = ReadOnly.runAs(pool, role, conn -> new Discovery(pool, schemas).readOn(conn))
          .map(mine -> {
            Set<String> readable = mine.tables().stream().map(TableInfo::name).collect(Collectors.toSet());
            return base.withTables(base.tables().stream().filter(t -> readable.contains(t.name())).toList());
          });
      v = new View(base, narrowed);
      views.put(role, v);
    }
    return v.narrowed();
  }
}
