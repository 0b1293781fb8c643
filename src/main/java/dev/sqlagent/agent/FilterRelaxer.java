package dev.sqlagent.agent;

import dev.sqlagent.parsing.SqlParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * The empty-result diagnostic's rewrite: every {@code column = 'literal'} becomes
 * {@code LOWER(TRIM(column::text)) = LOWER(TRIM('literal'))} and every LIKE becomes ILIKE, so a query that
 * found nothing only because of case or stray spaces ({@code status = 'paid'}) finds its rows.
 *
 * <p>Blocking (JSqlParser): call off the event loop. Queries JSqlParser cannot parse get no probe.
 */
public final class FilterRelaxer {

  /** The relaxed SQL and the literals whose comparisons were relaxed. */
  public record Relaxed(String sql, List<String> filters) {}

  private FilterRelaxer() {}

  /** Empty when the query filters no column by a string literal (nothing to relax) or cannot be parsed. */
  public static Optional<Relaxed> relax(String sql) {
    Statement statement;
    try {
      statement = SqlParser.parse(sql, 2_000);
    } catch (JSQLParserException | RuntimeException e) {
      return Optional.empty();
    }
    if (statement == null) return Optional.empty();
    Walker walker = new Walker();
    try {
      walker.walk(statement);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    if (walker.filters.isEmpty()) return Optional.empty();
    return Optional.of(new Relaxed(statement.toString(), List.copyOf(walker.filters)));
  }

  /** TablesNamesFinder already visits every expression of a statement; it is reused as the tree walk. */
  private static final class Walker extends TablesNamesFinder<Void> {
    final List<String> filters = new ArrayList<>();

    void walk(Statement s) {
      init(false);
      s.accept(this, null);
    }

    @Override
    public <S> Void visit(EqualsTo eq, S context) {
      if (eq.getLeftExpression() instanceof Column c && eq.getRightExpression() instanceof StringValue v) {
        filters.add(c + " = '" + v.getValue() + "'");
        eq.setLeftExpression(lowerTrim("(" + c + ")::text"));
        eq.setRightExpression(lowerTrim(v.toString()));
      } else if (eq.getRightExpression() instanceof Column c && eq.getLeftExpression() instanceof StringValue v) {
        filters.add(c + " = '" + v.getValue() + "'");
        eq.setRightExpression(lowerTrim("(" + c + ")::text"));
        eq.setLeftExpression(lowerTrim(v.toString()));
      }
      return super.visit(eq, context);
    }

    @Override
    public <S> Void visit(LikeExpression like, S context) {
      if (like.getLikeKeyWord() == LikeExpression.KeyWord.LIKE && like.getRightExpression() instanceof StringValue v) {
        filters.add(like.getLeftExpression() + " LIKE '" + v.getValue() + "'");
        like.setLikeKeyWord(LikeExpression.KeyWord.ILIKE);
        like.setLeftExpression(parse("TRIM((" + like.getLeftExpression() + ")::text)"));
      }
      return super.visit(like, context);
    }

    private static Expression lowerTrim(String inner) {
      return parse("LOWER(TRIM(" + inner + "))");
    }

    private static Expression parse(String expr) {
      try {
        return CCJSqlParserUtil.parseExpression(expr);
      } catch (JSQLParserException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
