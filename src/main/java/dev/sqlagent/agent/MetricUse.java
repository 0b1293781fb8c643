package dev.sqlagent.agent;

import dev.sqlagent.contract.MetricDefinition;
import dev.sqlagent.contract.Retrieval;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which of the governed metrics a question named its SQL computes as defined: the metric's expression and every one of
 * its filters appear in the statement, read without regard to spacing, case, quotes, {@code !=} for {@code <>} and the
 * table or alias that qualifies a column ({@code sum(oi.quantity * oi.unit_price)} is
 * {@code SUM(order_items.quantity*order_items.unit_price)}). A metric the SQL departs from is not claimed.
 */
final class MetricUse {
  private MetricUse() {}

  /** A qualifier before a column: {@code oi.}, {@code "Sales".}, {@code sales.orders.}. */
  private static final Pattern QUALIFIER = Pattern.compile("(?<![\\w$'])[a-z_][\\w$]*\\.(?=[a-z_\"])");

  /** The metrics of {@code retrieval} that {@code sql} computes as defined, in their order; empty when none. */
  static List<MetricDefinition> in(Retrieval retrieval, String sql) {
    if (retrieval == null || sql == null || retrieval.metrics().isEmpty()) return List.of();
    String statement = normalise(sql);
    return retrieval.metrics().stream()
        .filter(m -> statement.contains(normalise(m.sql())) && m.filters().stream().allMatch(f -> statement.contains(normalise(f))))
        .toList();
  }

  static String normalise(String sql) {
    String s = sql.toLowerCase(Locale.ROOT).replace("\"", "").replace("!=", "<>").replaceAll("\\s+", " ");
    s = QUALIFIER.matcher(s).replaceAll("");
    return s.replace(" ", "");
  }
}
