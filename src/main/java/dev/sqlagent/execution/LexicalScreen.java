package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.catalogue.DenyList;

import dev.sqlagent.execution.PgLexer.Token;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Refusals decided from PostgreSQL's tokens alone, applied to every query, parsed or not. It is what
 * stands between an input JSqlParser cannot parse (or reads differently from PostgreSQL) and the database,
 * so each rule is chosen to refuse what PostgreSQL would execute as harm while never refusing a valid
 * read:
 * <ul>
 *   <li>more than one statement (a ';' followed by anything), brackets that do not balance, nesting
 *       deeper than the limit;
 *   <li>a first keyword other than SELECT, WITH, VALUES or TABLE (after any opening brackets);
 *   <li>INTO anywhere: a reserved word, so never an identifier; in a query it only means SELECT INTO;
 *   <li>FOR UPDATE / SHARE / NO KEY UPDATE / KEY SHARE: a locking clause (the only false positive would be
 *       a column literally named update, share, no or key used as substring's FOR argument);
 *   <li>INSERT, UPDATE, DELETE or MERGE right after "AS (" or "MATERIALIZED (": the only place PostgreSQL
 *       accepts a data-modifying statement inside a query is a WITH item's body;
 *   <li>a deny-listed function name (bare, quoted, U&amp;-escaped, schema-qualified) followed by "(" or
 *       preceded by "." (attribute-call notation);
 *   <li>a table the role may not read (the query log), anything qualified with pg_catalog, pg_toast or
 *       information_schema that is not a function call or a type, and a pg_-prefixed name right after
 *       FROM, JOIN, ONLY or TABLE: {@code unknown_table} with the list of real tables.
 * </ul>
 * Keywords used as column names (update, delete) are deliberately not refused anywhere else, because
 * PostgreSQL allows them as identifiers and the database itself cannot write anyway.
 */
final class LexicalScreen {
  private LexicalScreen() {}

  private static final Set<String> QUERY_STARTS = Set.of("select", "with", "values", "table");
  /** First words of PostgreSQL's other statements: refused as such, not as typos. */
  private static final Set<String> OTHER_STATEMENTS = Set.of("insert", "update", "delete", "merge", "drop", "create",
      "alter", "truncate", "grant", "revoke", "copy", "set", "reset", "show", "begin", "start", "commit", "rollback",
      "end", "abort", "savepoint", "release", "prepare", "execute", "deallocate", "declare", "fetch", "move", "close",
      "listen", "unlisten", "notify", "lock", "vacuum", "analyze", "analyse", "cluster", "reindex", "checkpoint",
      "discard", "do", "call", "explain", "comment", "security", "refresh", "import", "load", "reassign", "upsert",
      "replace", "use", "exec", "attach", "detach", "pragma");
  private static final Set<String> MODIFYING = Set.of("insert", "update", "delete", "merge");
  private static final Set<String> LOCK_WORDS = Set.of("update", "share", "no", "key");
  private static final Set<String> SYSTEM_SCHEMAS = Set.of("pg_catalog", "pg_toast", "information_schema");
  private static final Set<String> RELATION_POSITION = Set.of("from", "join", "only", "table");

  static Optional<GateError> screen(PgLexer.Result lexed, VisibleSchema schema, int maxDepth) {
    List<Token> t = lexed.tokens();
    if (t.isEmpty()) {
      return Optional.of(GateError.rejected("The query is empty.", "Send exactly one SELECT statement.", null));
    }
    for (int i = 0; i < t.size(); i++) {
      if (t.get(i).isPunct(";") && i + 1 < t.size()) {
        return Optional.of(GateError.rejected("More than one statement: only a single SELECT may run.",
            "Send exactly one SELECT statement, without a second statement after the ';'.", t.get(i + 1).start() + 1));
      }
    }
    if (lexed.unbalanced()) {
      return Optional.of(GateError.of(ErrorType.SYNTAX_ERROR,
          lexed.unbalancedAt() >= t.get(t.size() - 1).end() ? "Unbalanced brackets: a '(' or '[' is never closed."
              : "Unbalanced brackets: a ')' or ']' closes nothing.",
          "Make every opening bracket match a closing one.", lexed.unbalancedAt() + 1));
    }
    if (lexed.maxDepth() > maxDepth) {
      return Optional.of(GateError.rejected("The query nests brackets " + lexed.maxDepth()
          + " deep; the gate accepts at most " + maxDepth + ".", "Flatten the query: use WITH for subqueries.", null));
    }
    int first = 0;
    while (first < t.size() && t.get(first).isPunct("(")) first++;
    Token head = first < t.size() ? t.get(first) : t.get(0);
    if (head.kind() != PgLexer.Kind.WORD || !QUERY_STARTS.contains(head.name())) {
      if (head.kind() == PgLexer.Kind.WORD && OTHER_STATEMENTS.contains(head.name())) {
        return Optional.of(GateError.rejected("Only a single read-only query may run, and "
            + head.text().toUpperCase(java.util.Locale.ROOT) + " is not one.",
            "Write one SELECT (or WITH ... SELECT, VALUES, TABLE) statement.", head.start() + 1));
      }
      // Not a statement PostgreSQL knows: a typo the model can repair.
      return Optional.of(GateError.of(ErrorType.SYNTAX_ERROR, "Syntax error at or near \"" + head.text()
          + "\": a query starts with SELECT, WITH, VALUES or TABLE.", "Start the query with SELECT.", head.start() + 1));
    }
    Set<String> cteNames = cteNames(t);
    for (int i = 0; i < t.size(); i++) {
      Optional<GateError> e = screenToken(t, i, schema, cteNames);
      if (e.isPresent()) return e;
    }
    return Optional.empty();
  }

  /** Names defined by WITH items: {@code name [(cols)] AS [NOT] [MATERIALIZED] (}. */
  private static Set<String> cteNames(List<Token> t) {
    Set<String> names = new java.util.HashSet<>();
    for (int i = 0; i + 1 < t.size(); i++) {
      if (!t.get(i).isIdentifier()) continue;
      int k = i + 1;
      if (t.get(k).isPunct("(")) {
        int depth = t.get(k).depth();
        while (k + 1 < t.size() && !(t.get(k).isPunct(")") && t.get(k).depth() == depth)) k++;
        k++;
      }
      if (k + 1 < t.size() && t.get(k).isWord("as")) {
        Token after = t.get(k + 1);
        if (after.isPunct("(") || after.isWord("materialized") || after.isWord("not")) names.add(t.get(i).name());
      }
    }
    return names;
  }

  private static Optional<GateError> screenToken(List<Token> t, int i, VisibleSchema schema, Set<String> cteNames) {
    Token tok = t.get(i);
    Token prev = i > 0 ? t.get(i - 1) : null;
    Token next = i + 1 < t.size() ? t.get(i + 1) : null;
    int pos = tok.start() + 1;
    if (tok.isWord("into")) {
      return Optional.of(GateError.rejected("SELECT INTO creates a table; the gate only runs reads.",
          "Remove the INTO clause and select the rows.", pos));
    }
    if (tok.isWord("for") && next != null && next.kind() == PgLexer.Kind.WORD && LOCK_WORDS.contains(next.name())) {
      return Optional.of(GateError.rejected("Locking clauses (FOR UPDATE, FOR SHARE, ...) are not allowed: the "
          + "gate only runs reads that take no row locks.", "Remove the FOR ... clause.", pos));
    }
    if (tok.kind() == PgLexer.Kind.WORD && MODIFYING.contains(tok.name()) && prev != null && prev.isPunct("(")
        && i >= 2 && (t.get(i - 2).isWord("as") || t.get(i - 2).isWord("materialized"))) {
      return Optional.of(GateError.rejected("A data-modifying statement (" + tok.text().toUpperCase(java.util.Locale.ROOT)
          + ") inside WITH: the gate only runs reads.", "Every WITH item must be a SELECT.", pos));
    }
    if (!tok.isIdentifier()) return Optional.empty();
    boolean call = next != null && next.isPunct("(");
    boolean afterDot = prev != null && prev.isPunct(".");
    Optional<String> denied = DenyList.reason(tok.name());
    if (denied.isPresent() && (call || afterDot)) {
      return Optional.of(GateError.rejected("The function " + tok.name().toLowerCase(java.util.Locale.ROOT) + " may not be called: " + denied.get() + ".",
          "Use only functions that compute values from the tables' rows.", pos));
    }
    boolean qualifier = next != null && next.isPunct(".");
    boolean typeContext = prev != null && (prev.isPunct("::") || prev.isWord("as"));
    if (cteNames.contains(tok.name()) && !afterDot && !qualifier) return Optional.empty();
    if (!call && !qualifier && !afterDot && schema.isHidden(null, tok.name()) && schema.resolve(null, tok.name()).isEmpty()) {
      return Optional.of(unknownTable(tok.name() + " is not a table you can query.", schema, pos));
    }
    if (qualifier && i + 2 < t.size() && t.get(i + 2).isIdentifier() && schema.isHidden(tok.name(), t.get(i + 2).name())) {
      return Optional.of(unknownTable(tok.name() + "." + t.get(i + 2).name() + " is not a table you can query.",
          schema, pos));
    }
    if (qualifier && !typeContext && SYSTEM_SCHEMAS.contains(tok.name()) && i + 2 < t.size()
        && t.get(i + 2).isIdentifier() && !(i + 3 < t.size() && t.get(i + 3).isPunct("("))) {
      return Optional.of(unknownTable(tok.name() + "." + t.get(i + 2).name()
          + " is a system catalogue, not a table of this database's data.", schema, pos));
    }
    if (!call && !qualifier && prev != null && prev.kind() == PgLexer.Kind.WORD && RELATION_POSITION.contains(prev.name())
        && tok.name().startsWith("pg_") && schema.resolve(null, tok.name()).isEmpty()) {
      return Optional.of(unknownTable(tok.name() + " is a system catalogue, not a table of this database's data.",
          schema, pos));
    }
    return Optional.empty();
  }

  static GateError unknownTable(String message, VisibleSchema schema, Integer position) {
    return GateError.of(ErrorType.UNKNOWN_TABLE, message, schema.tablesHint(), position);
  }
}
