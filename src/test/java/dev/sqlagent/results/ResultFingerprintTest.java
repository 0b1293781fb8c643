package dev.sqlagent.results;

import dev.sqlagent.results.QueryResult;
import dev.sqlagent.results.ResultFingerprint;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultFingerprintTest {

  private static QueryResult result(List<String> types, Object[]... rows) {
    List<QueryResult.Column> cols = new java.util.ArrayList<>();
    for (int i = 0; i < types.size(); i++) cols.add(new QueryResult.Column("c" + i, types.get(i)));
    return new QueryResult(cols, Arrays.stream(rows).map(r -> Arrays.asList(r)).toList());
  }

  @Test
  void rowOrderCountsOnlyWhenTheQueryOrders() {
    QueryResult ab = result(List.of("text", "int8"), new Object[] {"a", 1}, new Object[] {"b", 2});
    QueryResult ba = result(List.of("text", "int8"), new Object[] {"b", 2}, new Object[] {"a", 1});
    assertThat(ResultFingerprint.of(ab, false)).isEqualTo(ResultFingerprint.of(ba, false));
    assertThat(ResultFingerprint.of(ab, true)).isNotEqualTo(ResultFingerprint.of(ba, true));
  }

  @Test
  void numbersAreRoundedAsTheGraderRoundsThem() {
    QueryResult a = result(List.of("numeric"), new Object[] {new BigDecimal("1267.004")});
    QueryResult b = result(List.of("float8"), new Object[] {1267.0});
    QueryResult c = result(List.of("int8"), new Object[] {1268});
    assertThat(ResultFingerprint.of(a, false)).isEqualTo(ResultFingerprint.of(b, false));
    assertThat(ResultFingerprint.of(a, false)).isNotEqualTo(ResultFingerprint.of(c, false));
  }

  @Test
  void columnOrderAndNamesDoNotCount() {
    QueryResult ab = result(List.of("text", "int8"), new Object[] {"a", 1}, new Object[] {"b", 2});
    QueryResult swapped = new QueryResult(List.of(new QueryResult.Column("n", "int8"), new QueryResult.Column("x", "text")),
        List.of(List.of(1, "a"), List.of(2, "b")));
    assertThat(ResultFingerprint.of(ab, false)).isEqualTo(ResultFingerprint.of(swapped, false));
  }

  @Test
  void aDifferentRowOrAnExtraRowIsADifferentResult() {
    QueryResult one = result(List.of("text"), new Object[] {"a"});
    QueryResult two = result(List.of("text"), new Object[] {"a"}, new Object[] {"a"});
    QueryResult other = result(List.of("text"), new Object[] {"b"});
    assertThat(ResultFingerprint.of(one, false)).isNotEqualTo(ResultFingerprint.of(two, false))
        .isNotEqualTo(ResultFingerprint.of(other, false)).hasSize(12);
  }
}
