package dev.sqlagent.notes;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What {@link Notes#validate} needs to know about the target: the tables (as written in SQL, e.g.
 * {@code customers}, {@code sales.orders}, {@code "Sales"."Orders"}) and each table's columns.
 */
public interface KnownTables {

  /** Every table (or view) name, as written in SQL. */
  List<String> names();

  /**
   * The columns of {@code name} (one of {@link #names()}): stored names ({@code Order Id}) or quoted SQL
   * identifiers. Empty when the columns are not known; then the notes' column names are not checked.
   */
  Optional<Set<String>> columns(String name);

  /** A fixed set of tables and their columns, in the map's order (e.g. for tests). */
  static KnownTables of(java.util.Map<String, Set<String>> columnsByTable) {
    java.util.Map<String, Set<String>> copy = new java.util.LinkedHashMap<>(columnsByTable);
    List<String> names = List.copyOf(copy.keySet());
    return new KnownTables() {
      @Override
      public List<String> names() {
        return names;
      }

      @Override
      public Optional<Set<String>> columns(String name) {
        return Optional.ofNullable(copy.get(name));
      }
    };
  }
}
