package dev.sqlagent.eval;

import dev.sqlagent.results.QueryResult;
import dev.sqlagent.results.ResultComparator;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.TestDatabase;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every gold query of the shipped set runs through the gate's grading mode as sql_agent_ro, returns rows, and its
 * alternatives agree; and it grades to the same values as a direct read of the same SQL.
 */
class GoldSqlTest {

  static TestGate gold;

  @BeforeAll
  static void open() throws Exception {
    gold = TestGate.start();
  }

  @AfterAll
  static void close() throws Exception {
    gold.close();
  }

  @TestFactory
  Stream<DynamicTest> everyGoldQueryRunsReturnsRowsAndAgreesWithItsAlternatives() {
    return QuestionSet.shipped().stream().filter(Question::answerable).map(q -> DynamicTest.dynamicTest(q.id(), () -> {
      List<QueryResult> results = new ArrayList<>();
      for (String sql : q.goldSql()) {
        QueryResult r = gold.run(sql);
        assertThat(r.rows()).as("%s returns at least one row: %s", q.id(), sql).isNotEmpty();
        results.add(r);
      }
      for (int i = 1; i < results.size(); i++) {
        var c = ResultComparator.compare(results.get(0), results.get(i), q.orderMatters());
        assertThat(c.match()).as("%s: gold alternative %d agrees with the first (%s)", q.id(), i + 1, c.reason())
            .isEqualTo(ResultComparator.Match.EXACT);
      }
    }));
  }

  /**
   * The grading mode changes nothing about grading: for every shipped gold query, its result through the gate
   * holds, cell for cell as the comparator normalises them, exactly what a direct JDBC read of the same SQL holds
   * (the route the harness took before the gate had a grading mode), with the same column names and types.
   */
  @TestFactory
  Stream<DynamicTest> everyGoldQueryGradesAsADirectReadDoes() {
    return QuestionSet.shipped().stream().filter(Question::answerable)
        .flatMap(q -> q.goldSql().stream().map(sql -> DynamicTest.dynamicTest(q.id(), () -> {
          QueryResult viaGate = gold.run(sql);
          QueryResult direct = directRead(sql);
          assertThat(viaGate.columns()).extracting(QueryResult.Column::name)
              .containsExactlyElementsOf(direct.columns().stream().map(QueryResult.Column::name).toList());
          assertThat(viaGate.columns()).extracting(c -> c.type().replace("[]", ""))
              .containsExactlyElementsOf(direct.columns().stream().map(c -> jdbcType(c.type())).toList());
          assertThat(viaGate.rows()).hasSameSizeAs(direct.rows());
          var c = ResultComparator.compare(direct, viaGate, q.orderMatters());
          assertThat(c.match()).as("%s: %s (%s)", q.id(), sql, c.reason()).isEqualTo(ResultComparator.Match.EXACT);
          // Position for position, too: the same cells in the same columns.
          for (int col = 0; col < direct.width(); col++) assertThat(c.mapping()[col]).isEqualTo(col);
        })));
  }

  @Test
  void goldQueriesRunReadOnlyAndAlone() {
    assertThatThrownBy(() -> gold.run("UPDATE employees SET salary = salary * 2"))
        .isInstanceOf(Grader.QueryFailedException.class)
        .satisfies(e -> assertThat(((Grader.QueryFailedException) e).errorType()).isEqualTo("rejected"));
    assertThatThrownBy(() -> gold.run("SELECT 1; DELETE FROM bills"))
        .isInstanceOf(Grader.QueryFailedException.class)
        .hasMessageContaining("More than one statement");
  }

  @Test
  void goldQueriesAreNotCapped() throws Exception {
    assertThat(gold.run("SELECT bill_id FROM bills").rows()).hasSize(1_400);
  }

  @Test
  void aFailedQueryLeavesTheGateUsable() throws Exception {
    assertThatThrownBy(() -> gold.run("SELECT nope FROM bills"))
        .satisfies(e -> assertThat(((Grader.QueryFailedException) e).sqlState()).isEqualTo("42703"));
    assertThat(gold.run("SELECT count(*) FROM bills").rows()).hasSize(1);
  }

  /** The harness's former route, kept here only to compare with: JDBC as sql_agent_ro, read-only, rolled back. */
  static QueryResult directRead(String sql) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection()) {
      c.setAutoCommit(false);
      c.setReadOnly(true);
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
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
      } finally {
        c.rollback();
      }
    }
  }

  /** JDBC's name for a column's type as PostgreSQL names it: arrays as _type, serial columns as serial. */
  private static String jdbcType(String type) {
    return switch (type) {
      case "serial" -> "int4";
      case "bigserial" -> "int8";
      case "smallserial" -> "int2";
      default -> type.replaceFirst("^_", "");
    };
  }

  private static Object value(ResultSet rs, int i, String type) throws Exception {
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
}
