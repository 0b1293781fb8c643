package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The notes file's {@code metrics:} section: read, checked against the database, and found in questions. */
class NotesMetricsTest {

  static final String YAML = """
      metrics:
        - name: revenue
          sql: sum(order_lines.quantity * order_lines.unit_price)
          tables: [order_lines, orders]
          filters: ["orders.status <> 'cancelled'"]
          description: Money from orders that were not cancelled.
          terms: [sales, turnover]
        - name: active customers
          sql: count(DISTINCT orders.customer_id)
          tables: orders
          filters: "orders.placed_on >= current_date - 90"
      """;

  static KnownTables shop() {
    Map<String, Set<String>> t = new LinkedHashMap<>();
    t.put("orders", Set.of("order_id", "customer_id", "status", "placed_on"));
    t.put("order_lines", Set.of("order_id", "quantity", "unit_price"));
    return KnownTables.of(t);
  }

  static Notes parse(String yaml) {
    return NotesFile.parse("notes.yaml", yaml, NotesFile.Format.YAML);
  }

  static String problem(String yaml) {
    return catchThrowableOfType(() -> parse(yaml), NotesException.class).getMessage();
  }

  @Test
  void metricsAreReadWithEveryPart() {
    Notes n = parse(YAML);
    assertThat(n.validate(shop())).isEmpty();
    assertThat(n.isEmpty()).isFalse();
    Notes.Metric revenue = n.metrics().get(0);
    assertThat(revenue.name()).isEqualTo("revenue");
    assertThat(revenue.sql()).isEqualTo("sum(order_lines.quantity * order_lines.unit_price)");
    assertThat(revenue.tables()).extracting(Notes.TableRef::name).containsExactly("order_lines", "orders");
    assertThat(revenue.filters()).containsExactly("orders.status <> 'cancelled'");
    assertThat(revenue.description()).isEqualTo("Money from orders that were not cancelled.");
    assertThat(revenue.terms()).containsExactly("sales", "turnover");
    assertThat(revenue.line()).isEqualTo(2);
    Notes.Metric active = n.metrics().get(1);
    assertThat(active.tables()).extracting(Notes.TableRef::name).containsExactly("orders");
    assertThat(active.filters()).containsExactly("orders.placed_on >= current_date - 90");
    assertThat(active.description()).isNull();
    assertThat(active.terms()).isEmpty();
  }

  @Test
  void theSameFromJson() {
    Notes n = NotesFile.parse("notes.json", """
        {"metrics": [{"name": "revenue", "sql": "sum(orders.total)", "tables": ["orders"], "terms": ["takings"]}]}
        """, NotesFile.Format.JSON);
    assertThat(n.metrics()).hasSize(1);
    assertThat(n.metricsIn("Takings in May")).extracting(Notes.Metric::name).containsExactly("revenue");
  }

  @Test
  void aQuestionNamesAMetricByItsNameOrATermAsWholeWordsInAnyCase() {
    Notes n = parse(YAML);
    assertThat(n.metricsIn("revenue last month")).extracting(Notes.Metric::name).containsExactly("revenue");
    assertThat(n.metricsIn("What was our TURNOVER?")).extracting(Notes.Metric::name).containsExactly("revenue");
    assertThat(n.metricsIn("Sales by region")).extracting(Notes.Metric::name).containsExactly("revenue");
    assertThat(n.metricsIn("How many Active-Customers do we have?")).extracting(Notes.Metric::name)
        .containsExactly("active customers");
    assertThat(n.metricsIn("pre-revenue startups")).extracting(Notes.Metric::name).containsExactly("revenue");
    assertThat(n.metricsIn("prerevenue startups")).isEmpty();
    assertThat(n.metricsIn("salesforce accounts")).isEmpty();
    assertThat(n.metricsIn("how many orders")).isEmpty();
  }

  @Test
  void anUnknownTableIsReportedWithTheMetricAndItsLine() {
    Notes n = parse("""
        metrics:
          - name: revenue
            sql: sum(order_lines.quantity)
            tables: [order_line, invoices]
        """);
    assertThat(n.validate(shop())).containsExactly(
        "notes.yaml line 4: unknown table 'order_line' in metric 'revenue' (did you mean order_lines?)",
        "notes.yaml line 4: unknown table 'invoices' in metric 'revenue'");
  }

  @Test
  void aMetricThatCannotBeUsedIsRefusedOnLoadWithItsLine() {
    assertThat(problem("metrics:\n  - sql: sum(orders.total)\n    tables: [orders]\n"))
        .isEqualTo("notes.yaml line 2: a metric has no 'name' (what people call it: revenue)");
    assertThat(problem("metrics:\n  - name: revenue\n    tables: [orders]\n"))
        .isEqualTo("notes.yaml line 2: metric 'revenue' has no 'sql' (the expression that computes it: sum(orders.total))");
    assertThat(problem("metrics:\n  - name: revenue\n    sql: sum(orders.total)\n"))
        .isEqualTo("notes.yaml line 2: metric 'revenue' has no 'tables' (the tables its sql and filters read)");
    assertThat(problem("metrics:\n  - name: revenue\n    sql: sum(orders.total); DROP TABLE orders\n    tables: orders\n"))
        .isEqualTo("notes.yaml line 3: 'sql' of metric 'revenue' must be one expression, without ';'");
    assertThat(problem("metrics:\n  - name: revenue\n    sql: sum(orders.total)\n    tables: orders\n    filter: x\n"))
        .startsWith("notes.yaml line 5: unknown key 'filter' in a metric").contains("did you mean filters?");
    assertThat(problem("metrics:\n  - name: revenue\n    sql: sum(orders.total)\n    tables: orders\n    filters: [{a: 1}]\n"))
        .isEqualTo("notes.yaml line 5: 'filters' of metric 'revenue' must be a list of SQL conditions; found a map");
    assertThat(problem("metrics:\n  name: revenue\n"))
        .isEqualTo("notes.yaml line 2: 'metrics' must be a list of metrics, each with name, sql and tables; found a map");
  }

  @Test
  void aWordMayNameOneMetricOnly() {
    assertThat(problem("""
        metrics:
          - name: revenue
            sql: sum(orders.total)
            tables: orders
            terms: [sales]
          - name: units sold
            sql: sum(order_lines.quantity)
            tables: order_lines
            terms: [Sales]
        """)).isEqualTo("notes.yaml line 6: 'Sales' of metric 'units sold' already names metric 'revenue'");
  }

  @Test
  void theProbeReadsNothingButChecksTheWholeDefinition() {
    Notes.Metric revenue = parse(YAML).metrics().get(0);
    assertThat(revenue.probe(List.of("order_lines", "orders"))).isEqualTo(
        "SELECT sum(order_lines.quantity * order_lines.unit_price) FROM order_lines, orders"
            + " WHERE (orders.status <> 'cancelled') AND false");
  }
}
