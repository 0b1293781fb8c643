package dev.sqlagent.execution;

import dev.sqlagent.contract.GateError;
import dev.sqlagent.catalogue.DenyList;

import dev.sqlagent.catalogue.Functions;
import dev.sqlagent.catalogue.Functions.Fn;
import dev.sqlagent.config.AppConfig.FunctionName;
import dev.sqlagent.execution.PgLexer.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The gate's function rule, judged from the catalogue ({@link Functions}) before anything reaches PostgreSQL: its
 * planner runs IMMUTABLE and STABLE functions with constant arguments while it plans, so the plan is too late to
 * look.
 *
 * <ul>
 *   <li>A function the text calls (bare, quoted, schema-qualified, or in attribute notation {@code t.f}) may be a
 *       core function off the deny list, one of a vetted extension, or one named in {@code SQLAGENT_ALLOW_FUNCTIONS};
 *       any other user function is refused, naming it and how to allow it. Names resolve as PostgreSQL resolves them:
 *       a bare name finds the functions of the role's search path, a qualified one those of its schema, and only
 *       those that take the call's number of arguments. Where a core function and a user one could both take the
 *       call, only types would decide: the call passes unless the user one is escape-capable (or the role may execute
 *       an escape-capable function, which any user function's body could call).
 *   <li>An operator (or {@code OPERATOR(schema.op)}) whose function is a user function counts as that function;
 *       when the core has the same symbol, only an escape-capable one refuses.
 *   <li>A cast to a type whose cast function or domain CHECK is a user function counts as that function.
 *   <li>A relation whose view definition or row-level policies call an escape-capable or deny-listed function
 *       (through any views, operators, aggregates and domains) is refused, naming the relation and the function.
 *   <li>An escape-capable function is never allowed, whatever the allow-list says.
 * </ul>
 */
final class FunctionRule {

  static final String ALLOW_HINT = "To allow a user function, list it in SQLAGENT_ALLOW_FUNCTIONS (schema.name, "
      + "comma-separated) or under allow_functions in the notes file.";

  /**
   * Words PostgreSQL's grammar reads as syntax before '(' when unquoted, never as a call of a function by that name
   * (TRIM, POSITION, SUBSTRING, OVERLAY, EXTRACT and NORMALIZE become pg_catalog's own functions).
   */
  private static final Set<String> SYNTAX = Set.of("coalesce", "greatest", "least", "nullif", "exists", "cast", "row",
      "array", "values", "in", "any", "all", "some", "trim", "position", "substring", "overlay", "extract", "normalize",
      "treat", "grouping", "xmlelement", "xmlforest", "xmlconcat", "xmlpi", "xmlroot", "xmlparse", "xmlserialize",
      "xmlexists", "xmlattributes", "json_object", "json_array", "json_objectagg", "json_arrayagg", "json_query",
      "json_value", "json_exists", "json_scalar", "json_serialize", "json", "filter", "over", "within", "using", "on",
      "and", "or", "not", "as", "from", "where", "select", "lateral", "join");

  private final Functions functions;
  private final Set<String> allowed = new HashSet<>();
  /** Types a cast to which runs an untrusted function: schema.name and, when on the search path, the bare name. */
  private final Map<String, Fn> refusedTypes = new HashMap<>();

  FunctionRule(Functions functions, List<FunctionName> allow) {
    this.functions = functions;
    for (FunctionName f : allow) allowed.add(f.schema() + "." + f.name());
    for (Functions.TypeUse t : functions.types()) {
      Optional<Fn> fn = functions.byOid(t.function());
      if (fn.isEmpty() || trusted(fn.get())) continue;
      refusedTypes.putIfAbsent(t.schema() + "." + t.name(), fn.get());
      if (t.onPath()) refusedTypes.putIfAbsent(t.name(), fn.get());
    }
  }

  /** A function a query may call by name: of a vetted extension, or allowed, and never escape-capable. */
  boolean trusted(Fn f) {
    return !f.escapeCapable() && (f.vetted() || allowed.contains(f.schema() + "." + f.name()));
  }

  /** The first refusal the tokens earn, if any. */
  Optional<GateError> check(List<Token> t, VisibleSchema schema) {
    for (int i = 0; i < t.size(); i++) {
      Token tok = t.get(i);
      Optional<GateError> e = Optional.empty();
      if (tok.isWord("operator") && i + 1 < t.size() && t.get(i + 1).isPunct("(")) {
        e = explicitOperator(t, i);
      } else if (tok.kind() == PgLexer.Kind.OPERATOR) {
        e = operator(tok.text(), null, tok);
      } else if (tok.isIdentifier()) {
        e = identifier(t, i, schema);
      }
      if (e.isPresent()) return e;
    }
    return Optional.empty();
  }

  private Optional<GateError> identifier(List<Token> t, int i, VisibleSchema schema) {
    Token tok = t.get(i);
    Token prev = i > 0 ? t.get(i - 1) : null;
    boolean afterDot = prev != null && prev.isPunct(".");
    boolean qualifier = i + 2 < t.size() && t.get(i + 1).isPunct(".") && t.get(i + 2).isIdentifier();
    if (qualifier) {
      String name = t.get(i + 2).name();
      if (i + 3 < t.size() && t.get(i + 3).isPunct("(")) return call(tok.name(), name, arguments(t, i + 3), t.get(i + 2));
      Optional<GateError> type = castTo(t, i, tok.name() + "." + name, schema.resolve(tok.name(), name).isPresent());
      if (type.isPresent()) return type;
      return relation(tok.name(), name, tok);
    }
    if (afterDot) {
      // t.f without brackets: PostgreSQL calls f(t) when t has no column f.
      if (i + 1 < t.size() && t.get(i + 1).isPunct("(")) return Optional.empty();
      return attributeCall(tok, schema);
    }
    if (i + 1 < t.size() && t.get(i + 1).isPunct("(")) {
      if (tok.kind() == PgLexer.Kind.WORD && SYNTAX.contains(tok.name())) return Optional.empty();
      return call(null, tok.name(), arguments(t, i + 1), tok);
    }
    Optional<GateError> type = castTo(t, i, tok.name(), schema.resolve(null, tok.name()).isPresent());
    if (type.isPresent()) return type;
    return schema.resolve(null, tok.name()).flatMap(table -> relation(table.schema(), table.name(), tok));
  }

  private Optional<GateError> relation(String schema, String relname, Token at) {
    return functions.unsafe(schema, relname).map(why -> GateError.rejected(why + ", so it may not be read.",
        "Read the tables it is built on instead, or ask a DBA to revoke EXECUTE on the function.", at.start() + 1));
  }

  /**
   * A type whose coercion runs an untrusted function. A domain or base type's name anywhere (a cast, a column type of
   * XMLTABLE or JSON_TABLE, ...); a table's row type only where a cast names it, since the same name reads the table.
   */
  private Optional<GateError> castTo(List<Token> t, int i, String typeName, boolean relation) {
    Fn fn = refusedTypes.get(typeName);
    if (fn == null) return Optional.empty();
    Token before = i > 0 ? t.get(i - 1) : null;
    boolean cast = before != null && (before.isPunct("::") || (before.isWord("as") && insideCast(t, i - 1)));
    boolean alias = before != null && before.isWord("as") && !cast;
    if (!cast && (relation || alias)) return Optional.empty();
    return Optional.of(refused(fn, "A cast to " + typeName + " runs ", t.get(i)));
  }


  /** Whether the token at {@code k} is inside the brackets of a CAST (an AS elsewhere names an alias, not a type). */
  private static boolean insideCast(List<Token> t, int k) {
    int depth = t.get(k).depth();
    for (int j = k - 1; j > 0; j--) {
      if (t.get(j).isPunct("(") && t.get(j).depth() == depth - 1) return t.get(j - 1).isWord("cast");
    }
    return false;
  }

  /** {@code schema} null: a bare name. {@code args} -1: not known. */
  private Optional<GateError> call(String schema, String name, int args, Token at) {
    List<Fn> untrusted = new ArrayList<>();
    boolean trustedAlternative = false;
    for (Fn f : functions.named(name)) {
      if (!(schema == null ? f.onPath() : f.schema().equals(schema)) || !f.accepts(args)) continue;
      if (trusted(f)) trustedAlternative = true;
      else untrusted.add(f);
    }
    if (untrusted.isEmpty()) return Optional.empty();
    if (schema == null || schema.equals("pg_catalog")) {
      for (Functions.Arity a : functions.coreArities(name)) trustedAlternative |= a.accepts(args);
    }
    Fn escape = untrusted.stream().filter(Fn::escapeCapable).findFirst().orElse(null);
    if (escape != null) return Optional.of(refused(escape, "", at));
    // Where types alone would decide, an ordinary user function passes, unless the role may execute an
    // escape-capable function its body could call.
    if (trustedAlternative && untrusted.stream().noneMatch(functions::mayReachEscape)) return Optional.empty();
    return Optional.of(refused(untrusted.get(0), "", at));
  }

  /** {@code t.f}: refused when a user function f of one argument exists and no visible table has a column f. */
  private Optional<GateError> attributeCall(Token tok, VisibleSchema schema) {
    for (Fn f : functions.named(tok.name())) {
      if (!f.onPath() || !f.accepts(1) || trusted(f)) continue;
      boolean column = schema.tables().stream().anyMatch(tb -> tb.columns().stream().anyMatch(c -> c.name().equals(tok.name())));
      if (!column) return Optional.of(refused(f, "", tok));
    }
    return Optional.empty();
  }

  /** {@code OPERATOR(schema.op)}. */
  private Optional<GateError> explicitOperator(List<Token> t, int i) {
    int k = i + 2;
    String schema = null;
    if (k + 1 < t.size() && t.get(k).isIdentifier() && t.get(k + 1).isPunct(".")) {
      schema = t.get(k).name();
      k += 2;
    }
    if (k < t.size() && t.get(k).kind() == PgLexer.Kind.OPERATOR) return operator(t.get(k).text(), schema, t.get(k));
    return Optional.empty();
  }

  private Optional<GateError> operator(String symbol, String schema, Token at) {
    Fn chosen = null;
    for (Functions.Op op : functions.operators()) {
      if (!op.symbol().equals(symbol) || !(schema == null ? op.onPath() : op.schema().equals(schema))) continue;
      Optional<Fn> fn = functions.byOid(op.function());
      if (fn.isEmpty() || trusted(fn.get())) continue;
      if (chosen == null || (functions.mayReachEscape(fn.get()) && !functions.mayReachEscape(chosen))) chosen = fn.get();
    }
    if (chosen == null) return Optional.empty();
    boolean core = (schema == null || schema.equals("pg_catalog"))
        && (functions.coreOperator(symbol, true) || functions.coreOperator(symbol, false));
    if (core && !functions.mayReachEscape(chosen)) return Optional.empty();
    return Optional.of(refused(chosen, "The operator " + symbol + " runs ", at));
  }

  private static GateError refused(Fn f, String through, Token at) {
    String what = through.isEmpty() ? "The function " + f.signature() : through + f.signature() + ", which";
    if (f.escapeCapable()) {
      return GateError.rejected(what + " may not be called: it can act outside the "
          + "read-only transaction (" + f.escape() + ").", "Use only built-in functions that compute values from the "
          + "tables' rows.", at.start() + 1);
    }
    return GateError.rejected(what + " is a user function" + (through.isEmpty() ? "" : ",")
        + " and the gate calls only built-in functions, those of vetted extensions and those it is told to allow.",
        "Use built-in functions. " + ALLOW_HINT + " (" + f.schema() + "." + f.name() + ")", at.start() + 1);
  }

  /**
   * The number of arguments of the call whose '(' is at {@code open}: top-level commas plus one, none for "()", and
   * -1 (unknown) when an ORDER BY or DISTINCT inside the brackets makes commas ambiguous.
   */
  static int arguments(List<Token> t, int open) {
    int depth = t.get(open).depth();
    int commas = 0;
    boolean any = false;
    for (int k = open + 1; k < t.size(); k++) {
      Token tok = t.get(k);
      if (tok.isPunct(")") && tok.depth() == depth) return any ? commas + 1 : 0;
      if (tok.depth() != depth + 1) continue;
      any = true;
      if (tok.isPunct(",")) commas++;
      if (tok.isWord("order") || tok.isWord("distinct") || tok.isWord("variadic")) return -1;
    }
    return -1;
  }
}
