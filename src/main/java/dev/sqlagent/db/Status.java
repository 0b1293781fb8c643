package dev.sqlagent.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What is true of the database right now, each line attempted rather than assumed: connections are made,
 * the write is really tried (and rolled back), the log role's read is really refused.
 */
public final class Status {

  /** One attempted check: what was tried, whether the outcome was the safe one, and what came back. */
  public record Check(String name, boolean ok, String detail) {}

  private Status() {}

  public static List<Check> run(DbTarget target) {
    List<Check> checks = new ArrayList<>();
    checks.add(attempt("admin connection", () -> {
      try (Connection c = target.adminConnection(target.database())) {
        return value(c, "SELECT current_user || ' on ' || current_database() || ', ' || split_part(version(), ' ', 2)");
      }
    }));
    checks.add(attempt("agent role connection", () -> {
      try (Connection c = target.roConnection()) {
        return value(c, "SELECT current_user || ', default_transaction_read_only=' || current_setting('default_transaction_read_only')");
      }
    }));
    checks.add(refusal("write blocked (agent role)", target, true, "INSERT INTO store_settings VALUES ('status-probe', 'x')"));
    checks.add(refusal("log role cannot read", target, false, "SELECT count(*) FROM bills"));
    checks.add(attempt("tables visible to the agent", () -> {
      try (Connection c = target.roConnection()) {
        return value(c, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' "
            + "AND has_table_privilege(table_schema || '.' || table_name, 'SELECT')");
      }
    }));
    checks.add(attempt("rows in bills", () -> {
      try (Connection c = target.roConnection()) {
        return value(c, "SELECT count(*) FROM bills");
      }
    }));
    checks.add(attempt("rows in bill_archive", () -> {
      try (Connection c = target.roConnection()) {
        return value(c, "SELECT count(*) FROM bill_archive");
      }
    }));
    return checks;
  }

  private interface Attempt {
    String run() throws SQLException;
  }

  private static Check attempt(String name, Attempt a) {
    try {
      return new Check(name, true, a.run());
    } catch (SQLException e) {
      return new Check(name, false, "failed: " + e.getSQLState() + " " + e.getMessage());
    }
  }

  /** The statement must be refused; the SQLSTATE it was refused with is the evidence. */
  private static Check refusal(String name, DbTarget target, boolean asAgent, String sql) {
    try (Connection c = asAgent ? target.roConnection() : target.logConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute(sql);
        c.rollback();
        return new Check(name, false, "NOT refused: `" + sql + "` ran (rolled back)");
      } catch (SQLException refused) {
        c.rollback();
        return new Check(name, true, "refused with SQLSTATE " + refused.getSQLState() + " (" + firstLine(refused) + ")");
      }
    } catch (SQLException e) {
      return new Check(name, false, "cannot connect: " + e.getMessage());
    }
  }

  private static String firstLine(SQLException e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private static String value(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The checks as an aligned table. */
  public static String table(List<Check> checks) {
    int w = checks.stream().mapToInt(c -> c.name().length()).max().orElse(10);
    StringBuilder b = new StringBuilder();
    for (Check c : checks) {
      b.append(String.format("%-" + w + "s  %-4s  %s%n", c.name(), c.ok() ? "ok" : "FAIL", c.detail()));
    }
    return b.toString();
  }
}
