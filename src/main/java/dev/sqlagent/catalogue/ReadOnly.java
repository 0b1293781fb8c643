package dev.sqlagent.catalogue;

import dev.sqlagent.db.Identifiers;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.function.Function;

/**
 * Work on one connection of the read-only role inside {@code BEGIN ... READ ONLY}, always rolled back.
 * Repeatable read gives every query of the work the same snapshot (a catalogue read sees one schema).
 */
public final class ReadOnly {
  /** Opens the transaction the work runs in. */
  public static final String BEGIN = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

  private ReadOnly() {}

  public static <T> Future<T> run(Pool pool, Function<SqlConnection, Future<T>> work) {
    return runAs(pool, null, work);
  }

  /**
   * The same as a user's database role ({@code SET LOCAL ROLE}, ended by the ROLLBACK): the catalogue, grants and
   * row-level security then answer as that role. {@code role} null: the agent role itself.
   */
  public static <T> Future<T> runAs(Pool pool, String role, Function<SqlConnection, Future<T>> work) {
    return pool.withConnection(conn -> runAs(conn, role, work));
  }

  /** {@link #runAs(Pool, String, Function)} on a connection the caller holds. */
  public static <T> Future<T> runAs(SqlConnection conn, String role, Function<SqlConnection, Future<T>> work) {
    return conn.query(BEGIN).execute()
        .compose(begun -> role == null ? Future.succeededFuture() : conn.query(setRole(role)).execute())
        .compose(v -> work.apply(conn))
        .eventually(() -> conn.query("ROLLBACK").execute());
  }

  /** The statement that makes the rest of the transaction run as {@code role}. */
  public static String setRole(String role) {
    return "SET LOCAL ROLE " + Identifiers.quote(role);
  }

}
