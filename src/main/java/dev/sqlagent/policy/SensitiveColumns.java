package dev.sqlagent.policy;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.notes.Notes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The notes file's sensitive columns, resolved against one catalogue: which columns of which tables, each with its mask.
 * A sensitive column is never sampled, never read into the stored values or their index, and masked in results (the
 * gate, {@link ResultMasking}); its name and type stay in the schema the model is shown, so a question can still use it.
 * Immutable.
 */
public final class SensitiveColumns {

  public static final SensitiveColumns NONE = new SensitiveColumns(Notes.EMPTY, Map.of());

  private final Notes notes;
  /** Catalogue table name → column name → mask, in catalogue order. */
  private final Map<String, Map<String, Mask>> byTable;
  private final Set<String> columnNames = new HashSet<>();
  private final Set<String> relnames = new HashSet<>();

  private SensitiveColumns(Notes notes, Map<String, Map<String, Mask>> byTable) {
    this.notes = notes;
    this.byTable = byTable;
  }

  /** The columns of {@code catalogue} the notes mark sensitive, by their own entry or by a pattern. */
  public static SensitiveColumns of(Notes notes, Catalogue catalogue) {
    if (notes == null || !notes.marksSensitive()) return NONE;
    Map<String, Map<String, Mask>> found = new LinkedHashMap<>();
    for (TableInfo t : catalogue.tables()) {
      for (TableInfo.Column c : t.columns()) {
        notes.sensitiveMask(t.schema(), t.relname(), c.name())
            .ifPresent(m -> found.computeIfAbsent(t.name(), k -> new LinkedHashMap<>()).put(c.name(), Mask.of(m)));
      }
    }
    SensitiveColumns s = new SensitiveColumns(notes, found);
    for (TableInfo t : catalogue.tables()) {
      Map<String, Mask> cols = found.get(t.name());
      if (cols == null) continue;
      s.relnames.add(t.relname().toLowerCase(Locale.ROOT));
      cols.keySet().forEach(c -> s.columnNames.add(c.toLowerCase(Locale.ROOT)));
    }
    return s;
  }

  /** Whether no column is sensitive. */
  public boolean isEmpty() {
    return byTable.isEmpty();
  }

  /** How many columns are sensitive. */
  public int count() {
    return byTable.values().stream().mapToInt(Map::size).sum();
  }

  /**
   * The mask of the column {@code column} of {@code schema.relname} (unquoted, as the catalogue has them), by the notes
   * file's own rules: also for a relation this catalogue does not hold. Empty: not sensitive.
   */
  public Optional<Mask> mask(String schema, String relname, String column) {
    if (notes == Notes.EMPTY) return Optional.empty();
    return notes.sensitiveMask(schema, relname, column).map(Mask::of);
  }

  /** Whether the notes mark anything sensitive (some rule may match relations this catalogue does not hold). */
  public boolean hasRules() {
    return notes.marksSensitive();
  }

  /** The sensitive columns' names, lower case (a query naming one is said to read it). */
  public Set<String> columnNames() {
    return Set.copyOf(columnNames);
  }

  /** The relnames of the tables with a sensitive column, lower case. */
  public Set<String> tableNames() {
    return Set.copyOf(relnames);
  }

  /** {@code table} without its sensitive columns (itself when it has none): what may be sampled or read for values. */
  public TableInfo without(TableInfo table) {
    Map<String, Mask> cols = byTable.get(table.name());
    if (cols == null) return table;
    List<TableInfo.Column> kept = table.columns().stream().filter(c -> !cols.containsKey(c.name())).toList();
    return new TableInfo(table.name(), table.schema(), table.relname(), table.kind(), table.onSearchPath(), table.comment(),
        table.note(), table.rowCount(), kept, table.primaryKey(), table.foreignKeys());
  }

  /** The tables without their sensitive columns. */
  public List<TableInfo> without(List<TableInfo> tables) {
    if (isEmpty()) return tables;
    List<TableInfo> out = new ArrayList<>(tables.size());
    for (TableInfo t : tables) out.add(without(t));
    return out;
  }

  /** The catalogue without its sensitive columns. */
  public Catalogue without(Catalogue catalogue) {
    return isEmpty() ? catalogue : catalogue.withTables(without(catalogue.tables()));
  }

  /** {@code [{table, column, mask}]}, for status and health. */
  public JsonArray toJson() {
    JsonArray out = new JsonArray();
    byTable.forEach((table, cols) -> cols.forEach((column, mask) ->
        out.add(new JsonObject().put("table", table).put("column", column).put("mask", mask.wireName()))));
    return out;
  }

  /** The notes file's patterns that match no column of this catalogue (a typo, or a table since dropped). */
  public List<String> unmatchedPatterns(Catalogue catalogue) {
    List<String> out = new ArrayList<>();
    for (Notes.SensitivePattern p : notes.sensitivePatterns()) {
      boolean any = catalogue.tables().stream()
          .anyMatch(t -> t.columns().stream().anyMatch(c -> p.matches(t.schema(), t.relname(), c.name())));
      if (!any) out.add(p.pattern());
    }
    return out;
  }
}
