package dev.sqlagent.execution;

/** TEMPORARY stand-in matching CONTRACTS.md until the gate branch is merged. */
public enum ErrorType {
  SYNTAX_ERROR("syntax_error", true, "fix_syntax", "Fix the syntax at the position PostgreSQL gave."),
  UNKNOWN_COLUMN("unknown_column", true, "widen_and_regenerate", "Use only columns that exist."),
  UNKNOWN_TABLE("unknown_table", true, "widen_and_regenerate", "Use only tables that exist."),
  AMBIGUOUS_COLUMN("ambiguous_column", true, "alias_every_column", "Alias every column reference."),
  UNKNOWN_FUNCTION("unknown_function", true, "postgres_dialect", "Use PostgreSQL functions."),
  TYPE_MISMATCH("type_mismatch", true, "explicit_cast", "Cast explicitly."),
  GROUPING_ERROR("grouping_error", true, "group_or_aggregate", "Aggregate or group every column."),
  WINDOWING_ERROR("windowing_error", true, "window_in_subquery", "Move the window function into a subquery."),
  CARDINALITY_VIOLATION("cardinality_violation", true, "one_row_or_join", "Return one row or join."),
  DIVISION_BY_ZERO("division_by_zero", true, "nullif_divisor", "Use NULLIF."),
  TIMEOUT("timeout", true, "simplify", "Simplify."),
  PERMISSION_DENIED("permission_denied", false, "none", null),
  REJECTED("rejected", false, "none", null),
  UNKNOWN("unknown", false, "none", null),
  EMPTY_FILTER("empty_filter", true, "match_stored_values", "Match stored values exactly."),
  MODEL_OUTPUT_INVALID("model_output_invalid", true, "reply_as_json", "Reply with the JSON object only.");

  private final String wire;
  private final boolean repairable;
  private final String strategy;
  private final String instruction;

  ErrorType(String wire, boolean repairable, String strategy, String instruction) {
    this.wire = wire;
    this.repairable = repairable;
    this.strategy = strategy;
    this.instruction = instruction;
  }

  public String wireName() { return wire; }
  public boolean repairable() { return repairable; }
  public String strategy() { return strategy; }
  public String repairInstruction() { return instruction; }

  public static ErrorType fromWireName(String name) {
    for (ErrorType t : values()) if (t.wire.equals(name)) return t;
    return UNKNOWN;
  }
}
