package dev.sqlagent.catalogue;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What discovery found in the target: every relation the agent role can read (sorted by schema and name),
 * and the relations in scope that exist but are not its to read ({@code hidden}, as {@code schema.relname}),
 * so a query naming one is told plainly that it is not available (bare too when on the search path).
 * {@code underlying} ({@code schema.relname}) are the relations a query on visible ones scans without naming
 * them: partitions of a visible partitioned table, and what a visible view reads. {@code functions}: what the
 * catalogue says of the functions a query could reach.
 */
public record Catalogue(String database, List<TableInfo> tables, Set<String> hidden, Set<String> underlying,
                        Functions functions) {

  public Catalogue {
    tables = List.copyOf(tables);
    hidden = Set.copyOf(hidden);
    underlying = Set.copyOf(underlying);
  }

  public Catalogue(String database, List<TableInfo> tables, Set<String> hidden) {
    this(database, tables, hidden, Set.of(), Functions.NONE);
  }

  public Catalogue withUnderlying(Set<String> relations) {
    return new Catalogue(database, tables, hidden, relations, functions);
  }

  /** The functions a query could reach, as the role sees them ({@link Functions}). */
  public Catalogue withFunctions(Functions found) {
    return new Catalogue(database, tables, hidden, underlying, found);
  }

  /**
   * What a user's database role may read, read as that role: {@code readable} and {@code hidden} relations
   * ({@code schema.relname}; hidden ones bare too when on the search path) and the relations a query on the readable
   * ones scans without naming them, as for the agent role.
   */
  public record Visibility(Set<String> readable, Set<String> hidden, Set<String> underlying) {}

  /** This catalogue narrowed to what {@code role} may read: its tables, hidden and underlying relations; the same functions. */
  public Catalogue seenBy(Visibility role) {
    return new Catalogue(database, tables.stream().filter(t -> role.readable().contains(t.schema() + "." + t.relname()))
        .toList(), role.hidden(), role.underlying(), functions);
  }

  /** Known tables only, for tests and tools. */
  public static Catalogue of(List<TableInfo> tables) {
    return new Catalogue("", tables, Set.of());
  }

  public List<String> names() {
    return tables.stream().map(TableInfo::name).toList();
  }

  public Catalogue withTables(List<TableInfo> replaced) {
    return new Catalogue(database, replaced, hidden, underlying, functions);
  }

  /**
   * The table a user, a notes file or a model means by {@code name}: the exact name first; then, ignoring
   * case and quotes, {@code schema.relname}, the name, or a bare relname that only one schema has.
   */
  public Optional<TableInfo> find(String name) {
    if (name == null) return Optional.empty();
    for (TableInfo t : tables) {
      if (t.name().equals(name)) return Optional.of(t);
    }
    String wanted = loose(name);
    for (TableInfo t : tables) {
      if (loose(t.name()).equals(wanted) || loose(t.schema() + "." + t.relname()).equals(wanted)) return Optional.of(t);
    }
    List<TableInfo> byRelname = tables.stream().filter(t -> t.relname().toLowerCase(Locale.ROOT).equals(wanted)).toList();
    return byRelname.size() == 1 ? Optional.of(byRelname.get(0)) : Optional.empty();
  }

  private static String loose(String name) {
    return name.trim().replace("\"", "").toLowerCase(Locale.ROOT);
  }

  /** The message for a table that is not there: it names the real tables so the caller can correct itself. */
  public String unknownTable(String name) {
    return "unknown table '" + name + "'; the tables are: "
        + tables.stream().map(TableInfo::name).collect(Collectors.joining(", "));
  }
}
