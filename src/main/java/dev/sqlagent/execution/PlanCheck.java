package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.catalogue.DenyList;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Reads PostgreSQL's own plan of the bounded statement ({@code EXPLAIN (FORMAT JSON, VERBOSE)}): this is
 * PostgreSQL's parser speaking, so it holds for queries JSqlParser could not parse. Refuses a plan whose
 * estimated total cost is above the limit, any ModifyTable or LockRows node, any relation that is not one
 * of the visible tables (or scanned on their behalf: a partition, a view's base relation), and any deny-listed function PostgreSQL resolved in an expression.
 */
final class PlanCheck {
  private PlanCheck() {}

  static final String COST_HINT = "Filter earlier, aggregate before joining, join only the tables you need and "
      + "narrow the date range.";

  /** The top node's estimated total cost. */
  static double totalCost(JsonObject plan) {
    return plan.getJsonObject("Plan", new JsonObject()).getDouble("Total Cost", 0.0);
  }

  /** {@code explain} is EXPLAIN's single JSON value: an array holding one object with "Plan". */
  static Optional<GateError> check(JsonObject plan, double maxCost, VisibleSchema schema) {
    double cost = totalCost(plan);
    if (cost > maxCost) {
      return Optional.of(GateError.of(ErrorType.TIMEOUT, String.format(Locale.ROOT,
          "The planner estimates this query's cost at %.0f, above the gate's limit of %.0f.", cost, maxCost),
          COST_HINT, null));
    }
    Deque<JsonObject> pending = new ArrayDeque<>();
    pending.push(plan.getJsonObject("Plan", new JsonObject()));
    while (!pending.isEmpty()) {
      JsonObject node = pending.pop();
      String type = node.getString("Node Type", "");
      if (type.equals("ModifyTable") || type.equals("LockRows")) {
        return Optional.of(GateError.rejected("The plan " + (type.equals("LockRows") ? "locks rows" : "modifies a table")
            + " (" + type + "); the gate only runs reads.", "Write a plain SELECT without FOR UPDATE or data-modifying WITH.", null));
      }
      String relation = node.getString("Relation Name");
      if (relation != null) {
        String relSchema = node.getString("Schema");
        if (schema.resolve(relSchema, relation).isEmpty() && !schema.underlies(relSchema, relation)) {
          String shown = relSchema == null ? relation : relSchema + "." + relation;
          String message = StaticCheck.isSystemSchema(relSchema)
              ? shown + " is a system catalogue, not a table of this database's data."
              : shown + " is not a table you can query.";
          return Optional.of(LexicalScreen.unknownTable(message, schema, null));
        }
      }
      Optional<GateError> f = deniedFunction(node, schema.escapeNames());
      if (f.isPresent()) return f;
      JsonArray children = node.getJsonArray("Plans");
      if (children != null) {
        for (int i = 0; i < children.size(); i++) pending.push(children.getJsonObject(i));
      }
    }
    return Optional.empty();
  }

  /**
   * Any expression of the node (Output, Filter, Function Call, ...) calling a deny-listed function, or an
   * escape-capable one ({@code escapes}, lower-case names): a view, an operator or a policy may call what the
   * statement never names.
   */
  private static Optional<GateError> deniedFunction(JsonObject node, Set<String> escapes) {
    String fn = node.getString("Function Name");
    if (fn != null && (DenyList.denied(fn) || escapes.contains(fn.toLowerCase(Locale.ROOT)))) return Optional.of(denied(fn, escapes));
    for (String key : node.fieldNames()) {
      Object v = node.getValue(key);
      if (v instanceof String s) {
        Optional<String> name = callIn(s, escapes);
        if (name.isPresent()) return Optional.of(denied(name.get(), escapes));
      } else if (v instanceof JsonArray a) {
        for (Object e : a) {
          if (e instanceof String s) {
            Optional<String> name = callIn(s, escapes);
            if (name.isPresent()) return Optional.of(denied(name.get(), escapes));
          }
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> callIn(String expression, Set<String> escapes) {
    // Most expressions call nothing denied: those are told apart without the lexer.
    if (expression.indexOf('(') < 0 || !(DenyScan.mayName(expression) || mayName(expression, escapes))) return Optional.empty();
    try {
      var tokens = PgLexer.lex(expression).tokens();
      for (int i = 0; i + 1 < tokens.size(); i++) {
        var t = tokens.get(i);
        if (t.isIdentifier() && tokens.get(i + 1).isPunct("(")
            && (DenyList.denied(t.name()) || escapes.contains(t.name().toLowerCase(Locale.ROOT)))) {
          return Optional.of(t.name());
        }
      }
    } catch (PgLexer.LexException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /** Whether any of {@code names} could be in {@code text} (U&amp; escapes could spell one otherwise: '&amp;' says yes). */
  private static boolean mayName(String text, Set<String> names) {
    if (names.isEmpty()) return false;
    if (text.indexOf('&') >= 0) return true;
    String lower = text.toLowerCase(Locale.ROOT);
    for (String n : names) {
      if (lower.contains(n)) return true;
    }
    return false;
  }

  private static GateError denied(String name, Set<String> escapes) {
    String why = DenyList.reason(name).orElse(escapes.contains(name.toLowerCase(Locale.ROOT))
        ? "it can act outside the read-only transaction" : "denied");
    return GateError.rejected("The function " + name + " may not be called: " + why + ".",
        "Use only functions that compute values from the tables' rows.", null);
  }
}
