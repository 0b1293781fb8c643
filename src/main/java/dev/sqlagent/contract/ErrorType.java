package dev.sqlagent.contract;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one table of failure classes: SQLSTATE → error type → whether the agent repairs it, how (the
 * strategy's short name) and what the repair prompt tells the model. The gate classifies with it, the
 * agent repairs with it; nothing else maps SQLSTATEs.
 */
public enum ErrorType {

  SYNTAX_ERROR("syntax_error", true, "fix_syntax_at_position",
      "PostgreSQL could not parse the query. Read its message and the position it points at, fix the syntax "
          + "there, and write PostgreSQL syntax only (no backticks, no TOP, no square brackets).",
      "42601", "42P10"),
  UNKNOWN_COLUMN("unknown_column", true, "widen_retrieval",
      "A column in the query does not exist. More of the schema has been retrieved: use only columns that the "
          + "schema lists for the table you qualify them with (the hint names the columns that do exist), then "
          + "write the query again.",
      "42703"),
  UNKNOWN_TABLE("unknown_table", true, "widen_retrieval",
      "A table in the query does not exist or may not be queried. More of the schema has been retrieved: use "
          + "only the tables listed in the schema (the hint names them); system catalogues are not available.",
      "42P01", "42P02", "42809"),
  AMBIGUOUS_COLUMN("ambiguous_column", true, "alias_every_column",
      "A column name is ambiguous: more than one table in the query has it. Give every table an alias and "
          + "qualify every column reference with its alias (b.status, not status), in SELECT, WHERE, GROUP BY "
          + "and ORDER BY alike.",
      "42702", "42P08", "42P09"),
  UNKNOWN_FUNCTION("unknown_function", true, "postgresql_dialect",
      "That function (or operator) does not exist in PostgreSQL for these argument types. Write PostgreSQL: "
          + "date_trunc, EXTRACT, to_char, age and interval arithmetic for dates (not DATEADD, DATEDIFF, "
          + "DATE_FORMAT, GETDATE); COALESCE (not IFNULL, NVL, ISNULL); string_agg (not GROUP_CONCAT); "
          + "LIMIT (not TOP). Cast arguments explicitly when their types do not match the function.",
      "42883", "42725"),
  TYPE_MISMATCH("type_mismatch", true, "explicit_cast",
      "Values of different types were compared or combined, or a literal does not fit its column's type. "
          + "Check the column types and the sample rows, compare like with like, and add an explicit cast "
          + "(::numeric, ::date, ::timestamp, ::text) where the types differ; date literals are 'YYYY-MM-DD'.",
      "42804", "42846", "22P02", "22007", "22008", "42P18", "42P21", "42P22"),
  GROUPING_ERROR("grouping_error", true, "group_or_aggregate_every_column",
      "With GROUP BY or an aggregate, every selected column must either appear in GROUP BY or be inside an "
          + "aggregate (SUM, COUNT, MAX, ...). Add the missing columns to GROUP BY or aggregate them.",
      "42803"),
  WINDOWING_ERROR("windowing_error", true, "window_in_subquery",
      "Window functions cannot be used in WHERE, GROUP BY, HAVING or inside an aggregate. Compute the window "
          + "function in a subquery (or CTE) and filter or aggregate its result in the outer query.",
      "42P20"),
  CARDINALITY_VIOLATION("cardinality_violation", true, "single_row_or_join",
      "A subquery used as a single value returned more than one row. Make it return exactly one row (an "
          + "aggregate, a tighter filter, or ORDER BY ... LIMIT 1), or turn it into a JOIN.",
      "21000"),
  DIVISION_BY_ZERO("division_by_zero", true, "nullif_divisor",
      "The query divided by zero. Wrap every divisor in NULLIF(divisor, 0) so that a zero divisor yields NULL.",
      "22012"),
  TIMEOUT("timeout", true, "simplify_query",
      "The query was too expensive: it ran past the time limit or the planner's cost estimate was above the "
          + "gate's limit. Simplify it: aggregate before joining, join only the tables you need, filter early "
          + "and narrow the date range; never cross join large tables.",
      "57014", "55P03"),
  RESULT_TOO_LARGE("result_too_large", true, "select_fewer_or_shorter_columns",
      "The result was larger than the gate returns. Select fewer or shorter columns (no long text, JSON or "
          + "binary columns unless the question needs them; left(col, 100) for long text) and fewer rows: "
          + "aggregate, filter, or LIMIT.",
      new String[0]),
  PERMISSION_DENIED("permission_denied", false, "no_repair", "", "42501", "25006"),
  /**
   * A hot standby cancelled the statement because replaying the primary's changes needed what it was reading
   * (rows VACUUM removed, a lock an ALTER/DROP/TRUNCATE took, a buffer pin): PostgreSQL's ERROR "canceling statement
   * due to conflict with recovery" is 40001 (serialization_failure) for every cause (postgres.c,
   * ProcessRecoveryConflictInterrupt; the FATAL "terminating connection ..." of an idle session carries it too), and a
   * query waiting for a lock may instead get 40P01 from the deadlock check replay asks for. The query is not at
   * fault, so the model is never asked to rewrite it: the gate runs the same statement once more
   * ({@link Gate#submit}), then gives up with this type. The gate's read-only, read-committed transactions meet
   * neither state otherwise (40001 needs SERIALIZABLE; 40P01 a lock cycle, which taking only reading locks all but
   * rules out).
   */
  RECOVERY_CONFLICT("recovery_conflict", false, "no_repair", "", "40001", "40P01"),
  REJECTED("rejected", false, "no_repair", ""),
  UNKNOWN("unknown", false, "no_repair", ""),
  /**
   * The statement's run was stopped (cancelled, or past its question's deadline) and the gate cancelled it: not a
   * fault of the query, so never repaired. No SQLSTATE maps here: PostgreSQL's 57014 is a {@link #TIMEOUT} unless
   * the gate itself stopped the run.
   */
  CANCELLED("cancelled", false, "no_repair", ""),
  /**
   * Every connection the statement could use was in use for as long as the gate waits for one: the database was
   * busy with other work, the query is not at fault, so it is never repaired. Asking again in a few seconds may work.
   */
  BUSY("busy", false, "no_repair", ""),
  EMPTY_FILTER("empty_filter", true, "match_stored_values",
      "The query returned no rows, but the same query comparing text case- and space-insensitively did. The "
          + "literal in the filter does not match how the values are stored: use the values exactly as the "
          + "sample rows show them (for example status = 'PAID', not 'paid').",
      new String[0]),
  MODEL_OUTPUT_INVALID("model_output_invalid", true, "reply_in_format",
      "Your reply could not be used. Reply with one JSON object {\"sql\": \"<one PostgreSQL SELECT>\", "
          + "\"explanation\": \"...\"}, or {\"sql\": null, \"explanation\": \"<why the schema cannot answer>\"} "
          + "when it cannot be answered; nothing else.",
      new String[0]);

  private static final Map<String, ErrorType> BY_STATE = new HashMap<>();
  private static final Map<String, ErrorType> BY_WIRE = new HashMap<>();

  static {
    for (ErrorType t : values()) {
      for (String s : t.sqlStates) {
        if (BY_STATE.put(s, t) != null) throw new IllegalStateException("SQLSTATE " + s + " mapped twice");
      }
      BY_WIRE.put(t.wireName, t);
    }
  }

  private final String wireName;
  private final boolean repairable;
  private final String strategy;
  private final String repairInstruction;
  private final List<String> sqlStates;

  ErrorType(String wireName, boolean repairable, String strategy, String repairInstruction, String... sqlStates) {
    this.wireName = wireName;
    this.repairable = repairable;
    this.strategy = strategy;
    this.repairInstruction = repairInstruction;
    this.sqlStates = List.of(sqlStates);
  }

  /** The name on the wire and in logs, e.g. {@code unknown_column}. */
  public String wireName() {
    return wireName;
  }

  /** Whether the agent tries again; permission_denied, rejected, unknown, cancelled and busy are never repaired. */
  public boolean repairable() {
    return repairable;
  }

  /** Short name of the repair strategy ("no_repair" for types that are not repaired). */
  public String strategy() {
    return strategy;
  }

  /** What the repair prompt tells the model; empty for types that are not repaired. */
  public String repairInstruction() {
    return repairInstruction;
  }

  /** The SQLSTATEs that map to this type. */
  public List<String> sqlStates() {
    return sqlStates;
  }

  /** The type of a PostgreSQL error; unmapped or missing states are {@link #UNKNOWN}. */
  public static ErrorType fromSqlState(String sqlState) {
    if (sqlState == null) return UNKNOWN;
    return BY_STATE.getOrDefault(sqlState.toUpperCase(Locale.ROOT), UNKNOWN);
  }

  /** The type with this wire name; an unknown name is {@link #UNKNOWN}. */
  public static ErrorType fromWireName(String wireName) {
    if (wireName == null) return UNKNOWN;
    return BY_WIRE.getOrDefault(wireName, UNKNOWN);
  }

  @Override
  public String toString() {
    return wireName;
  }
}
