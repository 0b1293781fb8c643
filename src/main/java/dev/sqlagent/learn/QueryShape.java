package dev.sqlagent.learn;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.execution.ParseTree;
import dev.sqlagent.parsing.SqlParser;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * What one SELECT says about the database, resolved against a catalogue: the pairs of columns it joins by equality
 * ({@code a.x = b.y}, in a JOIN's ON or in WHERE, in any subquery), the conditions it keeps on a table's rows (its
 * WHERE's top-level conjuncts: {@code deleted_at IS NULL}, {@code status = 'paid'}), and the columns it sums or
 * averages. A column is resolved through the aliases of its SELECT (then the enclosing ones); an unqualified one
 * only when exactly one table of its SELECT has it. What does not resolve to a table and column of the catalogue
 * is left out, so a join the schema no longer has is never learned. The tree is walked as the gate walks it
 * ({@link ParseTree}). BLOCKING (JSqlParser): never on an event loop.
 */
record QueryShape(Set<String> tables, Set<JoinPair> joins, Set<Condition> conditions, Set<Condition> aggregates) {

  /** {@code table.column = refTable.refColumn}, ordered so the same pair is always written the same way. */
  record JoinPair(String table, String column, String refTable, String refColumn) {
    static JoinPair of(String t1, String c1, String t2, String c2) {
      int order = (t1 + "." + c1).compareTo(t2 + "." + c2);
      return order <= 0 ? new JoinPair(t1, c1, t2, c2) : new JoinPair(t2, c2, t1, c1);
    }
  }

  /** A condition on (or an aggregate of) one table's column: {@code predicate} as SQL writes it. */
  record Condition(String table, String column, String predicate) {}

  static final QueryShape NONE = new QueryShape(Set.of(), Set.of(), Set.of(), Set.of());

  /** pg_stat_statements writes constants as $1, $2: read as parameters, which JSqlParser knows as '?'. */
  private static final Pattern NUMBERED_PARAMETER = Pattern.compile("\\$\\d+");

  /**
   * pg_stat_statements records a statement run through {@code PREPARE name AS ...} (as the gate runs every query) and
   * then {@code EXECUTE}d under the PREPARE's text: the query is what follows AS. (One only prepared, or only
   * EXPLAINed, is never executed, so it is not recorded.)
   */
  private static final Pattern PREPARED = Pattern.compile("^\\s*PREPARE\\s+\"?[\\w$]+\"?\\s*(\\([^)]*\\))?\\s*AS\\s+",
      Pattern.CASE_INSENSITIVE);

  /** The shape of {@code sql}; {@link #NONE} when it does not parse or is not a query. */
  static QueryShape of(String sql, Catalogue catalogue) {
    Statement statement;
    try {
      String query = PREPARED.matcher(sql).replaceFirst("");
      statement = SqlParser.parse(NUMBERED_PARAMETER.matcher(query).replaceAll("?"), 2_000);
    } catch (JSQLParserException | RuntimeException e) {
      return NONE;
    }
    if (!(statement instanceof net.sf.jsqlparser.statement.select.Select)) return NONE;
    Walk walk = new Walk(catalogue);
    try {
      walk.ctes(statement);
      walk.walk(statement, null);
    } catch (RuntimeException e) {
      return NONE;  // a tree this walk does not know: nothing is learned from it, the rest of the workload still is
    }
    return new QueryShape(Set.copyOf(walk.tables), Set.copyOf(walk.joins), Set.copyOf(walk.conditions),
        Set.copyOf(walk.aggregates));
  }

  /** The tables of one SELECT by the names its columns may use (alias, or the table's own name), inside its parent's. */
  private record Scope(Map<String, TableInfo> byAlias, List<TableInfo> tables, Scope parent) {
    Optional<TableInfo> qualified(String qualifier) {
      for (Scope s = this; s != null; s = s.parent) {
        TableInfo t = s.byAlias.get(qualifier);
        if (t != null) return Optional.of(t);
      }
      return Optional.empty();
    }
  }

  private static final class Walk {
    final Catalogue catalogue;
    final Set<String> cteNames = new LinkedHashSet<>();
    final Set<String> tables = new LinkedHashSet<>();
    final Set<JoinPair> joins = new LinkedHashSet<>();
    final Set<Condition> conditions = new LinkedHashSet<>();
    final Set<Condition> aggregates = new LinkedHashSet<>();
    final Map<Object, Boolean> seen = new IdentityHashMap<>();

    Walk(Catalogue catalogue) {
      this.catalogue = catalogue;
    }

    void ctes(Object root) {
      forEachNode(root, o -> {
        if (o instanceof WithItem<?> w && w.getAlias() != null) cteNames.add(name(w.getAlias().getName()));
      });
    }

    void walk(Object o, Scope scope) {
      if (o == null || seen.put(o, Boolean.TRUE) != null) return;
      if (o instanceof Collection<?> c) {
        for (Object e : c) walk(e, scope);
        return;
      }
      if (o instanceof PlainSelect ps) {
        Scope inner = scopeOf(ps, scope);
        conditionsOf(ps.getWhere(), inner);
        for (Object child : children(o)) walk(child, inner);
        return;
      }
      if (o instanceof EqualsTo eq && eq.getLeftExpression() instanceof Column l && eq.getRightExpression() instanceof Column r
          && scope != null) {
        Optional<Resolved> a = resolve(l, scope);
        Optional<Resolved> b = resolve(r, scope);
        if (a.isPresent() && b.isPresent() && !a.get().table().name().equals(b.get().table().name())) {
          joins.add(JoinPair.of(a.get().table().name(), a.get().column(), b.get().table().name(), b.get().column()));
        }
      }
      if (o instanceof Function f && scope != null && f.getName() != null
          && Set.of("sum", "avg").contains(f.getName().toLowerCase(Locale.ROOT)) && f.getParameters() != null
          && f.getParameters().size() == 1 && f.getParameters().get(0) instanceof Column c) {
        resolve(c, scope).ifPresent(x -> aggregates.add(new Condition(x.table().name(), x.column(),
            f.getName().toLowerCase(Locale.ROOT) + "(" + x.column() + ")")));
      }
      for (Object child : children(o)) walk(child, scope);
    }

    private Scope scopeOf(PlainSelect ps, Scope parent) {
      Map<String, TableInfo> byAlias = new HashMap<>();
      List<TableInfo> here = new ArrayList<>();
      List<FromItem> items = new ArrayList<>();
      if (ps.getFromItem() != null) items.add(ps.getFromItem());
      if (ps.getJoins() != null) for (Join j : ps.getJoins()) items.add(j.getFromItem());
      for (FromItem item : items) {
        if (!(item instanceof Table t) || t.getName() == null) continue;
        String bare = name(t.getName());
        if (t.getSchemaName() == null && cteNames.contains(bare)) continue;
        Optional<TableInfo> info = catalogue.find(t.getSchemaName() == null ? bare : name(t.getSchemaName()) + "." + bare);
        if (info.isEmpty()) continue;
        here.add(info.get());
        tables.add(info.get().name());
        if (t.getAlias() != null && t.getAlias().getName() != null) {
          byAlias.put(name(t.getAlias().getName()), info.get());
        } else {
          byAlias.put(bare, info.get());
          if (t.getSchemaName() != null) byAlias.put(name(t.getSchemaName()) + "." + bare, info.get());
        }
      }
      return new Scope(byAlias, here, parent);
    }

    /** The WHERE's top-level conjuncts that test one column against a constant, or for NULL. */
    private void conditionsOf(Expression where, Scope scope) {
      if (where == null) return;
      if (where instanceof AndExpression and) {
        conditionsOf(and.getLeftExpression(), scope);
        conditionsOf(and.getRightExpression(), scope);
      } else if (where instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
        conditionsOf(p.get(0), scope);
      } else if (where instanceof IsNullExpression n && n.getLeftExpression() instanceof Column c) {
        condition(c, n.isNot() ? " IS NOT NULL" : " IS NULL", scope);
      } else if (where instanceof EqualsTo eq && eq.getLeftExpression() instanceof Column c) {
        constant(eq.getRightExpression()).ifPresent(v -> condition(c, " = " + v, scope));
      } else if (where instanceof NotEqualsTo ne && ne.getLeftExpression() instanceof Column c) {
        constant(ne.getRightExpression()).ifPresent(v -> condition(c, " <> " + v, scope));
      } else if (where instanceof Column c && c.getTable() == null) {
        condition(c, "", scope);  // a boolean column: WHERE active
      }
    }

    private void condition(Column c, String test, Scope scope) {
      resolve(c, scope).ifPresent(r -> conditions.add(new Condition(r.table().name(), r.column(), r.column() + test)));
    }

    private static Optional<String> constant(Expression e) {
      if (e instanceof StringValue s) return Optional.of("'" + s.getValue() + "'");
      if (e instanceof LongValue || e instanceof DoubleValue) return Optional.of(e.toString());
      if (e instanceof Column c && c.getTable() == null
          && Set.of("true", "false").contains(c.getColumnName().toLowerCase(Locale.ROOT))) {
        return Optional.of(c.getColumnName().toLowerCase(Locale.ROOT));
      }
      return Optional.empty();
    }

    private record Resolved(TableInfo table, String column) {}

    private Optional<Resolved> resolve(Column c, Scope scope) {
      String column = name(c.getColumnName());
      Table qualifier = c.getTable();
      if (qualifier != null && qualifier.getName() != null) {
        String q = qualifier.getSchemaName() == null ? name(qualifier.getName())
            : name(qualifier.getSchemaName()) + "." + name(qualifier.getName());
        return scope.qualified(q).flatMap(t -> has(t, column).map(col -> new Resolved(t, col)));
      }
      List<Resolved> candidates = new ArrayList<>();
      for (TableInfo t : scope.tables()) has(t, column).ifPresent(col -> candidates.add(new Resolved(t, col)));
      return candidates.size() == 1 ? Optional.of(candidates.get(0)) : Optional.empty();
    }

    private static Optional<String> has(TableInfo t, String column) {
      for (TableInfo.Column c : t.columns()) {
        if (c.name().equals(column)) return Optional.of(c.name());
      }
      return Optional.empty();
    }
  }

  /** An identifier as the catalogue spells it: a quoted one as written, an unquoted one lower-cased. */
  static String name(String identifier) {
    if (identifier.length() >= 2 && identifier.startsWith("\"") && identifier.endsWith("\"")) {
      return identifier.substring(1, identifier.length() - 1).replace("\"\"", "\"");
    }
    return identifier.toLowerCase(Locale.ROOT);
  }

  private static List<Object> children(Object o) {
    return ParseTree.children(o);
  }

  private static void forEachNode(Object root, java.util.function.Consumer<Object> visit) {
    Map<Object, Boolean> seen = new IdentityHashMap<>();
    java.util.Deque<Object> pending = new java.util.ArrayDeque<>();
    pending.push(root);
    while (!pending.isEmpty()) {
      Object o = pending.pop();
      if (o == null || seen.put(o, Boolean.TRUE) != null) continue;
      visit.accept(o);
      for (Object child : children(o)) pending.push(child);
    }
  }
}
