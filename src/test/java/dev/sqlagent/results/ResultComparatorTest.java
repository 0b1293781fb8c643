package dev.sqlagent.results;

import dev.sqlagent.results.QueryResult;
import dev.sqlagent.results.ResultComparator;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.results.ResultComparator.Match;
import io.vertx.core.json.JsonArray;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One test per grading rule of the comparator. */
class ResultComparatorTest {

  /** A result with typed columns "name:type", and rows. */
  static QueryResult table(String columns, Object[]... rows) {
    List<QueryResult.Column> cols = new ArrayList<>();
    for (String c : columns.split(",")) {
      String[] p = c.trim().split(":");
      cols.add(new QueryResult.Column(p[0], p.length > 1 ? p[1] : null));
    }
    List<List<Object>> rs = new ArrayList<>();
    for (Object[] r : rows) rs.add(new ArrayList<>(Arrays.asList(r)));
    return new QueryResult(cols, rs);
  }

  static Object[] row(Object... v) {
    return v;
  }

  static Match match(QueryResult gold, QueryResult actual, boolean ordered) {
    return ResultComparator.compare(gold, actual, ordered).match();
  }

  @Test
  void columnNamesAreIgnored() {
    QueryResult gold = table("cat_name:varchar,revenue:numeric", row("Paint", new BigDecimal("10.00")));
    QueryResult agent = table("category:text,total_sales:numeric", row("Paint", new BigDecimal("10.00")));
    assertThat(match(gold, agent, false)).isEqualTo(Match.EXACT);
  }

  @Test
  void columnOrderIsIgnoredToo() {
    QueryResult gold = table("a:text,b:int4", row("x", 1), row("y", 2));
    QueryResult agent = table("b:int4,a:text", row(1, "x"), row(2, "y"));
    ResultComparator.Comparison c = ResultComparator.compare(gold, agent, false);
    assertThat(c.match()).isEqualTo(Match.EXACT);
    assertThat(c.mapping()).containsExactly(1, 0);
  }

  @Test
  void numbersAreComparedRoundedToTwoPlaces() {
    QueryResult gold = table("avg:numeric", row(new BigDecimal("241.7583333")));
    assertThat(match(gold, table("x:float8", row(241.76)), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("x:numeric", row("241.758")), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("x:numeric", row("241.75")), false)).isEqualTo(Match.NONE);
    // Integers and decimals of the same value are the same number.
    assertThat(match(table("n:int8", row(1400L)), table("n:numeric", row("1400.00")), false)).isEqualTo(Match.EXACT);
    assertThat(match(table("n:int8", row(1400L)), table("n:int4", row(1401)), false)).isEqualTo(Match.NONE);
  }

  @Test
  void rowOrderIsIgnoredUnlessTheQuestionAsksForIt() {
    QueryResult gold = table("m:int4,rev:numeric", row(1, "10.00"), row(2, "20.00"), row(3, "30.00"));
    QueryResult shuffled = table("m:int4,rev:numeric", row(3, "30.00"), row(1, "10.00"), row(2, "20.00"));
    assertThat(match(gold, shuffled, false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, shuffled, true)).isEqualTo(Match.NONE);
    assertThat(match(gold, table("m:int4,rev:numeric", row(1, "10.00"), row(2, "20.00"), row(3, "30.00")), true))
        .isEqualTo(Match.EXACT);
  }

  @Test
  void unorderedComparisonStillCountsDuplicateRows() {
    QueryResult gold = table("a:text", row("x"), row("x"), row("y"));
    assertThat(match(gold, table("a:text", row("x"), row("y"), row("y")), false)).isEqualTo(Match.NONE);
  }

  @Test
  void extraColumnsAreASubsetMatchWhenEveryGoldColumnMatchesRowForRow() {
    QueryResult gold = table("emp_name:varchar,bills:int8", row("Suresh", 137L), row("Anita", 128L));
    QueryResult agent = table("emp_id:int4,emp_name:varchar,bills:int8,rank:int8",
        row(4, "Suresh", 137L, 1L), row(7, "Anita", 128L, 2L));
    ResultComparator.Comparison c = ResultComparator.compare(gold, agent, false);
    assertThat(c.match()).isEqualTo(Match.SUBSET);
    assertThat(c.mapping()).containsExactly(1, 2);
  }

  @Test
  void columnsThatMatchOneByOneButNotTogetherAreNoMatch() {
    // Each gold column's values exist in some agent column, but the pairs are scrambled.
    QueryResult gold = table("name:text,n:int4", row("a", 1), row("b", 2));
    QueryResult agent = table("name:text,n:int4", row("a", 2), row("b", 1));
    ResultComparator.Comparison c = ResultComparator.compare(gold, agent, false);
    assertThat(c.match()).isEqualTo(Match.NONE);
    assertThat(c.reason()).contains("row for row");
  }

  @Test
  void theMappingSearchFindsTheRightOneAmongLookAlikeColumns() {
    // Two agent columns hold the same multiset; only one pairs correctly with the name column.
    QueryResult gold = table("name:text,n:int4", row("a", 1), row("b", 2));
    QueryResult agent = table("n2:int4,name:text,n:int4", row(2, "a", 1), row(1, "b", 2));
    ResultComparator.Comparison c = ResultComparator.compare(gold, agent, false);
    assertThat(c.match()).isEqualTo(Match.SUBSET);
    assertThat(c.mapping()).containsExactly(1, 2);
  }

  @Test
  void missingColumnsOrRowsAreNoMatch() {
    QueryResult gold = table("a:text,b:int4", row("x", 1));
    assertThat(match(gold, table("a:text", row("x")), false)).isEqualTo(Match.NONE);
    assertThat(match(gold, table("a:text,b:int4", row("x", 1), row("y", 2)), false)).isEqualTo(Match.NONE);
    assertThat(ResultComparator.compare(gold, table("a:text", row("x")), false).reason()).contains("too few columns");
  }

  @Test
  void nullAndEmptyStringAreDifferent() {
    QueryResult gold = table("emp:text,mgr:text", row("Owner", null), row("Rahul", "Owner"));
    assertThat(match(gold, table("emp:text,mgr:text", row("Owner", ""), row("Rahul", "Owner")), false))
        .isEqualTo(Match.NONE);
    assertThat(match(gold, table("emp:text,mgr:text", row("Owner", null), row("Rahul", "Owner")), false))
        .isEqualTo(Match.EXACT);
  }

  @Test
  void datesAndTimestampsAreComparedAsValues() {
    LocalDateTime t = LocalDateTime.of(2025, 1, 1, 18, 27, 8);
    QueryResult gold = table("min:timestamp", row(t));
    assertThat(match(gold, table("m:timestamp", row("2025-01-01 18:27:08")), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("m:timestamp", row("2025-01-01T18:27:08")), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("m:timestamp", row("2025-01-01T18:27:08.000")), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("m:timestamptz", row("2025-01-01 23:57:08+05:30")), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("m:timestamptz", row(OffsetDateTime.of(t, ZoneOffset.UTC))), false))
        .isEqualTo(Match.EXACT);
    assertThat(match(gold, table("m:timestamp", row("2025-01-01 18:27:09")), false)).isEqualTo(Match.NONE);
    // A date is the timestamp at its midnight, as in PostgreSQL.
    assertThat(match(table("d:date", row(LocalDate.of(2025, 3, 1))), table("m:timestamp", row("2025-03-01 00:00:00")),
        false)).isEqualTo(Match.EXACT);
    // A date written as text in a text column is text, not a date.
    assertThat(match(table("d:date", row(LocalDate.of(2025, 3, 1))), table("m:text", row("2025-03-01")), false))
        .isEqualTo(Match.NONE);
  }

  @Test
  void booleansAreComparedAsValues() {
    QueryResult gold = table("b:bool", row(true), row(false));
    assertThat(match(gold, table("b:bool", row("t"), row("f")), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("b:text", row("true"), row("false")), false)).isEqualTo(Match.NONE);
  }

  @Test
  void theAnswerJsonShapeIsRead() {
    // As the agent returns it: typed columns, numerics as exact strings, timestamps as text.
    QueryResult agent = QueryResult.fromJson(
        new JsonArray("[{\"name\":\"m\",\"type\":\"numeric\"},{\"name\":\"first\",\"type\":\"timestamp\"}]"),
        new JsonArray("[[\"1\", \"2025-01-01T18:27:08\"], [2, null]]"));
    QueryResult gold = table("m:numeric,first:timestamp", row(new BigDecimal("1"), LocalDateTime.of(2025, 1, 1, 18, 27, 8)),
        row(2L, null));
    assertThat(match(gold, agent, true)).isEqualTo(Match.EXACT);
  }

  @Test
  void untypedValuesAreReadByTheirForm() {
    QueryResult gold = table("n:numeric,d:timestamp", row(new BigDecimal("3.50"), LocalDateTime.of(2025, 2, 1, 0, 0)));
    assertThat(match(gold, table("n,d", row("3.5", "2025-02-01")), false)).isEqualTo(Match.EXACT);
  }

  @Test
  void theBestOfSeveralGoldResultsCounts() {
    QueryResult narrow = table("a:text", row("x"));
    QueryResult wide = table("a:text,b:int4", row("x", 1));
    assertThat(ResultComparator.compareAny(List.of(narrow, wide), wide, false).match()).isEqualTo(Match.EXACT);
    assertThat(ResultComparator.compareAny(List.of(narrow), wide, false).match()).isEqualTo(Match.SUBSET);
  }

  @Test
  void emptyResultsMatchOnlyEmptyResults() {
    QueryResult gold = table("a:text");
    assertThat(match(gold, table("x:text"), false)).isEqualTo(Match.EXACT);
    assertThat(match(gold, table("x:text", row("y")), false)).isEqualTo(Match.NONE);
  }
}
