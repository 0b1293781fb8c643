package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.MetricDefinition;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code sql-agent ask} prints the governed metric an answer used, with its definition, under the SQL. */
class AskMetricsTest {

  static Answer answer() {
    return new Answer("turnover last month", "1,234.50", "SELECT sum(l.qty * l.unit_price) FROM ledger_lines l", 1,
        List.of("ledger_lines"), false, false, false, new JsonArray().add(new JsonObject().put("name", "sum").put("type",
        "numeric")), new JsonArray().add(new JsonArray().add("1234.50")), 1, false, List.of(), null, 0, 5, "r1", "agent",
        "m", "cli", null, null, null, null, null, "model", null, null, null);
  }

  @Test
  void theMetricAndItsDefinitionFollowTheSql() {
    MetricDefinition revenue = new MetricDefinition("revenue", "sum(ledger_lines.qty * ledger_lines.unit_price)",
        List.of("ledger_lines", "ledger_sales"), List.of("ledger_sales.state <> 'VOID'"), "Money taken.");
    String printed = AskCommand.summary(answer().withMetrics(List.of(revenue)));
    assertThat(printed).contains("SQL: SELECT sum(l.qty * l.unit_price) FROM ledger_lines l\n"
        + "METRIC: \"revenue\": sum(ledger_lines.qty * ledger_lines.unit_price); tables: ledger_lines, ledger_sales;"
        + " always filter: ledger_sales.state <> 'VOID'; means: Money taken.\n");
    assertThat(AskCommand.summary(answer())).doesNotContain("METRIC");
  }
}
