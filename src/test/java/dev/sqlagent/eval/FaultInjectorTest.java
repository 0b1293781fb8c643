package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sqlagent.eval.FaultInjector.Fault;
import dev.sqlagent.eval.FaultInjector.FaultType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class FaultInjectorTest {

  static final FaultInjector F = ShopColumns.INJECTOR;
  static TestGate db;

  @BeforeAll
  static void open() throws Exception {
    db = TestGate.start();
  }

  @AfterAll
  static void close() throws Exception {
    db.close();
  }

  static List<String> mutations(String sql, FaultType type) {
    return F.candidates(sql, type).stream().map(Fault::mutatedSql).toList();
  }

  // ---- each mutation, on SQL written for it --------------------------------------------------------

  @Test
  void wrongCaseLowersAPositiveStatusFilter() {
    assertThat(mutations("SELECT bill_no FROM bills WHERE status = 'PAID'", FaultType.WRONG_CASE_STATUS))
        .containsExactly("SELECT bill_no FROM bills WHERE status = 'paid'");
    assertThat(mutations("SELECT emp_id, count(*) FROM bills WHERE status = 'PAID' GROUP BY emp_id",
        FaultType.WRONG_CASE_STATUS)).containsExactly("SELECT emp_id, count(*) FROM bills WHERE status = 'paid' GROUP BY emp_id");
    assertThat(mutations("SELECT bill_no FROM bills b WHERE 'CANCELLED' = b.status", FaultType.WRONG_CASE_STATUS))
        .containsExactly("SELECT bill_no FROM bills b WHERE 'cancelled' = b.status");
    assertThat(mutations("SELECT 1 FROM bills WHERE status IN ('PAID', 'PARTIAL')", FaultType.WRONG_CASE_STATUS))
        .containsExactly("SELECT 1 FROM bills WHERE status IN ('paid', 'partial')");
  }

  @Test
  void wrongCaseLeavesFiltersWhoseMistakeWouldNotShow() {
    // A negative filter or a literal in the SELECT list does not empty the result: no foothold.
    assertThat(mutations("SELECT count(*) FROM bills WHERE status <> 'CANCELLED'", FaultType.WRONG_CASE_STATUS)).isEmpty();
    assertThat(mutations("SELECT count(*) FILTER (WHERE status = 'PAID') FROM bills", FaultType.WRONG_CASE_STATUS)).isEmpty();
    assertThat(mutations("SELECT 1 FROM bills WHERE status NOT IN ('PAID')", FaultType.WRONG_CASE_STATUS)).isEmpty();
    assertThat(mutations("SELECT 1 FROM categories WHERE cat_name = 'PAINT'", FaultType.WRONG_CASE_STATUS)).isEmpty();
    // Where the result would not come back empty: a count over nothing is still a row, and so is an outer
    // query over an emptied subquery.
    assertThat(mutations("SELECT count(*) FROM bills WHERE status = 'PAID'", FaultType.WRONG_CASE_STATUS)).isEmpty();
    assertThat(mutations("SELECT sum(total_amt) FROM bills WHERE bill_id IN (SELECT bill_id FROM payments "
        + "WHERE pay_mode = 'UPI')", FaultType.WRONG_CASE_STATUS)).isEmpty();
  }

  @Test
  void droppedAliasOnlyWhereTheColumnIsShared() {
    String sql = "SELECT b.bill_no, bi.qty FROM bills b JOIN bill_items bi ON bi.bill_id = b.bill_id WHERE b.bill_id < 5";
    assertThat(mutations(sql, FaultType.AMBIGUOUS_COLUMN)).containsExactly(
        // ON bi.bill_id: both tables are visible there
        "SELECT b.bill_no, bi.qty FROM bills b JOIN bill_items bi ON bill_id = b.bill_id WHERE b.bill_id < 5",
        "SELECT b.bill_no, bi.qty FROM bills b JOIN bill_items bi ON bi.bill_id = bill_id WHERE b.bill_id < 5",
        "SELECT b.bill_no, bi.qty FROM bills b JOIN bill_items bi ON bi.bill_id = b.bill_id WHERE bill_id < 5");
    // USING merges the column: dropping the alias would not be ambiguous.
    assertThat(mutations("SELECT b.bill_id FROM bills b JOIN bill_items bi USING (bill_id)", FaultType.AMBIGUOUS_COLUMN))
        .isEmpty();
  }

  @Test
  void misspellingNamesTheColumnTheWayEnglishWould() {
    assertThat(mutations("SELECT min(bill_dt) FROM bills", FaultType.MISSPELLED_COLUMN))
        .containsExactly("SELECT min(bill_date) FROM bills");
    assertThat(mutations("SELECT sum(b.total_amt) FROM bills b", FaultType.MISSPELLED_COLUMN))
        .containsExactly("SELECT sum(b.total_amount) FROM bills b");
    assertThat(FaultInjector.misspell("status")).isEqualTo("stats");
    // Never a name that exists: cust_name would become customer_name, which is no column either way.
    assertThat(ShopColumns.SHOP.isColumnAnywhere(FaultInjector.misspell("cust_name"))).isFalse();
  }

  @Test
  void groupByLosesAColumnTheSelectListStillUses() {
    assertThat(mutations("SELECT role, count(*) FROM employees GROUP BY role", FaultType.GROUP_BY_MISSING))
        .containsExactly("SELECT role, count(*) FROM employees");
    assertThat(mutations("SELECT c.cat_name, p.unit, count(*) FROM products p JOIN categories c ON c.cat_id = p.cat_id "
        + "GROUP BY c.cat_name, p.unit", FaultType.GROUP_BY_MISSING)).containsExactly(
            "SELECT c.cat_name, p.unit, count(*) FROM products p JOIN categories c ON c.cat_id = p.cat_id GROUP BY p.unit",
            "SELECT c.cat_name, p.unit, count(*) FROM products p JOIN categories c ON c.cat_id = p.cat_id GROUP BY c.cat_name");
    // Grouping by the primary key lets PostgreSQL accept the name without it: only the key can go.
    assertThat(mutations("SELECT e.emp_name, count(*) FROM bills b JOIN employees e ON e.emp_id = b.emp_id "
        + "GROUP BY e.emp_id, e.emp_name", FaultType.GROUP_BY_MISSING)).isEmpty();
  }

  @Test
  void windowFilterMovesIntoWhere() {
    String sql = "SELECT prod_name FROM (SELECT prod_name, rank() OVER (ORDER BY sell_price DESC) AS rk FROM products) r "
        + "WHERE rk = 1";
    assertThat(mutations(sql, FaultType.WINDOW_IN_WHERE)).containsExactly(
        "SELECT prod_name FROM (SELECT prod_name, rank() OVER (ORDER BY sell_price DESC) AS rk FROM products "
            + "WHERE rank() OVER (ORDER BY sell_price DESC) = 1) r WHERE rk = 1");
    assertThat(mutations("SELECT emp_name, sum(salary) OVER (ORDER BY emp_id) FROM employees WHERE salary > 0",
        FaultType.WINDOW_IN_WHERE)).containsExactly("SELECT emp_name, sum(salary) OVER (ORDER BY emp_id) FROM employees "
            + "WHERE (sum(salary) OVER (ORDER BY emp_id)) IS NOT NULL AND (salary > 0)");
  }

  @Test
  void noFaultWhenNothingApplies() {
    assertThat(F.applicable("SELECT count(*) FROM bills")).isEmpty();
    assertThat(F.choose("SELECT count(*) FROM bills", "s01")).isEmpty();
    assertThat(F.choose("", "x")).isEmpty();
  }

  @Test
  void theChoiceIsDeterministicByKeyAndRecorded() {
    String sql = "SELECT role, count(*) FROM employees WHERE role = 'CASHIER' GROUP BY role";
    Optional<Fault> a = F.choose(sql, "q7");
    assertThat(a).isPresent();
    assertThat(F.choose(sql, "q7")).isEqualTo(a);
    assertThat(a.get().originalSql()).isEqualTo(sql);
    assertThat(a.get().mutatedSql()).isNotEqualTo(sql);
    assertThat(a.get().toJson().getString("type")).isEqualTo(a.get().type().wireName());
    // Different keys spread over the applicable types; the misspelling, which fits almost anything, is
    // left to queries where nothing else applies.
    Map<FaultType, Integer> seen = new EnumMap<>(FaultType.class);
    for (int i = 0; i < 200; i++) seen.merge(F.choose(sql, "q" + i).orElseThrow().type(), 1, Integer::sum);
    assertThat(F.applicable(sql).keySet()).contains(FaultType.MISSPELLED_COLUMN);
    assertThat(seen.keySet()).containsExactlyInAnyOrder(FaultType.WRONG_CASE_STATUS, FaultType.GROUP_BY_MISSING);
    assertThat(F.choose("SELECT max(sell_price) FROM products", "q1").orElseThrow().type())
        .isEqualTo(FaultType.MISSPELLED_COLUMN);
  }

  // ---- every mutation of every gold query fails the intended way on the real database -------------

  @TestFactory
  Stream<DynamicTest> everyMutationOfEveryGoldQueryFailsAsIntended() {
    List<DynamicTest> tests = new ArrayList<>();
    for (Question q : QuestionSet.shipped()) {
      for (String gold : q.goldSql()) {
        F.applicable(gold).forEach((type, faults) -> {
          for (Fault f : faults) {
            tests.add(DynamicTest.dynamicTest(q.id() + " " + type.wireName() + ": " + f.detail(),
                () -> assertFailsAsIntended(gold, f)));
          }
        });
      }
    }
    return tests.stream();
  }

  @Test
  void everyFaultTypeIsExercisedByTheShippedGoldQueries() {
    Map<FaultType, Integer> types = new EnumMap<>(FaultType.class);
    for (Question q : QuestionSet.shipped()) {
      for (String gold : q.goldSql()) F.applicable(gold).keySet().forEach(t -> types.merge(t, 1, Integer::sum));
    }
    assertThat(types.keySet()).containsExactlyInAnyOrder(FaultType.values());
  }

  private static void assertFailsAsIntended(String gold, Fault f) throws Exception {
    if (f.type().expectedSqlState() != null) {
      try {
        db.run(f.mutatedSql());
        fail("expected SQLSTATE " + f.type().expectedSqlState() + " from: " + f.mutatedSql());
      } catch (Grader.QueryFailedException e) {
        assertThat(e.sqlState()).as(f.mutatedSql() + " failed with: " + e.getMessage())
            .isEqualTo(f.type().expectedSqlState());
      }
      return;
    }
    // Wrong case: the query runs and returns no rows, where the gold query returns some.
    assertThat(db.run(gold).rows()).isNotEmpty();
    assertThat(db.run(f.mutatedSql()).rows()).as(f.mutatedSql()).isEmpty();
  }
}
