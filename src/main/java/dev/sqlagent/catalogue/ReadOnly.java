package dev.sqlagent.catalogue;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.function.Function;

/**
 * Work on one connection of the read-only role inside {@code BEGIN ... READ ONLY}, always rolled back.
 * Repeatable read gives every query of the work the same snapshot (a catalogue read sees one schema).
 */
public final class ReadOnly {
  private ReadOnly() {}

  public static <T> Future<T> run(Pool pool, Function<SqlConnection, Future<T>> work) {
    return pool.withConnection(conn -> conn.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").execute()
        .compose(begun -> work.apply(conn))
        .eventually(() -> conn.query("ROLLBACK").execute()));
  }

  /** A PostgreSQL identifier, always quoted, so any table or column name is safe inside our fixed SQL. */
  public static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
