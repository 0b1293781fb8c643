package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The row cap on PostgreSQL's tokens: in place where the limit is a number, from outside otherwise. */
class RowBoundTest {

  private static RowBound.Bounded bound(String sql, int cap) throws Exception {
    return RowBound.apply(sql, PgLexer.lex(sql).tokens(), cap);
  }

  @Test
  void missingLimitBecomesTheCap() throws Exception {
    var b = bound("SELECT * FROM bills;", 200);
    assertThat(b.sql()).isEqualTo("SELECT * FROM bills LIMIT 200");
    assertThat(b.executed()).isEqualTo("SELECT * FROM bills LIMIT 201");
    assertThat(b.capped()).isTrue();
    assertThat(bound("SELECT *\nFROM bills -- all of them", 200).sql()).isEqualTo("SELECT *\nFROM bills\nLIMIT 200");
  }

  @Test
  void smallerLimitStaysAndLargerBecomesTheCap() throws Exception {
    var small = bound("SELECT * FROM bills LIMIT 10", 200);
    assertThat(small.sql()).isEqualTo("SELECT * FROM bills LIMIT 10");
    assertThat(small.executed()).isEqualTo(small.sql());
    assertThat(small.capped()).isFalse();
    var large = bound("SELECT * FROM bills ORDER BY 1 LIMIT 5000 OFFSET 3", 200);
    assertThat(large.sql()).isEqualTo("SELECT * FROM bills ORDER BY 1 LIMIT 200 OFFSET 3");
    assertThat(large.executed()).isEqualTo("SELECT * FROM bills ORDER BY 1 LIMIT 201 OFFSET 3");
    assertThat(bound("SELECT 1 LIMIT 99999999999999999999999", 200).sql()).isEqualTo("SELECT 1 LIMIT 200");
  }

  @Test
  void limitAllAndNullBecomeTheCap() throws Exception {
    assertThat(bound("SELECT * FROM bills LIMIT ALL", 200).sql()).isEqualTo("SELECT * FROM bills LIMIT 200");
    assertThat(bound("SELECT * FROM bills LIMIT NULL", 50).executed()).isEqualTo("SELECT * FROM bills LIMIT 51");
  }

  @Test
  void offsetWithoutLimitGetsOne() throws Exception {
    assertThat(bound("SELECT * FROM bills OFFSET 5", 200).sql()).isEqualTo("SELECT * FROM bills OFFSET 5 LIMIT 200");
  }

  @Test
  void fetchFirstIsReadLikeLimit() throws Exception {
    assertThat(bound("SELECT * FROM bills FETCH FIRST 5 ROWS ONLY", 200).capped()).isFalse();
    assertThat(bound("SELECT * FROM bills FETCH NEXT 500 ROWS ONLY", 200).sql())
        .isEqualTo("SELECT * FROM bills FETCH NEXT 200 ROWS ONLY");
    assertThat(bound("SELECT * FROM bills OFFSET 2 ROWS FETCH FIRST ROW ONLY", 200).sql())
        .isEqualTo("SELECT * FROM bills OFFSET 2 ROWS FETCH FIRST ROW ONLY");
  }

  @Test
  void expressionsParametersSubqueriesAndTiesAreBoundedFromOutside() throws Exception {
    for (String sql : new String[] {
        "SELECT * FROM bills LIMIT (SELECT 5)", "SELECT * FROM bills LIMIT $1", "SELECT * FROM bills LIMIT 2 + 3",
        "SELECT * FROM bills ORDER BY total_amt FETCH FIRST 5 ROWS WITH TIES", "SELECT * FROM bills LIMIT -1",
        "SELECT * FROM bills LIMIT 1.5"}) {
      var b = bound(sql, 200);
      assertThat(b.wrapped()).as(sql).isTrue();
      assertThat(b.sql()).isEqualTo("SELECT * FROM (\n" + sql + "\n) AS q LIMIT 200");
      assertThat(b.executed()).endsWith(") AS q LIMIT 201");
    }
  }

  @Test
  void nestedLimitsAreLeftAlone() throws Exception {
    var b = bound("SELECT * FROM (SELECT * FROM bills LIMIT 5000) s WHERE bill_id > 3", 200);
    assertThat(b.sql()).isEqualTo("SELECT * FROM (SELECT * FROM bills LIMIT 5000) s WHERE bill_id > 3 LIMIT 200");
    var union = bound("SELECT bill_id FROM bills UNION ALL SELECT bill_id FROM bill_archive LIMIT 10", 200);
    assertThat(union.capped()).isFalse();
  }

  @Test
  void positionsMapBackToTheSubmittedText() throws Exception {
    String sql = "SELECT * FROM bills LIMIT (SELECT 5)";
    var b = bound(sql, 200);
    assertThat(b.toSubmitted(RowBound.WRAP_PREFIX.length() + 8, sql.length())).isEqualTo(8);
    var inPlace = bound("SELECT nope FROM bills", 200);
    assertThat(inPlace.toSubmitted(8, 22)).isEqualTo(8);
  }

  private static String lift(String sql) throws Exception {
    return RowBound.lift(sql, PgLexer.lex(sql).tokens());
  }

  @Test
  void liftTakesOffTheCapOfAnAnswerThatItCut() throws Exception {
    // The cap the gate appended, or lowered, becomes LIMIT ALL: the export's own cap bounds it again.
    String appended = bound("SELECT * FROM bills ORDER BY 1", 200).sql();
    assertThat(lift(appended)).isEqualTo("SELECT * FROM bills ORDER BY 1 LIMIT ALL");
    assertThat(bound(lift(appended), 100_000).sql()).isEqualTo("SELECT * FROM bills ORDER BY 1 LIMIT 100000");
    assertThat(lift("SELECT * FROM bills LIMIT 200 OFFSET 3;")).isEqualTo("SELECT * FROM bills LIMIT ALL OFFSET 3");
    // The gate's wrapping comes off whole.
    String wrapped = bound("SELECT * FROM bills LIMIT (SELECT 5000)", 200).sql();
    assertThat(wrapped).startsWith(RowBound.WRAP_PREFIX);
    assertThat(lift(wrapped)).isEqualTo("SELECT * FROM bills LIMIT (SELECT 5000)");
    // FETCH FIRST: the largest count, which the export's cap lowers.
    String fetch = lift("SELECT * FROM bills FETCH FIRST 200 ROWS ONLY");
    assertThat(bound(fetch, 1000).sql()).isEqualTo("SELECT * FROM bills FETCH FIRST 1000 ROWS ONLY");
    // A limit inside a subquery is the query's own, and a query without one is left as it is.
    assertThat(lift("SELECT * FROM (SELECT * FROM bills LIMIT 3) b")).isEqualTo("SELECT * FROM (SELECT * FROM bills LIMIT 3) b");
    assertThat(lift("SELECT 1")).isEqualTo("SELECT 1");
  }
}
