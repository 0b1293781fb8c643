package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every gold query of the shipped set runs as sql_agent_ro, returns rows, and its alternatives agree. */
class GoldSqlTest {

  static GoldExecutor gold;

  @BeforeAll
  static void open() {
    gold = new GoldExecutor(TestDatabase.get().target());
  }

  @AfterAll
  static void close() {
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

  @Test
  void goldQueriesRunReadOnly() {
    assertThatThrownBy(() -> gold.run("UPDATE employees SET salary = salary * 2"))
        .isInstanceOf(GoldExecutor.QueryFailedException.class)
        .satisfies(e -> assertThat(((GoldExecutor.QueryFailedException) e).sqlState()).isIn("25006", "42501"));
    assertThatThrownBy(() -> gold.run("SELECT 1; DELETE FROM bills"))
        .hasMessageContaining("more than one statement");
  }

  @Test
  void goldQueriesAreNotCapped() throws Exception {
    assertThat(gold.run("SELECT bill_id FROM bills").rows()).hasSize(1_400);
  }

  @Test
  void aFailedQueryLeavesTheConnectionUsable() throws Exception {
    assertThatThrownBy(() -> gold.run("SELECT nope FROM bills"))
        .satisfies(e -> assertThat(((GoldExecutor.QueryFailedException) e).sqlState()).isEqualTo("42703"));
    assertThat(gold.run("SELECT count(*) FROM bills").rows()).hasSize(1);
  }
}
