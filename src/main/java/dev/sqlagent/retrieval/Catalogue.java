package dev.sqlagent.retrieval;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Every table visible to the read-only role, sorted by name. */
public record Catalogue(List<TableInfo> tables) {

  public List<String> names() {
    return tables.stream().map(TableInfo::name).toList();
  }

  /**
   * The table a user or a model means by {@code name}: exact first, then ignoring case, an optional
   * {@code public.} prefix and surrounding double quotes.
   */
  public Optional<TableInfo> find(String name) {
    if (name == null) return Optional.empty();
    for (TableInfo t : tables) {
      if (t.name().equals(name)) return Optional.of(t);
    }
    String wanted = name.trim().replaceFirst("(?i)^\"?public\"?\\.", "").replaceAll("^\"|\"$", "")
        .toLowerCase(Locale.ROOT);
    return tables.stream().filter(t -> t.name().toLowerCase(Locale.ROOT).equals(wanted)).findFirst();
  }

  /** The message for a table that is not there: it names the real tables so the caller can correct itself. */
  public String unknownTable(String name) {
    return "unknown table '" + name + "'; the tables are: "
        + tables.stream().map(TableInfo::name).collect(Collectors.joining(", "));
  }
}
