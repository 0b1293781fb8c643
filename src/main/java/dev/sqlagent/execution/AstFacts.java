package dev.sqlagent.execution;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * What a parsed statement contains, found by walking every object reachable from it ({@link ParseTree}: by
 * reflection over JSqlParser's fields, not its visitors, so no node type a visitor forgets is skipped): the tables it
 * reads, its CTE names, the functions it calls, data-modifying statements anywhere inside (CTEs
 * included), SELECT INTO and locking clauses.
 */
final class AstFacts {

  /** A table reference: normalised schema (null if unqualified) and name. */
  record TableRef(String schema, String name) {}

  final List<TableRef> tables = new ArrayList<>();
  final Set<String> cteNames = new LinkedHashSet<>();
  final List<String> functions = new ArrayList<>();
  final List<String> modifying = new ArrayList<>();
  boolean into;
  boolean locking;

  static AstFacts of(Statement statement) {
    AstFacts facts = new AstFacts();
    facts.walk(statement);
    return facts;
  }

  private void walk(Object root) {
    Map<Object, Boolean> seen = new IdentityHashMap<>();
    Deque<Object> pending = new ArrayDeque<>();
    pending.push(root);
    while (!pending.isEmpty()) {
      Object o = pending.pop();
      if (o == null || seen.put(o, Boolean.TRUE) != null) continue;
      if (ParseTree.isNode(o)) inspect(o);
      for (Object v : ParseTree.children(o)) {
        // A column's or t.*'s table is a qualifier, not a relation the query reads.
        if (v instanceof Table && (o instanceof Column || o instanceof AllTableColumns)) continue;
        pending.push(v);
      }
    }
  }

  private void inspect(Object o) {
    if (o instanceof Table t) {
      tables.add(new TableRef(VisibleSchema.normalise(t.getSchemaName()), VisibleSchema.normalise(t.getName())));
    } else if (o instanceof WithItem<?> w && w.getAliasName() != null) {
      cteNames.add(VisibleSchema.normalise(w.getAliasName()));
    } else if (o instanceof Function f) {
      List<String> parts = f.getMultipartName();
      String last = parts == null || parts.isEmpty() ? f.getName() : parts.get(parts.size() - 1);
      if (last != null) functions.add(VisibleSchema.normalise(last));
    } else if (o instanceof AnalyticExpression a && a.getName() != null) {
      functions.add(VisibleSchema.normalise(a.getName()));
    }
    if (o instanceof Statement && !(o instanceof Select)) {
      modifying.add(o.getClass().getSimpleName().replace("Parenthesed", "").toUpperCase(java.util.Locale.ROOT));
    }
    if (o instanceof PlainSelect p && ((p.getIntoTables() != null && !p.getIntoTables().isEmpty())
        || p.getIntoTempTable() != null)) {
      into = true;
    }
    if (o instanceof Select s && (s.getForMode() != null || s.getForUpdateTable() != null || s.isSkipLocked()
        || s.isNoWait() || s.getWait() != null)) {
      locking = true;
    }
  }
}
