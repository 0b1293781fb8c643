package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.json.JsonArray;
import java.util.List;
import org.junit.jupiter.api.Test;

class EmptyAggregateTest {

  private static GateReply.Result rows(JsonArray... rows) {
    JsonArray a = new JsonArray();
    for (JsonArray r : rows) a.add(r);
    return new GateReply.Result(new JsonArray(), a, rows.length, false, 0L);
  }

  @Test
  void findsTheAggregateColumnsEvenWrapped() {
    assertThat(EmptyAggregate.aggregateColumns("SELECT count(*) FROM bills WHERE status = 'paid'")).containsExactly(0);
    assertThat(EmptyAggregate.aggregateColumns(
        "SELECT e.name, COALESCE(SUM(b.total_amt), 0) AS s, round(avg(b.total_amt), 2) FROM e JOIN b ON true GROUP BY 1"))
        .containsExactly(1, 2);
    assertThat(EmptyAggregate.aggregateColumns("SELECT bill_no FROM bills")).isEmpty();
    assertThat(EmptyAggregate.aggregateColumns("SELECT *, count(*) OVER () FROM bills")).isEmpty();
    assertThat(EmptyAggregate.aggregateColumns("not sql at all")).isEmpty();
  }

  @Test
  void zeroCountsAndNullSumsAreEmptyAndAnyOtherValueIsNot() {
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().add(0)), List.of(0))).isTrue();
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().addNull()), List.of(0))).isTrue();
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().add("0.00")), List.of(0))).isTrue();
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().add("CASH").add(0), new JsonArray().add("CARD").add(0)),
        List.of(1))).isTrue();
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().add("CASH").add(0), new JsonArray().add("CARD").add(3)),
        List.of(1))).isFalse();
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().add(1267)), List.of(0))).isFalse();
    assertThat(EmptyAggregate.isEmpty(rows(new JsonArray().add(0)), List.of())).isFalse();
    assertThat(EmptyAggregate.isEmpty(rows(), List.of(0))).isFalse();
  }

  @Test
  void theCheapCheckLooksForAnyZeroOrNull() {
    assertThat(EmptyAggregate.mayBeEmpty(rows(new JsonArray().add("x").add(5)))).isFalse();
    assertThat(EmptyAggregate.mayBeEmpty(rows(new JsonArray().add("x").addNull()))).isTrue();
  }
}
