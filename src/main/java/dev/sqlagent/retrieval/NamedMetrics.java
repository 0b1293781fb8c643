package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.MetricDefinition;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.notes.TableNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The governed metrics a question names (by name or term): their tables join the choice whatever their similarity,
 * so that the definition can be followed, and their definitions go to the prompt with the catalogue's table names.
 */
final class NamedMetrics {
  private NamedMetrics() {}

  /**
   * The tables of {@code metrics} that {@code catalogue} (the asking role's) holds, each with its reason, then the
   * {@code links} the question's values made.
   */
  static Map<String, String> withTables(List<Notes.Metric> metrics, Catalogue catalogue, Map<String, String> links) {
    if (metrics.isEmpty()) return links;
    List<String> names = names(catalogue);
    Map<String, String> out = new LinkedHashMap<>();
    for (Notes.Metric m : metrics) {
      for (Notes.TableRef t : m.tables()) {
        TableNames.resolve(t.name(), names).ifPresent(n -> out.putIfAbsent(n, "the metric '" + m.name() + "' reads it"));
      }
    }
    links.forEach(out::putIfAbsent);
    return out;
  }

  /** The definitions of {@code metrics}, their tables as {@code catalogue} names them (as written when it has none). */
  static List<MetricDefinition> definitions(List<Notes.Metric> metrics, Catalogue catalogue) {
    if (metrics.isEmpty()) return List.of();
    List<String> names = names(catalogue);
    List<MetricDefinition> out = new ArrayList<>();
    for (Notes.Metric m : metrics) {
      List<String> tables = m.tables().stream().map(t -> {
        Optional<String> known = TableNames.resolve(t.name(), names);
        return known.orElse(t.name());
      }).toList();
      out.add(new MetricDefinition(m.name(), m.sql(), tables, m.filters(), m.description()));
    }
    return out;
  }

  private static List<String> names(Catalogue catalogue) {
    return catalogue.tables().stream().map(TableInfo::name).toList();
  }
}
