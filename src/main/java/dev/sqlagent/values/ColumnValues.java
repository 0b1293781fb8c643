package dev.sqlagent.values;

import java.util.List;

/**
 * The distinct values read from one text column.
 *
 * @param table the relation as SQL writes it (the catalogue's name)
 * @param column the column's own name, unquoted
 * @param lowCardinality at most {@link ValueLimits#lowCardinality} values, all of them: shown in the schema text
 * @param source where they came from: {@code pg_stats} (the planner's most common values) or {@code distinct}
 */
public record ColumnValues(String table, String column, boolean lowCardinality, String source, List<String> values) {
  public ColumnValues {
    values = List.copyOf(values);
  }
}
