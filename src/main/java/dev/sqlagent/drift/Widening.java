package dev.sqlagent.drift;

import java.util.Map;

/**
 * Type changes that keep every existing value exactly as it reads: PostgreSQL converts the stored value and
 * the result prints the same. Anything not listed here counts as drift (float4 to float8 changes how values
 * print; char(n) pads; a larger scale prints 12.5 as 12.50; a smaller one rounds).
 */
final class Widening {

  private Widening() {}

  /** Decimal digits an integer type can hold. */
  private static final Map<String, Integer> INT_DIGITS = Map.of("int2", 5, "int4", 10, "int8", 19);
  private static final Map<String, Integer> INT_RANK = Map.of("int2", 1, "int4", 2, "int8", 3);

  static boolean preservesValues(SchemaShape.Column from, SchemaShape.Column to) {
    boolean fromArray = from.base().startsWith("_");
    if (fromArray != to.base().startsWith("_")) return false;
    String f = fromArray ? from.base().substring(1) : from.base();
    String t = fromArray ? to.base().substring(1) : to.base();

    // Text: a longer limit, no limit, or text.
    if (f.equals("varchar") && t.equals("varchar")) return to.length() == null || (from.length() != null && to.length() >= from.length());
    if (f.equals("varchar") && t.equals("text")) return true;
    if (f.equals("text") && t.equals("varchar")) return to.length() == null;

    // Integers: a wider integer, or a numeric with room for every digit and no fraction.
    if (INT_RANK.containsKey(f) && INT_RANK.containsKey(t)) return INT_RANK.get(t) >= INT_RANK.get(f);
    if (INT_DIGITS.containsKey(f) && t.equals("numeric")) {
      return to.precision() == null || (to.scale() == 0 && to.precision() >= INT_DIGITS.get(f));
    }

    // numeric(p,s): more digits at the same scale, or no limit (stored values keep their scale).
    if (f.equals("numeric") && t.equals("numeric")) {
      if (to.precision() == null) return true;
      if (from.precision() == null) return false;
      return to.scale().equals(from.scale()) && to.precision() >= from.precision();
    }

    // Times: more fractional-second digits (no modifier means 6).
    if (f.equals(t) && (f.equals("timestamp") || f.equals("timestamptz") || f.equals("time") || f.equals("timetz"))) {
      int p = from.precision() == null ? 6 : from.precision();
      int q = to.precision() == null ? 6 : to.precision();
      return q >= p;
    }

    if (f.equals("varbit") && t.equals("varbit")) return to.length() == null || (from.length() != null && to.length() >= from.length());
    return false;
  }
}
