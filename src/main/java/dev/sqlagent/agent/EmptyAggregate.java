package dev.sqlagent.agent;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.parsing.SqlParser;
import io.vertx.core.json.JsonArray;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * An aggregate over nothing reads like an answer: {@code count(*) ... WHERE status = 'paid'} returns one row
 * holding 0 when the stored value is 'PAID'. A result whose every row has only zero or NULL values in its
 * aggregate columns ({@code count} 0, {@code sum}/{@code avg}/{@code min}/{@code max} NULL) is treated like
 * zero rows by the empty-result probe.
 */
final class EmptyAggregate {

  private static final Pattern AGGREGATE = Pattern.compile("(?i)\\b(count|sum|avg|min|max)\\s*\\(");

  private EmptyAggregate() {}

  /**
   * The positions of the top-level SELECT's output columns that hold an aggregate (possibly wrapped, as in
   * {@code coalesce(sum(x), 0)}); empty when there is none, when a {@code *} makes positions unknowable, or
   * when the SQL cannot be parsed. Blocking (JSqlParser): call off the event loop.
   */
  static List<Integer> aggregateColumns(String sql) {
    Statement statement;
    try {
      statement = SqlParser.parse(sql, 2_000);
    } catch (JSQLParserException | RuntimeException e) {
      return List.of();
    }
    if (!(statement instanceof PlainSelect select) || select.getSelectItems() == null) return List.of();
    List<Integer> positions = new ArrayList<>();
    List<SelectItem<?>> items = select.getSelectItems();
    for (int i = 0; i < items.size(); i++) {
      Object expr = items.get(i).getExpression();
      if (expr instanceof AllColumns) return List.of();
      if (AGGREGATE.matcher(String.valueOf(expr)).find()) positions.add(i);
    }
    return positions;
  }

  /** Whether any cell of the result is zero or NULL: cheap, on the event loop, before anything is parsed. */
  static boolean mayBeEmpty(GateReply.Result result) {
    if (result == null || result.rows() == null) return false;
    for (Object row : result.rows()) {
      for (Object cell : (JsonArray) row) {
        if (zeroOrNull(cell)) return true;
      }
    }
    return false;
  }

  /** Whether every row has only zero or NULL in every one of the given aggregate columns (none: false). */
  static boolean isEmpty(GateReply.Result result, List<Integer> aggregates) {
    JsonArray rows = result == null ? null : result.rows();
    if (aggregates.isEmpty() || rows == null || rows.isEmpty()) return false;
    for (Object row : rows) {
      JsonArray r = (JsonArray) row;
      for (int c : aggregates) {
        if (c >= r.size() || !zeroOrNull(r.getValue(c))) return false;
      }
    }
    return true;
  }

  private static boolean zeroOrNull(Object cell) {
    if (cell == null) return true;
    try {
      return new BigDecimal(cell.toString().trim()).signum() == 0;
    } catch (NumberFormatException notANumber) {
      return false;
    }
  }
}
