package dev.sqlagent.eval;

import dev.sqlagent.db.Target;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the harness's own SQL (gold queries, and the agent's final SQL again when its answer was truncated)
 * as {@code sql_agent_ro}, in a read-only transaction that is always rolled back, without the agent's row
 * cap. This is trusted SQL written by the question author or already passed by the gate, so it takes a
 * direct connection instead of the gate; the role and the read-only transaction still forbid any write.
 *
 * <p>Blocking (JDBC): call it from a worker thread ({@code executeBlocking(..., false)}), never an event loop.
 */
public final class GoldExecutor implements Grader.SqlRunner, AutoCloseable {

  /** A harness query failed: the SQLSTATE and PostgreSQL's message. */
  public static final class QueryFailedException extends Exception {
    private final String sqlState;

    public QueryFailedException(String sqlState, String message) {
      super(message);
      this.sqlState = sqlState;
    }

    public String sqlState() {
      return sqlState;
    }
  }

  private final Target target;
  private Connection connection;

  public GoldExecutor(Target target) {
    this.target = target;
  }

  /** Runs one statement read-only and returns every row. */
  @Override
  public synchronized QueryResult run(String sql) throws QueryFailedException {
    if (SqlText.hasSecondStatement(sql)) {
      throw new QueryFailedException("42601", "more than one statement: the harness runs exactly one");
    }
    try {
      Connection c = connection();
      try (Statement s = c.createStatement()) {
        s.execute("SET TRANSACTION READ ONLY");
      }
      try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
        return read(rs);
      } finally {
        c.rollback();
      }
    } catch (SQLException e) {
      discardBrokenConnection();
      throw new QueryFailedException(e.getSQLState(), e.getMessage());
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      connection = target.roConnection();
      connection.setAutoCommit(false);
      connection.setReadOnly(true);
    }
    return connection;
  }

  private void discardBrokenConnection() {
    if (connection == null) return;
    try {
      if (!connection.isValid(2)) {
        connection.close();
        connection = null;
      } else {
        connection.rollback();
      }
    } catch (SQLException e) {
      connection = null;
    }
  }

  private static QueryResult read(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    int n = md.getColumnCount();
    List<QueryResult.Column> cols = new ArrayList<>(n);
    for (int i = 1; i <= n; i++) cols.add(new QueryResult.Column(md.getColumnLabel(i), md.getColumnTypeName(i)));
    List<List<Object>> rows = new ArrayList<>();
    while (rs.next()) {
      List<Object> row = new ArrayList<>(n);
      for (int i = 1; i <= n; i++) row.add(value(rs, i, cols.get(i - 1).type()));
      rows.add(row);
    }
    return new QueryResult(cols, rows);
  }

  /** JDBC values as the comparator's plain types (java.time for dates, text for exotic types). */
  private static Object value(ResultSet rs, int i, String type) throws SQLException {
    String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
    if (t.equals("timestamptz")) return rs.getObject(i, OffsetDateTime.class);
    Object v = rs.getObject(i);
    if (v == null) return null;
    if (v instanceof java.sql.Timestamp ts) return ts.toLocalDateTime();
    if (v instanceof java.sql.Date d) return d.toLocalDate();
    if (v instanceof Number || v instanceof Boolean || v instanceof String) return v;
    if (v instanceof Array a) return a.toString();
    return v.toString();
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // closing a connection we no longer need; nothing to recover
      }
      connection = null;
    }
  }
}
