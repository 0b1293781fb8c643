package dev.sqlagent.cli;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.Probes;
import dev.sqlagent.catalogue.ReadOnlyProof;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Target;
import dev.sqlagent.policy.SensitiveColumns;
import dev.sqlagent.policy.SensitiveSuggestions;
import dev.sqlagent.state.StateStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    return run(target, state, schemas, (schema, name) -> false);
  }

  /** The same, with the functions SQLAGENT_ACCEPT_EXECUTABLE accepts as executable by the role. */
  public static List<Check> run(Target target, StateStore state, List<String> schemas,
      java.util.function.BiPredicate<String, String> accepted) {
    List<Check> checks = new ArrayList<>();
    checks.add(attempt("target connection (agent role)", () -> Probes.server(target)));
    try {
      ReadOnlyProof.Report report = Probes.proof(target, schemas, 0, accepted);
      for (ReadOnlyProof.Proof p : report.proofs()) checks.add(new Check("read-only: " + p.name(), p.ok(), p.detail()));
      for (String w : report.warnings()) {
        checks.add(new Check(report.accepted().contains(w) ? "executable, guarded by the gate alone" : "warning", true, w));
      }
      for (String u : report.unacceptable()) checks.add(new Check("SQLAGENT_ACCEPT_EXECUTABLE", false, u));
      report.refusal().ifPresent(r -> checks.add(new Check("read-only role", false, r)));
    } catch (SQLException e) {
      checks.add(new Check("read-only proofs", false, "failed: " + e.getSQLState() + " " + e.getMessage()));
    }
    try {
      Catalogue cat = Discovery.readBlocking(target, schemas);
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
    try {
      checks.add(new Check("pg_stat_statements (learning)", true, Probes.statStatements(target).detail()));
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

  /** Whether the checks of {@link #run} proved the agent role read-only: only then does status read any data. */
  public static boolean provenReadOnly(List<Check> checks) {
    List<Check> proofs = checks.stream().filter(c -> c.name().startsWith("read-only")).toList();
    return !proofs.isEmpty() && proofs.stream().allMatch(Check::ok);
  }

  /** Tables and values read for the suggestions: enough to see what a column holds, little enough to stay quick. */
  static final int SUGGEST_TABLES = 200;
  static final int SUGGEST_ROWS = 20;
  static final int SUGGEST_CHARS = 100;

  /** {@link #policy(Target, AppConfig, boolean)} after proving the role read-only here. */
  public static List<Check> policy(Target target, AppConfig config) {
    boolean proven;
    try {
      proven = Probes.proof(target, config.schemas(), 0, config::acceptsExecutable).readOnly();
    } catch (SQLException e) {
      proven = false;
    }
    return policy(target, config, proven);
  }

  /**
   * The data policy: what the model is sent ({@code SQLAGENT_MODEL_SEES}), the notes file's sensitive columns (a pattern
   * that matches nothing fails), and the columns that look sensitive but are not marked, each a suggestion for a person
   * to confirm in the notes file, never applied. The values are read through the one door to the target's data
   * ({@link TargetReader}), a few rows of each table; when the role was not proven read-only ({@code provenReadOnly}
   * false) nothing but the catalogue is read, and the suggestions come from the columns' names alone.
   */
  public static List<Check> policy(Target target, AppConfig config, boolean provenReadOnly) {
    List<Check> checks = new ArrayList<>();
    checks.add(new Check("data policy", true, "SQLAGENT_MODEL_SEES=" + config.modelSees().wireName() + ": the model is sent "
        + config.modelSees().sends()));
    Catalogue cat;
    try {
      cat = Discovery.readBlocking(target, config.schemas());
    } catch (Exception e) {
      checks.add(new Check("sensitive columns", false, "discovery failed: " + dev.sqlagent.db.ConnectFailure.describe(e, target.url())));
      return checks;
    }
    SensitiveColumns sensitive = SensitiveColumns.of(config.notes(), cat);
    checks.add(new Check("sensitive columns", true, sensitive.isEmpty() ? "none marked in the notes file"
        : sensitive.count() + ": " + String.join(", ", sensitive.toJson().stream().map(o -> (io.vertx.core.json.JsonObject) o)
            .map(o -> o.getString("table") + "." + o.getString("column") + " (" + o.getString("mask") + ")").toList())));
    for (String p : sensitive.unmatchedPatterns(cat)) {
      checks.add(new Check("sensitive pattern", false, "'" + p + "' in the notes file matches no column: a typo?"));
    }
    List<TableInfo> tables = new ArrayList<>();
    List<TargetReader.Read> reads = new ArrayList<>();
    for (TableInfo t : cat.tables()) {
      if (tables.size() >= SUGGEST_TABLES) break;
      List<TableInfo.Column> cols = sensitive.without(t).columns();
      if (cols.isEmpty()) continue;
      tables.add(t);
      if (provenReadOnly && cols.stream().anyMatch(Status::holdsText)) {
        reads.add(new TargetReader.Rows(t, cols.stream().map(c -> holdsText(c) ? c.name() : null).toList(),
            SUGGEST_ROWS, SUGGEST_CHARS));
      }
    }
    Map<TableInfo, List<List<String>>> read = new HashMap<>();
    if (!provenReadOnly) {
      checks.add(new Check("sensitive suggestions", true, "from the columns' names only: the agent role was not proven "
          + "read-only, so no values were read"));
    } else if (!reads.isEmpty()) {
      try {
        for (TargetReader.Outcome o : TargetReader.readBlocking(target,
            new TargetReader.Timeouts(Math.max(100, config.statementTimeoutMs()), config.lockTimeoutMs()), cat, reads)) {
          if (o.ok()) read.put(o.read().table(), o.rows());
          if (o.skipped() != null) checks.add(new Check("not read: " + o.read().table().name(), true, o.skipped()));
        }
      } catch (RuntimeException e) {
        checks.add(new Check("sensitive suggestions", false, "failed: " + dev.sqlagent.db.ConnectFailure.describe(e, target.url())));
      }
    }
    for (TableInfo t : tables) {
      List<TableInfo.Column> cols = sensitive.without(t).columns();
      List<List<String>> rows = read.getOrDefault(t, List.of());
      for (int i = 0; i < cols.size(); i++) {
        List<String> values = new ArrayList<>();
        for (List<String> row : rows) if (row.get(i) != null) values.add(row.get(i));
        SensitiveSuggestions.of(t.name(), cols.get(i).name(), values).ifPresent(sg ->
            checks.add(new Check("looks sensitive: " + sg.table() + "." + sg.column(), true, sg.why()
                + "; if so, mark it in the notes file: " + sg.notesEntry())));
      }
    }
    return checks;
  }

  /** Columns whose values may be e-mail addresses, phone, card or id numbers: text, and whole numbers. */
  private static boolean holdsText(TableInfo.Column c) {
    String t = c.type() == null ? "" : c.type().toLowerCase(java.util.Locale.ROOT);
    return t.contains("char") || t.contains("text") || t.equals("bigint") || t.startsWith("numeric") && !t.contains(",");
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
