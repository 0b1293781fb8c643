package dev.sqlagent.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.BiFunction;

/**
 * Proving a role of the service's own databases by attempting, in a transaction that is always rolled back,
 * what it must not do (and the one thing it must). Only for the demo and the state store: a target given by
 * URL is proven from its catalogue, never by an attempt.
 *
 * @param failure makes the exception thrown when a proof does not hold (message, cause)
 */
public record RoleProofs(String role, BiFunction<String, Throwable, RuntimeException> failure) {

  /**
   * {@code sql} must be refused (with {@code expectState} when given); {@code readWrite} asks for a READ WRITE
   * transaction first, so only the privileges can refuse. Returns the proof's line.
   */
  public String mustFail(Connection c, boolean readWrite, String sql, String expectState) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      if (readWrite) s.execute("SET TRANSACTION READ WRITE");
      s.execute(sql);
    } catch (SQLException refused) {
      c.rollback();
      if (expectState != null && !expectState.equals(refused.getSQLState())) {
        throw failure.apply("role " + role + " was refused `" + sql + "` with SQLSTATE " + refused.getSQLState()
            + ", expected " + expectState + ": " + refused.getMessage(), refused);
      }
      return role + " cannot: " + sql + " (" + refused.getSQLState() + ")";
    }
    c.rollback();
    throw failure.apply("role " + role + " was able to run `" + sql + "`: its grants are wrong, "
        + "nothing goes on until they are fixed (the statement was rolled back)", null);
  }

  /** {@code sql} must run (then it is rolled back). */
  public String mustSucceed(Connection c, String sql) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      c.rollback();
      throw failure.apply("role " + role + " could not run `" + sql.strip() + "`: " + e.getMessage(), e);
    }
    c.rollback();
    return role + " can: " + sql.strip().lines().findFirst().orElse(sql) + " (rolled back)";
  }
}
