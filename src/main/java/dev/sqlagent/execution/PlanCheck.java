package dev.sqlagent.execution;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Optional;

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
      Optional<GateError> f = deniedFunction(node);
      if (f.isPresent()) return f;
      JsonArray children = node.getJsonArray("Plans");
      if (children != null) {
        for (int i = 0; i < children.size(); i++) pending.push(children.getJsonObject(i));
      }
    }
    return Optional.empty();
  }

  /** Any expression of the node (Output, Filter, Function Call, ...) calling a deny-listed function. */
  private static Optional<GateError> deniedFunction(JsonObject node) {
    String fn = node.getString("Function Name");
    if (fn != null && DenyList.denied(fn)) return Optional.of(denied(fn));
    for (String key : node.fieldNames()) {
      Object v = node.getValue(key);
      if (v instanceof String s) {
        Optional<String> name = callIn(s);
        if (name.isPresent()) return Optional.of(denied(name.get()));
      } else if (v instanceof JsonArray a) {
        for (Object e : a) {
          if (e instanceof String s) {
            Optional<String> name = callIn(s);
            if (name.isPresent()) return Optional.of(denied(name.get()));
          }
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> callIn(String expression) {
    // Most expressions call nothing denied: those are told apart without the lexer.
    if (expression.indexOf('(') < 0 || !DenyList.mayName(expression)) return Optional.empty();
    try {
      var tokens = PgLexer.lex(expression).tokens();
      for (int i = 0; i + 1 < tokens.size(); i++) {
        var t = tokens.get(i);
        if (t.isIdentifier() && tokens.get(i + 1).isPunct("(") && DenyList.denied(t.name())) return Optional.of(t.name());
      }
    } catch (PgLexer.LexException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static GateError denied(String name) {
    return GateError.rejected("The function " + name + " may not be called: " + DenyList.reason(name).orElse("denied") + ".",
        "Use only functions that compute values from the tables' rows.", null);
  }
}
