package dev.sqlagent.querylog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.db.SqlScript;
import dev.sqlagent.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The monitoring queries in db/state/query_log.sql run, and setup never runs them; the agent role cannot read the log. */
class QueryLogMonitoringTest {

  static final TestDatabase DB = TestDatabase.get();

  /** The commented queries after the MONITORING marker: each from "-- SELECT" to the line ending in ";". */
  static List<String> monitoringQueries() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("db/state/query_log.sql"));
    int start = -1;
    for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains("MONITORING QUERIES")) start = i;
    assertThat(start).as("the MONITORING QUERIES section").isPositive();
    List<String> queries = new ArrayList<>();
    StringBuilder cur = null;
    for (String l : lines.subList(start, lines.size())) {
      if (cur == null && l.startsWith("-- SELECT")) cur = new StringBuilder();
      if (cur == null) continue;
      assertThat(l).as("a commented query line").startsWith("-- ");
      cur.append(l.substring(3)).append('\n');
      if (l.strip().endsWith(";")) {
        queries.add(cur.toString().strip().replaceAll(";$", ""));
        cur = null;
      }
    }
    return queries;
  }

  @Test
  void everyMonitoringQueryRunsAgainstTheLog() throws Exception {
    List<String> queries = monitoringQueries();
    assertThat(queries).hasSizeGreaterThanOrEqualTo(4);
    assertThat(String.join("\n", queries)).contains("attempts_used > 1").contains("unnest(l.error_types)")
        .contains("give_up_rate").contains("refusal_rate").contains("cost_per_question");
    try (Connection c = DB.state().ownerConnection(); Statement s = c.createStatement()) {
      for (String q : queries) {
        try (ResultSet rs = s.executeQuery(q)) {
          assertThat(rs.getMetaData().getColumnCount()).as(q).isPositive();
        }
      }
    }
  }

  @Test
  void setupExecutesNoneOfThem() {
    List<String> executed = SqlScript.load("state/query_log.sql", java.util.Map.of());
    assertThat(executed).noneMatch(s -> s.toUpperCase().startsWith("SELECT"));
    assertThat(executed).anyMatch(s -> s.startsWith("CREATE TABLE IF NOT EXISTS agent_query_log"));
  }

  @Test
  void neitherRoleCanReadTheLog() throws Exception {
    // The agent role cannot even connect to the state store (no CONNECT for PUBLIC there), nor see a log in the target.
    assertThatThrownBy(() -> DB.state().owner().withUser(DB.target().role(), DB.target().url().password()).connect("test"))
        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
    try (Connection ro = DB.target().roConnection(); Statement s = ro.createStatement()) {
      assertThatThrownBy(() -> s.executeQuery("SELECT count(*) FROM agent_query_log"))
          .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42P01"));
    }
    try (Connection log = DB.state().logConnection(); Statement s = log.createStatement()) {
      assertThatThrownBy(() -> s.executeQuery("SELECT count(*) FROM agent_query_log"))
          .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
    }
  }
}
