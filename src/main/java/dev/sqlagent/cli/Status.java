package dev.sqlagent.cli;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.ReadOnlyProof;
import dev.sqlagent.db.Target;
import dev.sqlagent.learn.StatStatements;
import dev.sqlagent.state.StateStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What is true of both databases right now, each line attempted rather than assumed: connections are made,
 * the agent role's read-only proofs are read from the target's catalogue (nothing is written there), the
 * relations it can read are discovered, and the log role's limits are tried in the state store.
 */
public final class Status {

  /** One attempted check: what was tried, whether the outcome was the safe one, and what came back. */
  public record Check(String name, boolean ok, String detail) {}

  private Status() {}

  public static List<Check> run(Target target, StateStore state, List<String> schemas) {
    List<Check> checks = new ArrayList<>();
    checks.add(attempt("target connection (agent role)", () -> {
      try (Connection c = target.roConnection()) {
        return value(c, "SELECT current_user || ' on ' || current_database() || ', PostgreSQL '"
            + " || current_setting('server_version') || ', default_transaction_read_only='"
            + " || current_setting('default_transaction_read_only')");
      }
    }));
    try (Connection c = target.roConnection()) {
      ReadOnlyProof.Report report = ReadOnlyProof.check(c, schemas.isEmpty() ? null : schemas);
      for (ReadOnlyProof.Proof p : report.proofs()) checks.add(new Check("read-only: " + p.name(), p.ok(), p.detail()));
      for (String w : report.warnings()) checks.add(new Check("warning", true, w));
      report.refusal().ifPresent(r -> checks.add(new Check("read-only role", false, r)));
    } catch (SQLException e) {
      checks.add(new Check("read-only proofs", false, "failed: " + e.getSQLState() + " " + e.getMessage()));
    }
    try {
      Catalogue cat = Discovery.readBlocking(target.roOptions(), schemas);
      long schemaCount = cat.tables().stream().map(t -> t.schema()).distinct().count();
      checks.add(new Check("relations the agent can read", !cat.tables().isEmpty(), cat.tables().size()
          + " in " + schemaCount + " schema(s) of " + cat.database() + (schemas.isEmpty() ? "" : " (SQLAGENT_SCHEMAS="
          + String.join(",", schemas) + ")") + (cat.hidden().isEmpty() ? "" : "; " + cat.hidden().stream()
          .filter(h -> h.contains(".")).count() + " more it may not read")));
    } catch (Exception e) {
      // The reactive client's own words ("Postgres Server does not handle SSL connection") say less than ours.
      checks.add(new Check("relations the agent can read", false, "discovery failed: "
          + dev.sqlagent.db.ConnectFailure.describe(e, target.url())));
    }
    // Learning from the workload reads pg_stat_statements when the agent role may: say whether it may, and what
    // enables it. Informational: learning goes on without it (the query log, the verified queries), so never a failure.
    try (Connection c = target.roConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery(StatStatements.ACCESS)) {
      rs.next();
      checks.add(new Check("pg_stat_statements (learning)", true, StatStatements.describe(rs.getBoolean("installed"),
          rs.getString("schema"), rs.getString("preload"), rs.getBoolean("all_stats"), rs.getString("role")).detail()));
    } catch (SQLException e) {
      checks.add(new Check("pg_stat_statements (learning)", true, "not checked: " + e.getSQLState() + " " + e.getMessage()));
    }
    checks.add(attempt("state store connection", () -> {
      try (Connection c = state.ownerConnection()) {
        return value(c, "SELECT current_user || ' on ' || current_database() || ', version '"
            + " || (SELECT coalesce(max(version), 0) FROM state_version)");
      }
    }));
    try {
      for (String p : state.proveLogRole()) checks.add(new Check("log role", true, p));
    } catch (RuntimeException e) {
      checks.add(new Check("log role", false, e.getMessage()));
    }
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
