package dev.sqlagent.explain;

import dev.sqlagent.parsing.SqlParser;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * A short plain-English account of what a SELECT does, from its parsed statement (JSqlParser) and without a model:
 * the tables it reads and how they are joined, the rows it keeps, how it groups, what it returns, how it sorts and how
 * many rows at most. Blocking (the parser): call off the event loop. Null for a text the parser cannot read, which is
 * then shown without an account.
 */
public final class SqlExplanation {
  /** Runs of white space, compiled once: every expression an explanation quotes is flattened. */
  private static final Pattern SPACES = Pattern.compile("\\s+");

  private SqlExplanation() {}

  /** The longest a quoted expression is shown before it is cut with an ellipsis. */
  static final int EXPRESSION_CHARS = 90;
  static final int PARSE_TIMEOUT_MS = 2_000;

  /** The account of {@code sql}, or null when it cannot be parsed or is not a query. */
  public static String of(String sql) {
    if (sql == null || sql.isBlank()) return null;
    Statement statement;
    try {
      statement = SqlParser.parse(sql, PARSE_TIMEOUT_MS);
    } catch (JSQLParserException | RuntimeException e) {
      return null;
    }
    if (!(statement instanceof Select select)) return null;
    List<String> sentences = new ArrayList<>();
    List<WithItem<?>> with = select.getWithItemsList();
    if (with != null && !with.isEmpty()) {
      List<String> names = new ArrayList<>();
      for (WithItem<?> w : with) names.add(w.getAlias() == null ? "a step" : w.getAlias().getName());
      sentences.add("First builds " + join(names) + " (WITH), then:");
    }
    describe(select, sentences);
    return sentences.isEmpty() ? null : String.join(" ", sentences);
  }

  private static void describe(Select select, List<String> out) {
    if (select instanceof PlainSelect plain) {
      plain(plain, out);
    } else if (select instanceof SetOperationList set) {
      List<String> ops = new ArrayList<>();
      set.getOperations().forEach(o -> ops.add(o.toString().toUpperCase(java.util.Locale.ROOT)));
      out.add("Combines " + set.getSelects().size() + " queries (" + String.join(", ", distinct(ops)) + ").");
      orderAndLimit(set.getOrderByElements(), set.getLimit() == null ? null : set.getLimit().getRowCount(), out);
    } else if (select instanceof ParenthesedSelect inner && inner.getSelect() != null) {
      describe(inner.getSelect(), out);
    }
  }

  private static void plain(PlainSelect s, List<String> out) {
    List<String> sources = new ArrayList<>();
    if (s.getFromItem() != null) sources.add(source(s.getFromItem()));
    List<String> joins = new ArrayList<>();
    if (s.getJoins() != null) {
      for (Join j : s.getJoins()) {
        String kind = j.isLeft() ? "left join " : j.isRight() ? "right join " : j.isFull() ? "full join " : j.isCross()
            ? "cross join " : j.isSimple() ? "" : "join ";
        String on = j.getOnExpressions() == null || j.getOnExpressions().isEmpty() ? ""
            : " on " + quote(j.getOnExpressions().iterator().next());
        if (j.getUsingColumns() != null && !j.getUsingColumns().isEmpty()) on = " using " + j.getUsingColumns();
        joins.add(kind + source(j.getRightItem()) + on);
        sources.add(source(j.getRightItem()));
      }
    }
    if (!sources.isEmpty()) {
      String reads = "Reads " + sources.get(0);
      if (!joins.isEmpty()) reads += ", " + String.join(", ", joins);
      out.add(reads + ".");
    } else {
      out.add("Computes values without reading a table.");
    }
    if (s.getWhere() != null) out.add("Keeps rows where " + quote(s.getWhere()) + ".");
    if (s.getGroupBy() != null && s.getGroupBy().getGroupByExpressionList() != null
        && !s.getGroupBy().getGroupByExpressionList().isEmpty()) {
      List<String> by = new ArrayList<>();
      for (Object e : s.getGroupBy().getGroupByExpressionList()) by.add(quote(e));
      out.add("Groups by " + join(by) + ".");
    }
    if (s.getHaving() != null) out.add("Keeps groups where " + quote(s.getHaving()) + ".");
    if (s.getSelectItems() != null && !s.getSelectItems().isEmpty()) {
      List<String> items = new ArrayList<>();
      for (SelectItem<?> item : s.getSelectItems()) {
        String e = quote(item.getExpression());
        items.add(item.getAlias() == null ? e : item.getAlias().getName() + " (" + e + ")");
      }
      out.add("Returns " + (s.getDistinct() != null ? "distinct rows of " : "") + join(items) + ".");
    }
    Expression limit = s.getLimit() == null ? null : s.getLimit().getRowCount();
    if (limit == null && s.getFetch() != null && s.getFetch().getExpression() != null) limit = s.getFetch().getExpression();
    orderAndLimit(s.getOrderByElements(), limit, out);
  }

  private static void orderAndLimit(List<OrderByElement> order, Expression limit, List<String> out) {
    if (order != null && !order.isEmpty()) {
      List<String> by = new ArrayList<>();
      for (OrderByElement o : order) by.add(quote(o.getExpression()) + (o.isAsc() ? "" : " descending"));
      out.add("Sorts by " + join(by) + ".");
    }
    if (limit != null) out.add("Returns at most " + quote(limit) + " rows.");
  }

  private static String source(FromItem item) {
    String alias = item.getAlias() == null ? null : item.getAlias().getName();
    if (item instanceof Table t) {
      String name = t.getFullyQualifiedName();
      return alias == null || alias.equalsIgnoreCase(name) ? name : name + " (as " + alias + ")";
    }
    if (item instanceof ParenthesedSelect) return "a subquery" + (alias == null ? "" : " " + alias);
    return quote(item) + (alias == null ? "" : " (as " + alias + ")");
  }

  private static List<String> distinct(List<String> items) {
    return items.stream().distinct().toList();
  }

  /** A, B and C. */
  private static String join(List<String> items) {
    if (items.size() <= 1) return String.join("", items);
    return String.join(", ", items.subList(0, items.size() - 1)) + " and " + items.get(items.size() - 1);
  }

  private static String quote(Object expression) {
    String s = SPACES.matcher(String.valueOf(expression)).replaceAll(" ").strip();
    return s.length() <= EXPRESSION_CHARS ? s : s.substring(0, EXPRESSION_CHARS - 1) + "…";
  }
}
