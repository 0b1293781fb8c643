package dev.sqlagent.eval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which columns live in which table, and each table's first primary-key column, as fault injection needs them;
 * read from discovery, so it is true of whatever database is evaluated.
 */
public record TableColumns(Map<String, List<String>> columns, Map<String, String> primaryKeys) {

  /** From what discovery found: each relation under the name SQL writes it by. */
  public static TableColumns of(Catalogue catalogue) {
    Map<String, List<String>> c = new LinkedHashMap<>();
    Map<String, String> pk = new LinkedHashMap<>();
    for (TableInfo t : catalogue.tables()) {
      c.put(t.name(), t.columns().stream().map(TableInfo.Column::name).toList());
      if (!t.primaryKey().isEmpty()) pk.put(t.name(), t.primaryKey().get(0));
    }
    return new TableColumns(Map.copyOf(c), Map.copyOf(pk));
  }

  public Optional<List<String>> columnsOf(String table) {
    return Optional.ofNullable(columns.get(table));
  }

  public boolean hasColumn(String table, String column) {
    List<String> cols = columns.get(table);
    return cols != null && cols.contains(column);
  }

  /** True when any table has a column of this name. */
  public boolean isColumnAnywhere(String column) {
    return columns.values().stream().anyMatch(l -> l.contains(column));
  }
}
