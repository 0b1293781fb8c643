package dev.sqlagent.explain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The plain-English account of a query, from its parse alone. */
class SqlExplanationTest {

  @Test
  void namesTablesJoinsFiltersGroupsOrderAndLimit() {
    String text = SqlExplanation.of("SELECT c.region, sum(o.amount) AS revenue FROM orders o JOIN clients c ON c.id = o.client_id"
        + " WHERE o.placed_at >= '2025-01-01' AND o.status = 'PAID' GROUP BY c.region HAVING sum(o.amount) > 100"
        + " ORDER BY revenue DESC LIMIT 10");
    assertThat(text).isEqualTo("Reads orders (as o), join clients (as c) on c.id = o.client_id."
        + " Keeps rows where o.placed_at >= '2025-01-01' AND o.status = 'PAID'."
        + " Groups by c.region."
        + " Keeps groups where sum(o.amount) > 100."
        + " Returns c.region and revenue (sum(o.amount))."
        + " Sorts by revenue descending."
        + " Returns at most 10 rows.");
  }

  @Test
  void leftJoinsDistinctWithAndUnions() {
    assertThat(SqlExplanation.of("SELECT DISTINCT p.name FROM products p LEFT JOIN stock s USING (product_id)"))
        .isEqualTo("Reads products (as p), left join stock (as s) using [product_id]. Returns distinct rows of p.name.");
    assertThat(SqlExplanation.of("WITH busy AS (SELECT client_id, count(*) AS n FROM orders GROUP BY 1)"
        + " SELECT * FROM busy ORDER BY n DESC"))
        .isEqualTo("First builds busy (WITH), then: Reads busy. Returns *. Sorts by n descending.");
    assertThat(SqlExplanation.of("SELECT a FROM t1 UNION SELECT a FROM t2 ORDER BY 1"))
        .isEqualTo("Combines 2 queries (UNION). Sorts by 1.");
    assertThat(SqlExplanation.of("SELECT now()")).isEqualTo("Computes values without reading a table. Returns now().");
  }

  @Test
  void whatCannotBeParsedHasNoAccount() {
    assertThat(SqlExplanation.of("SELEC nothing")).isNull();
    assertThat(SqlExplanation.of(null)).isNull();
    assertThat(SqlExplanation.of("DELETE FROM t")).isNull();
  }

  @Test
  void longExpressionsAreCut() {
    String text = SqlExplanation.of("SELECT x FROM t WHERE " + "a = 1 AND ".repeat(40) + "b = 2");
    assertThat(text).contains("…").hasSizeLessThan(200);
  }
}
