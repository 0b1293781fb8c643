package dev.sqlagent.eval;

import dev.sqlagent.eval.SqlText.Kind;
import dev.sqlagent.eval.SqlText.Token;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

/**
 * Breaks a working SELECT in one controlled, recorded way, so the repair loop has something to repair on
 * (nearly) every question and its rescue rate can be measured per kind of mistake. Each fault imitates a
 * mistake models really make and is built to fail in one known way:
 * <ul>
 *   <li>{@code wrong_case_status}: a status (or other upper-case code) literal in lower case,
 *       {@code status = 'PAID'} becomes {@code status = 'paid'}: no error, the query returns no rows;</li>
 *   <li>{@code ambiguous_column}: a table alias dropped from a column that two joined tables share: 42702;</li>
 *   <li>{@code misspelled_column}: a column named the way English would ({@code bill_dt} → {@code bill_date}):
 *       42703;</li>
 *   <li>{@code group_by_missing}: a grouped column left out of GROUP BY: 42803;</li>
 *   <li>{@code window_in_where}: a window function's filter written into WHERE: 42P20.</li>
 * </ul>
 * Pure functions on the SQL text: the statement keeps its formatting apart from the one edit. The choice of
 * fault is deterministic in a key (the question id), among the faults that apply to the given SQL.
 */
public final class FaultInjector {

  public enum FaultType {
    WRONG_CASE_STATUS("wrong_case_status", null),
    AMBIGUOUS_COLUMN("ambiguous_column", "42702"),
    MISSPELLED_COLUMN("misspelled_column", "42703"),
    GROUP_BY_MISSING("group_by_missing", "42803"),
    WINDOW_IN_WHERE("window_in_where", "42P20");

    private final String wireName;
    private final String expectedSqlState;

    FaultType(String wireName, String expectedSqlState) {
      this.wireName = wireName;
      this.expectedSqlState = expectedSqlState;
    }

    public String wireName() {
      return wireName;
    }

    /** The SQLSTATE the mutated query fails with; null when it runs and silently matches nothing. */
    public String expectedSqlState() {
      return expectedSqlState;
    }

    public static FaultType fromWireName(String name) {
      for (FaultType t : values()) if (t.wireName.equals(name)) return t;
      throw new IllegalArgumentException("unknown fault type: " + name);
    }
  }

  /** One applied fault: what was done, to which SQL, and the result. */
  public record Fault(FaultType type, String detail, String originalSql, String mutatedSql) {
    public JsonObject toJson() {
      return new JsonObject().put("type", type.wireName()).put("detail", detail)
          .put("expected", type.expectedSqlState() == null ? "no rows" : type.expectedSqlState())
          .put("original_sql", originalSql).put("mutated_sql", mutatedSql);
    }
  }


  /** Columns holding upper-case codes: a lower-case literal compared with them matches nothing. */
  private static final Set<String> CODED = Set.of("status", "role", "pay_mode", "reason", "unit");
  private static final Set<String> AGGREGATES = Set.of("count", "sum", "avg", "min", "max", "string_agg",
      "array_agg", "bool_and", "bool_or", "every", "stddev", "variance", "json_agg", "jsonb_agg");
  private static final Set<String> NOT_ALIASES = Set.of("on", "join", "left", "right", "inner", "outer", "full",
      "cross", "natural", "using", "where", "group", "order", "limit", "offset", "having", "window", "union",
      "intersect", "except", "fetch", "for", "lateral", "tablesample", "with", "select", "from");
  private static final Set<String> BEFORE_COLUMN_WORDS = Set.of("select", "where", "and", "or", "not", "on", "by",
      "when", "then", "else", "case", "in", "is", "between", "distinct", "having", "all", "any", "some", "from",
      "like", "ilike", "exists");
  private static final Set<String> BEFORE_COLUMN_PUNCT = Set.of(",", "(", "=", "<", ">", "<=", ">=", "<>", "!=",
      "+", "-", "*", "/", "%", "||");
  private static final Set<String> COMPARISONS = Set.of("=", "<", ">", "<=", ">=", "<>", "!=");
  private static final Pattern CODE_LITERAL = Pattern.compile("'[A-Z][A-Z_]*'");

  private final TableColumns schema;

  public FaultInjector(TableColumns schema) {
    this.schema = schema;
  }

  /** The agent's hook: mutates a question's first SQL, keyed by the question id the runner sends. */
  public dev.sqlagent.contract.FirstSqlMutator mutator() {
    return (sql, key) -> choose(sql, key)
        .map(f -> new dev.sqlagent.contract.FirstSqlMutator.Mutation(f.type().wireName(), f.mutatedSql()));
  }

  /**
   * One fault chosen deterministically by {@code key} among the applicable ones; empty when none applies.
   * A misspelling fits almost any query, so it is chosen only when no other fault applies: otherwise it
   * would crowd out the rarer faults and their rescue rates would rest on a handful of questions.
   */
  public Optional<Fault> choose(String sql, String key) {
    Map<FaultType, List<Fault>> all = applicable(sql);
    if (all.isEmpty()) return Optional.empty();
    if (all.size() > 1) all.remove(FaultType.MISSPELLED_COLUMN);
    List<FaultType> types = new ArrayList<>(all.keySet());
    FaultType type = types.get(Math.floorMod(hash(key), types.size()));
    List<Fault> options = all.get(type);
    return Optional.of(options.get(Math.floorMod(hash(key + "/" + type.wireName()), options.size())));
  }

  /** The same, restricted to one fault type. */
  public Optional<Fault> choose(String sql, String key, FaultType type) {
    List<Fault> options = candidates(sql, type);
    if (options.isEmpty()) return Optional.empty();
    return Optional.of(options.get(Math.floorMod(hash(key + "/" + type.wireName()), options.size())));
  }

  /** Every fault that applies, by type (types with no candidate left out), in enum order. */
  public Map<FaultType, List<Fault>> applicable(String sql) {
    Map<FaultType, List<Fault>> out = new EnumMap<>(FaultType.class);
    for (FaultType t : FaultType.values()) {
      List<Fault> c = candidates(sql, t);
      if (!c.isEmpty()) out.put(t, c);
    }
    return out;
  }

  /** Every way this fault type can be applied to the SQL (none when the SQL gives it no foothold). */
  public List<Fault> candidates(String sql, FaultType type) {
    if (sql == null || sql.isBlank()) return List.of();
    SqlText t = SqlText.of(sql);
    Analysis a = new Analysis(t);
    List<Fault> out = new ArrayList<>();
    switch (type) {
      case WRONG_CASE_STATUS -> wrongCase(a, out);
      case AMBIGUOUS_COLUMN -> ambiguous(a, out);
      case MISSPELLED_COLUMN -> misspelled(a, out);
      case GROUP_BY_MISSING -> groupByMissing(a, out);
      case WINDOW_IN_WHERE -> windowInWhere(a, out);
    }
    return out;
  }

  private static int hash(String key) {
    CRC32 crc = new CRC32();
    crc.update((key == null ? "" : key).getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }

  // ---- wrong case --------------------------------------------------------------------------------

  /**
   * Only where the emptied filter empties the whole result, which is the signal a repair loop can see: a
   * filter of the outermost query that is not a single-row aggregate (count over nothing is still a row).
   */
  private void wrongCase(Analysis a, List<Fault> out) {
    SqlText t = a.text;
    Set<Integer> done = new HashSet<>();
    for (Token lit : t.sig) {
      if (lit.kind != Kind.STRING || done.contains(lit.index) || !CODE_LITERAL.matcher(lit.text).matches()) continue;
      if (!Set.of("where", "from", "having").contains(lit.clause)) continue;
      ScopeInfo scope = a.scope(lit.scope);
      if (scope == null || scope.scope.depth() != 0 || ungroupedAggregate(t, scope)) continue;
      int i = lit.index;
      List<Token> literals = new ArrayList<>();
      String column = null;
      Token prev = t.sig(i - 1);
      Token next = t.sig(i + 1);
      if (prev != null && prev.isPunct("=")) {
        column = codedColumnEndingAt(t, i - 2);
        literals.add(lit);
      } else if (next != null && next.isPunct("=")) {
        column = codedColumnStartingAt(t, i + 2);
        literals.add(lit);
      } else if (prev != null && (prev.isPunct("(") || prev.isPunct(","))) {
        int open = i - 1;
        while (open >= 0 && !t.sig(open).isPunct("(")) open--;
        Token in = t.sig(open - 1);
        if (open > 0 && in.isWord("in") && !t.sig(open - 2).isWord("not")) {
          column = codedColumnEndingAt(t, open - 2);
          int close = t.closing(open);
          for (int k = open + 1; k < close; k++) {
            Token x = t.sig(k);
            if (x.kind == Kind.STRING && CODE_LITERAL.matcher(x.text).matches()) literals.add(x);
          }
        }
      }
      if (column == null || literals.isEmpty()) continue;
      Edits e = new Edits(t.sql);
      List<String> changed = new ArrayList<>();
      for (Token x : literals) {
        done.add(x.index);
        e.replace(x.start, x.end, x.text.toLowerCase(Locale.ROOT));
        changed.add(x.text + " → " + x.text.toLowerCase(Locale.ROOT));
      }
      out.add(new Fault(FaultType.WRONG_CASE_STATUS, column + ": " + String.join(", ", changed), t.sql, e.apply()));
    }
  }

  private static boolean ungroupedAggregate(SqlText t, ScopeInfo s) {
    if (!t.clauseTokens(s.scope.id(), "group").isEmpty()) return false;
    return t.clauseTokens(s.scope.id(), "select").stream().anyMatch(x -> x.kind == Kind.WORD
        && AGGREGATES.contains(x.lower()) && t.sig(x.index + 1) != null && t.sig(x.index + 1).isPunct("("));
  }

  /** The coded column name when tokens up to {@code end} read [qualifier.]column, else null. */
  private static String codedColumnEndingAt(SqlText t, int end) {
    Token c = t.sig(end);
    return c != null && c.kind == Kind.WORD && CODED.contains(c.lower()) ? c.lower() : null;
  }

  private static String codedColumnStartingAt(SqlText t, int start) {
    Token c = t.sig(start);
    if (c == null || c.kind != Kind.WORD) return null;
    Token dot = t.sig(start + 1);
    if (dot != null && dot.isPunct(".")) c = t.sig(start + 2);
    return c != null && c.kind == Kind.WORD && CODED.contains(c.lower()) ? c.lower() : null;
  }

  // ---- dropped alias: ambiguous column ------------------------------------------------------------

  private void ambiguous(Analysis a, List<Fault> out) {
    for (ColumnRef r : a.refs) {
      if (r.qualifier == null || !Set.of("select", "where", "from").contains(r.clause)) continue;
      ScopeInfo s = a.scope(r.scope);
      if (s.hasUsing) continue;
      FromItem item = s.resolve(r.qualifier.lower());
      if (item == null || item.table == null || !schema.hasColumn(item.table, r.column)) continue;
      // In a JOIN's ON condition only the tables joined so far are visible.
      boolean on = r.clause.equals("from");
      FromItem other = s.items.stream()
          .filter(o -> o != item && o.table != null && schema.hasColumn(o.table, r.column))
          .filter(o -> !on || o.position < r.name.index)
          .findFirst().orElse(null);
      if (other == null) continue;
      Edits e = new Edits(a.text.sql);
      e.replace(r.qualifier.start, r.name.start, "");
      out.add(new Fault(FaultType.AMBIGUOUS_COLUMN, "dropped the alias of " + r.qualifier.text + "." + r.name.text
          + " (" + r.column + " is also a column of " + other.table + ")", a.text.sql, e.apply()));
    }
  }

  // ---- misspelled column ----------------------------------------------------------------------------

  private void misspelled(Analysis a, List<Fault> out) {
    Set<String> words = a.text.sig.stream().filter(x -> x.kind == Kind.WORD).map(Token::lower)
        .collect(Collectors.toSet());
    for (ColumnRef r : a.refs) {
      if (!(r.clause.equals("select") || r.clause.equals("where"))) continue;
      String wrong = misspell(r.column);
      if (wrong == null || words.contains(wrong) || schema.isColumnAnywhere(wrong)) continue;
      Edits e = new Edits(a.text.sql);
      e.replace(r.name.start, r.name.end, wrong);
      out.add(new Fault(FaultType.MISSPELLED_COLUMN, r.name.text + " → " + wrong, a.text.sql, e.apply()));
    }
  }

  private static final String[][] SPELLINGS = {
    {"_dt", "_date"}, {"_amt", "_amount"}, {"_lvl", "_level"}, {"_no", "_number"}, {"_qty", "_quantity"},
  };
  private static final String[][] PREFIXES = {
    {"cust_", "customer_"}, {"emp_", "employee_"}, {"prod_", "product_"}, {"supp_", "supplier_"},
    {"cat_", "category_"}, {"qty_", "quantity_"}, {"po_", "order_"}, {"txn_", "transaction_"},
  };

  /** The name as English would spell it (bill_dt → bill_date), else the name without its last vowel. */
  static String misspell(String column) {
    for (String[] s : SPELLINGS) {
      if (column.endsWith(s[0])) return column.substring(0, column.length() - s[0].length()) + s[1];
    }
    for (String[] p : PREFIXES) {
      if (column.startsWith(p[0])) return p[1] + column.substring(p[0].length());
    }
    switch (column) {
      case "amt": return "amount";
      case "qty": return "quantity";
      default: break;
    }
    for (int i = column.length() - 1; i > 0; i--) {
      if ("aeiou".indexOf(column.charAt(i)) >= 0) return column.substring(0, i) + column.substring(i + 1);
    }
    return null;
  }

  // ---- GROUP BY missing a column --------------------------------------------------------------------

  private void groupByMissing(Analysis a, List<Fault> out) {
    SqlText t = a.text;
    for (ScopeInfo s : a.scopes.values()) {
      List<List<Token>> items = splitTopLevel(t, s, "group", 2);
      if (items.isEmpty()) continue;
      List<Token> selectTokens = t.clauseTokens(s.scope.id(), "select");
      Set<Integer> inAggregate = aggregateInsides(t, selectTokens);
      boolean hasAggregate = selectTokens.stream().anyMatch(x -> x.kind == Kind.WORD && AGGREGATES.contains(x.lower())
          && t.sig(x.index + 1) != null && t.sig(x.index + 1).isPunct("("));
      if (!hasAggregate) continue;
      List<List<Token>> selectItems = splitTopLevel(t, s, "select", 1);
      for (int k = 0; k < items.size(); k++) {
        List<Token> item = items.get(k);
        if (item.stream().anyMatch(x -> x.scope != s.scope.id())) continue;   // a subquery: leave it
        if (!ungroupedWithout(a, s, item, items, selectTokens, selectItems, inAggregate)) continue;
        Edits e = new Edits(t.sql);
        if (items.size() == 1) {
          Token group = t.sig(item.get(0).index - 2);
          e.replace(spaceBefore(t.sql, group.start), item.get(item.size() - 1).end, "");
        } else if (k == 0) {
          Token comma = t.sig(item.get(item.size() - 1).index + 1);
          e.replace(item.get(0).start, t.sig(comma.index + 1).start, "");
        } else {
          Token comma = t.sig(item.get(0).index - 1);
          e.replace(comma.start, item.get(item.size() - 1).end, "");
        }
        String removed = t.text(item.get(0).index, item.get(item.size() - 1).index);
        out.add(new Fault(FaultType.GROUP_BY_MISSING, "removed " + removed + " from GROUP BY", t.sql, e.apply()));
      }
    }
  }

  /** Whether the SELECT list still uses {@code item} outside aggregates once it leaves GROUP BY. */
  private boolean ungroupedWithout(Analysis a, ScopeInfo s, List<Token> item, List<List<Token>> items,
      List<Token> selectTokens, List<List<Token>> selectItems, Set<Integer> inAggregate) {
    SqlText t = a.text;
    if (item.size() == 1 && item.get(0).kind == Kind.NUMBER) {
      int k;
      try {
        k = Integer.parseInt(item.get(0).text);
      } catch (NumberFormatException e) {
        return false;
      }
      if (k < 1 || k > selectItems.size()) return false;
      List<Token> sel = selectItems.get(k - 1);
      return sel.stream().noneMatch(x -> inAggregate.contains(x.index) || (x.kind == Kind.WORD
          && AGGREGATES.contains(x.lower()))) && refsIn(a, sel).stream().anyMatch(r -> !dependent(a, s, r, item, items));
    }
    List<ColumnRef> refs = refsIn(a, item);
    if (refs.size() == 1 && refs.get(0).first == item.get(0) && refs.get(0).name == item.get(item.size() - 1)) {
      ColumnRef g = refs.get(0);
      if (dependent(a, s, g, item, items)) return false;
      return a.refs.stream().anyMatch(r -> r.scope == s.scope.id() && r.clause.equals("select")
          && !inAggregate.contains(r.name.index) && sameColumn(r, g));
    }
    // An expression (e.g. extract(month FROM bill_dt)): it must appear as written in the SELECT list.
    String expr = normalized(item);
    return selectItems.stream().anyMatch(sel -> {
      String text = normalized(sel);
      return text.startsWith(expr) && sel.stream().noneMatch(x -> inAggregate.contains(x.index));
    });
  }

  /** PostgreSQL allows a column left out when the table's primary key stays in GROUP BY. */
  private boolean dependent(Analysis a, ScopeInfo s, ColumnRef removed, List<Token> item, List<List<Token>> items) {
    FromItem from = removed.qualifier == null ? s.owner(removed.column, schema)
        : s.resolve(removed.qualifier.lower());
    if (from == null || from.table == null) return false;
    String pk = schema.primaryKeys().get(from.table);
    for (List<Token> other : items) {
      if (other == item) continue;
      for (ColumnRef r : refsIn(a, other)) {
        if (!r.column.equals(pk)) continue;
        FromItem of = r.qualifier == null ? s.owner(r.column, schema) : s.resolve(r.qualifier.lower());
        if (of == from) return true;
      }
    }
    return false;
  }

  private static boolean sameColumn(ColumnRef r, ColumnRef g) {
    if (!r.column.equals(g.column)) return false;
    if (r.qualifier == null || g.qualifier == null) return true;
    return r.qualifier.lower().equals(g.qualifier.lower());
  }

  private static String normalized(List<Token> tokens) {
    return tokens.stream().map(Token::lower).collect(Collectors.joining(" "));
  }

  private static List<ColumnRef> refsIn(Analysis a, List<Token> tokens) {
    Set<Integer> idx = tokens.stream().map(x -> x.index).collect(Collectors.toSet());
    return a.refs.stream().filter(r -> idx.contains(r.name.index)).toList();
  }

  /** Token indexes inside aggregate calls (and their FILTER clauses) among the given tokens. */
  private static Set<Integer> aggregateInsides(SqlText t, List<Token> tokens) {
    Set<Integer> inside = new HashSet<>();
    for (Token x : tokens) {
      Token open = t.sig(x.index + 1);
      if (x.kind != Kind.WORD || !AGGREGATES.contains(x.lower()) || open == null || !open.isPunct("(")) continue;
      int close = t.closing(open.index);
      for (int i = open.index; i <= close; i++) inside.add(i);
      Token filter = t.sig(close + 1);
      if (filter != null && filter.isWord("filter") && t.sig(close + 2) != null && t.sig(close + 2).isPunct("(")) {
        int fclose = t.closing(close + 2);
        for (int i = close + 1; i <= fclose; i++) inside.add(i);
      }
    }
    return inside;
  }

  /**
   * The comma-separated items of one clause of a scope, at the scope's own depth, skipping the clause's
   * first {@code skip} keywords (SELECT: 1, GROUP BY: 2). SELECT items lose a DISTINCT and their alias.
   */
  private static List<List<Token>> splitTopLevel(SqlText t, ScopeInfo s, String clause, int skip) {
    List<Token> all = t.clauseTokens(s.scope.id(), clause);
    if (all.size() <= skip) return List.of();
    if (!all.get(0).isWord(clause)) return List.of();
    List<Token> body = new ArrayList<>(all.subList(skip, all.size()));
    if (clause.equals("select") && !body.isEmpty() && (body.get(0).isWord("distinct") || body.get(0).isWord("all"))) {
      if (body.size() > 1 && body.get(1).isWord("on")) return List.of();
      body.remove(0);
    }
    // Stop at a nested SELECT's tokens: clauseTokens already excludes them; the parens stay.
    List<List<Token>> items = new ArrayList<>();
    List<Token> cur = new ArrayList<>();
    for (Token x : body) {
      if (x.isPunct(",") && x.depth == s.scope.depth()) {
        items.add(cur);
        cur = new ArrayList<>();
      } else {
        cur.add(x);
      }
    }
    items.add(cur);
    if (items.stream().anyMatch(List::isEmpty)) return List.of();
    if (clause.equals("select")) {
      for (List<Token> item : items) {
        int n = item.size();
        if (n >= 2 && item.get(n - 2).isWord("as")) {
          item.subList(n - 2, n).clear();
        } else if (n >= 2 && item.get(n - 1).kind == Kind.WORD && (item.get(n - 2).isPunct(")")
            || item.get(n - 2).kind == Kind.WORD || item.get(n - 2).kind == Kind.NUMBER)
            && !item.get(n - 2).isPunct(".")) {
          item.remove(n - 1);
        }
      }
    }
    return items;
  }

  private static int spaceBefore(String sql, int pos) {
    int p = pos;
    while (p > 0 && Character.isWhitespace(sql.charAt(p - 1))) p--;
    return p;
  }

  // ---- window function in WHERE -------------------------------------------------------------------

  private void windowInWhere(Analysis a, List<Fault> out) {
    SqlText t = a.text;
    for (ScopeInfo s : a.scopes.values()) {
      List<Token> selectTokens = t.clauseTokens(s.scope.id(), "select");
      List<Token> fromTokens = t.clauseTokens(s.scope.id(), "from");
      if (fromTokens.isEmpty()) continue;
      for (Token f : selectTokens) {
        Token open = t.sig(f.index + 1);
        if (f.kind != Kind.WORD || open == null || !open.isPunct("(")) continue;
        int close = t.closing(open.index);
        Token over = t.sig(close + 1);
        Token wopen = t.sig(close + 2);
        if (over == null || !over.isWord("over") || wopen == null || !wopen.isPunct("(")) continue;
        int wclose = t.closing(wopen.index);
        if (wclose < 0) continue;
        boolean nested = false;
        for (int i = f.index; i <= wclose; i++) nested |= t.sig(i).scope != s.scope.id();
        if (nested) continue;
        String window = t.text(f.index, wclose);
        String alias = aliasOfItemAround(t, s, wclose);
        String cond = outerFilter(t, s, alias, window);
        Edits e = new Edits(t.sql);
        List<Token> where = t.clauseTokens(s.scope.id(), "where");
        if (!where.isEmpty() && where.get(0).isWord("where")) {
          Token kw = where.get(0);
          Token first = t.sig(kw.index + 1);
          Token last = where.get(where.size() - 1);
          e.replace(kw.end, last.end, " " + cond + " AND (" + t.sql.substring(first.start, last.end) + ")");
        } else {
          e.replace(fromTokens.get(fromTokens.size() - 1).end, fromTokens.get(fromTokens.size() - 1).end,
              " WHERE " + cond);
        }
        out.add(new Fault(FaultType.WINDOW_IN_WHERE, "WHERE " + cond, t.sql, e.apply()));
      }
    }
  }

  /** The alias of the SELECT item that ends at or after {@code from}, if it has one. */
  private static String aliasOfItemAround(SqlText t, ScopeInfo s, int from) {
    for (int i = from + 1; i < t.sig.size(); i++) {
      Token x = t.sig(i);
      if (x.scope != s.scope.id()) continue;
      if (!"select".equals(x.clause) || (x.depth == s.scope.depth() && x.isPunct(","))) return null;
      if (x.depth != s.scope.depth()) continue;
      if (x.isWord("as")) {
        Token alias = t.sig(i + 1);
        return alias == null ? null : alias.lower();
      }
      Token next = t.sig(i + 1);
      if (x.kind == Kind.WORD && (next == null || next.isPunct(",") || !"select".equals(next.clause)
          || next.scope != s.scope.id()) && t.sig(i - 1).isPunct(")")) {
        return x.lower();
      }
    }
    return null;
  }

  /** The filter an outer query applies to the window's alias (rk = 1), moved onto the window itself. */
  private static String outerFilter(SqlText t, ScopeInfo s, String alias, String window) {
    if (alias != null) {
      for (Token x : t.sig) {
        if (x.scope == s.scope.id() || !"where".equals(x.clause) || x.kind != Kind.WORD || !x.lower().equals(alias)) {
          continue;
        }
        Token op = t.sig(x.index + 1);
        Token value = t.sig(x.index + 2);
        if (op != null && value != null && op.kind == Kind.PUNCT && COMPARISONS.contains(op.text)
            && (value.kind == Kind.NUMBER || value.kind == Kind.STRING)) {
          return window + " " + op.text + " " + value.text;
        }
      }
    }
    return "(" + window + ") IS NOT NULL";
  }

  // ---- analysis of the statement ----------------------------------------------------------------

  /** A table in a scope's FROM: its alias and, when it is a known base table, its name. */
  private static final class FromItem {
    final String alias;
    final String table;
    final int position;

    FromItem(String alias, String table, int position) {
      this.alias = alias;
      this.table = table;
      this.position = position;
    }
  }

  private static final class ScopeInfo {
    final SqlText.Scope scope;
    final List<FromItem> items = new ArrayList<>();
    boolean hasUsing;

    ScopeInfo(SqlText.Scope scope) {
      this.scope = scope;
    }

    FromItem resolve(String qualifier) {
      for (FromItem i : items) if (i.alias.equals(qualifier)) return i;
      return null;
    }

    /** The single known table in this scope with that column, if exactly one. */
    FromItem owner(String column, TableColumns schema) {
      List<FromItem> owners = items.stream().filter(i -> i.table != null && schema.hasColumn(i.table, column)).toList();
      return owners.size() == 1 ? owners.get(0) : null;
    }
  }

  /** A column reference: [qualifier .] name, in a scope and clause. */
  private record ColumnRef(Token first, Token qualifier, Token name, String column, int scope, String clause) {}

  private final class Analysis {
    final SqlText text;
    final Map<Integer, ScopeInfo> scopes = new LinkedHashMap<>();
    final List<ColumnRef> refs = new ArrayList<>();
    final Set<String> cteNames = new HashSet<>();

    Analysis(SqlText text) {
      this.text = text;
      findCtes();
      for (SqlText.Scope s : text.scopes) {
        if (s.id() == 0) continue;
        ScopeInfo info = new ScopeInfo(s);
        readFrom(info);
        scopes.put(s.id(), info);
      }
      findRefs();
    }

    ScopeInfo scope(int id) {
      return scopes.get(id);
    }

    private void findCtes() {
      for (Token x : text.sig) {
        Token as = text.sig(x.index + 1);
        Token open = text.sig(x.index + 2);
        Token before = text.sig(x.index - 1);
        if (x.kind == Kind.WORD && as != null && as.isWord("as") && open != null && open.isPunct("(")
            && before != null && (before.isWord("with") || before.isWord("recursive") || before.isPunct(","))
            && "with".equals(x.clause)) {
          cteNames.add(x.lower());
        }
      }
    }

    private void readFrom(ScopeInfo s) {
      List<Token> from = text.clauseTokens(s.scope.id(), "from").stream()
          .filter(x -> x.depth == s.scope.depth()).toList();
      boolean expect = false;
      for (int k = 0; k < from.size(); k++) {
        Token x = from.get(k);
        if (x.isWord("using") || x.isWord("natural")) s.hasUsing = true;
        if (x.isWord("from") || x.isWord("join") || x.isPunct(",")) {
          expect = true;
          continue;
        }
        if (!expect || x.isWord("lateral") || x.isWord("only")) continue;
        expect = false;
        String table = null;
        int end = x.index;
        if (x.isPunct("(")) {
          end = text.closing(x.index);
        } else if (x.kind == Kind.WORD) {
          table = x.lower();
          Token dot = text.sig(x.index + 1);
          if (dot != null && dot.isPunct(".") && text.sig(x.index + 2) != null) {
            end = x.index + 2;
            table = text.sig(end).lower();
          }
        } else {
          continue;
        }
        String alias = table;
        Token next = text.sig(end + 1);
        if (next != null && next.isWord("as")) next = text.sig(end + 2);
        if (next != null && next.kind == Kind.WORD && !NOT_ALIASES.contains(next.lower())) alias = next.lower();
        if (alias == null) continue;
        boolean known = table != null && !cteNames.contains(table) && schema.columns().containsKey(table);
        s.items.add(new FromItem(alias, known ? table : null, x.index));
      }
    }

    private void findRefs() {
      for (Token x : text.sig) {
        if (x.kind != Kind.WORD || x.scope == 0 || !scopes.containsKey(x.scope)) continue;
        Token next = text.sig(x.index + 1);
        if (next != null && (next.isPunct("(") || next.isPunct("."))) continue;
        Token prev = text.sig(x.index - 1);
        ScopeInfo s = scopes.get(x.scope);
        if (prev != null && prev.isPunct(".")) {
          Token q = text.sig(x.index - 2);
          Token beforeQ = text.sig(x.index - 3);
          if (q == null || q.kind != Kind.WORD || (beforeQ != null && beforeQ.isPunct("."))) continue;
          if (s.resolve(q.lower()) == null) continue;
          refs.add(new ColumnRef(q, q, x, x.lower(), x.scope, x.clause));
          continue;
        }
        if (!schema.isColumnAnywhere(x.lower())) continue;
        if (prev == null || !(prev.kind == Kind.PUNCT && BEFORE_COLUMN_PUNCT.contains(prev.text)
            || prev.kind == Kind.WORD && BEFORE_COLUMN_WORDS.contains(prev.lower()))) {
          continue;
        }
        if (prev.isWord("from") && prev.depth == s.scope.depth()) continue;   // a table name
        refs.add(new ColumnRef(x, null, x, x.lower(), x.scope, x.clause));
      }
    }
  }

  /** Text edits applied right to left, so earlier offsets stay valid. */
  private static final class Edits {
    private final String sql;
    private final List<int[]> ranges = new ArrayList<>();
    private final List<String> replacements = new ArrayList<>();

    Edits(String sql) {
      this.sql = sql;
    }

    void replace(int start, int end, String with) {
      ranges.add(new int[] {start, end});
      replacements.add(with);
    }

    String apply() {
      Integer[] order = new Integer[ranges.size()];
      for (int i = 0; i < order.length; i++) order[i] = i;
      Arrays.sort(order, (x, y) -> Integer.compare(ranges.get(y)[0], ranges.get(x)[0]));
      StringBuilder b = new StringBuilder(sql);
      for (int i : order) b.replace(ranges.get(i)[0], ranges.get(i)[1], replacements.get(i));
      return b.toString();
    }
  }
}
