package dev.sqlagent.drift;

import dev.sqlagent.db.AdminUrl;
import dev.sqlagent.db.DbTarget;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the live {@link SchemaShape} from pg_catalog: the tables, views and materialised views in
 * {@code public} that {@code sql_agent_ro} may SELECT (what retrieval indexes; the query log is never among
 * them). The role is a parameter, so an admin connection can read what the agent sees, inside its own
 * transaction.
 */
public final class SchemaReader {

  private SchemaReader() {}

  static final String COLUMNS = """
      SELECT c.relname::text AS table_name, a.attname::text AS column_name, a.attnum::int AS position,
             format_type(a.atttypid, a.atttypmod) AS type, t.typname::text AS base, a.atttypmod AS typmod,
             NOT a.attnotnull AS nullable
      FROM pg_class c
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      JOIN pg_type t ON t.oid = a.atttypid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
        AND NOT c.relispartition AND c.relname <> 'agent_query_log'
        AND has_table_privilege($1, c.oid, 'SELECT')
      ORDER BY c.relname, a.attnum""";

  /** Blocking, over JDBC (the CLI and tests). */
  public static SchemaShape read(Connection c, AdminUrl server) throws SQLException {
    List<Object[]> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(COLUMNS.replace("$1", "?"))) {
      ps.setString(1, DbTarget.RO_ROLE);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new Object[] {rs.getString(1), SchemaShape.Column.of(rs.getString(2), rs.getInt(3), rs.getString(4),
              rs.getString(5), rs.getInt(6), rs.getBoolean(7))});
        }
      }
    }
    return shape(server, rows);
  }

  /** Non-blocking, over the reactive client (the service). */
  public static Future<SchemaShape> read(SqlClient client, AdminUrl server) {
    return client.preparedQuery(COLUMNS).execute(Tuple.of(DbTarget.RO_ROLE)).map(rs -> {
      List<Object[]> rows = new ArrayList<>();
      for (Row r : rs) {
        rows.add(new Object[] {r.getString("table_name"), SchemaShape.Column.of(r.getString("column_name"),
            r.getInteger("position"), r.getString("type"), r.getString("base"), r.getInteger("typmod"),
            r.getBoolean("nullable"))});
      }
      return shape(server, rows);
    });
  }

  private static SchemaShape shape(AdminUrl server, List<Object[]> rows) {
    Map<String, List<SchemaShape.Column>> tables = new LinkedHashMap<>();
    for (Object[] r : rows) tables.computeIfAbsent((String) r[0], k -> new ArrayList<>()).add((SchemaShape.Column) r[1]);
    List<SchemaShape.Table> list = new ArrayList<>();
    tables.forEach((name, cols) -> list.add(new SchemaShape.Table(name, cols)));
    return new SchemaShape(server.host() + ":" + server.port(), server.database(), Instant.now().toString(), null, list);
  }
}
