package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.MetricDefinition;
import dev.sqlagent.contract.Retrieval;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which named metric an answer's SQL computes as defined, and the prompt's block of definitions. */
class MetricUseTest {

  static final MetricDefinition REVENUE = new MetricDefinition("revenue",
      "sum(order_lines.quantity * order_lines.unit_price)", List.of("order_lines", "orders"),
      List.of("orders.status <> 'cancelled'"), "Money from orders that were not cancelled.");

  static Retrieval named(MetricDefinition... metrics) {
    return new Retrieval(List.of(), "CREATE TABLE orders ();", "", List.of(), 0).withMetrics(List.of(metrics));
  }

  @Test
  void theSqlUsesTheMetricWhateverItsAliasesCaseAndSpacing() {
    String sql = "SELECT SUM( ol.Quantity*ol.UNIT_PRICE ) FROM order_lines ol JOIN orders o USING (order_id)\n"
        + "WHERE o.status != 'cancelled' AND o.placed_on > now() - interval '30 days'";
    assertThat(MetricUse.in(named(REVENUE), sql)).containsExactly(REVENUE);
    String quoted = "SELECT sum(\"order_lines\".\"quantity\" * \"order_lines\".\"unit_price\") FROM order_lines, orders"
        + " WHERE public.orders.status <> 'cancelled'";
    assertThat(MetricUse.in(named(REVENUE), quoted)).containsExactly(REVENUE);
  }

  @Test
  void anSqlThatDepartsFromTheDefinitionDoesNotClaimIt() {
    assertThat(MetricUse.in(named(REVENUE), "SELECT sum(ol.quantity * ol.unit_price) FROM order_lines ol")).isEmpty();
    assertThat(MetricUse.in(named(REVENUE), "SELECT sum(o.total) FROM orders o WHERE o.status <> 'cancelled'")).isEmpty();
    assertThat(MetricUse.in(named(REVENUE), "SELECT sum(ol.quantity * ol.unit_price) FROM order_lines ol JOIN orders o"
        + " USING (order_id) WHERE o.status <> 'returned'")).isEmpty();
    assertThat(MetricUse.in(named(), "SELECT sum(ol.quantity * ol.unit_price) FROM order_lines ol")).isEmpty();
    assertThat(MetricUse.in(named(REVENUE), null)).isEmpty();
  }

  @Test
  void thePromptGivesEachNamedMetricAsTheDefinitionToUse() {
    String system = PromptBuilder.sqlMessages("revenue by month", named(REVENUE), List.of(), null).get(0).content();
    assertThat(system).contains("Defined metrics — use exactly this definition:\n"
        + "- \"revenue\": sum(order_lines.quantity * order_lines.unit_price); tables: order_lines, orders;"
        + " always filter: orders.status <> 'cancelled'; means: Money from orders that were not cancelled.\n"
        + PromptBuilder.METRICS_RULE);
    List<ChatRequest.Message> plain = PromptBuilder.sqlMessages("orders by month", named(), List.of(), null);
    assertThat(plain.get(0).content()).doesNotContain("Defined metrics");
  }
}
