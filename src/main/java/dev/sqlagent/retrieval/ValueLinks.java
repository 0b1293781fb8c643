package dev.sqlagent.retrieval;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.values.ValueMatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Values link the schema: a phrase of the question that is a whole stored value (case and spacing aside, or
 * within the fuzzy bounds as one phrase) names the table that stores it, whatever its similarity to the
 * question. "How much has pooja patil spent?" needs {@code customers}, whose {@code cust_name} holds
 * 'Pooja Patil', though nothing else in the question resembles it.
 *
 * <p>The linked tables (at most {@link #MAX_TABLES}, first named first) come right after the best similarity pick,
 * above the weaker ones, each with its reason; one not among the top k is added, none is dropped for it. Join-path
 * completion then runs over the whole choice, and the prompt budget shortens the least relevant tables' columns
 * first, so a linked table keeps its columns ahead of the weaker picks. Pure and fast: safe anywhere.
 */
public final class ValueLinks {
  private ValueLinks() {}

  /** Most tables one question's stored values link. */
  public static final int MAX_TABLES = 3;

  /**
   * The tables the whole values name, first named first, each with its reason (see {@link #reason}); only tables
   * {@code visible} lets through (the ones the asking role sees), at most {@link #MAX_TABLES}.
   */
  public static Map<String, String> tables(List<ValueMatch> wholeValues, Predicate<String> visible) {
    Map<String, String> out = new LinkedHashMap<>();
    for (ValueMatch m : wholeValues) {
      for (ValueMatch.Stored s : m.stored()) {
        if (out.size() >= MAX_TABLES) return out;
        if (!out.containsKey(s.table()) && visible.test(s.table())) out.put(s.table(), reason(m, s));
      }
    }
    return out;
  }

  /**
   * Why a table is linked: {@code 'pooja patil' = customers.cust_name} when the phrase is the value but for case
   * and spacing, {@code 'suresh kulkarny' ≈ customers.cust_name 'Suresh Kulkarni'} when it is within the fuzzy
   * bounds.
   */
  static String reason(ValueMatch m, ValueMatch.Stored s) {
    String phrase = Identifiers.literal(m.phrase().replaceAll("\\s+", " "));
    return m.asStored(s) ? phrase + " = " + s.where() : phrase + " ≈ " + s.where() + " " + Identifiers.literal(s.value());
  }

  /**
   * The top {@code k} of {@code ranked} with the linked tables: the best pick, then every linked table (moved up
   * if chosen already, else added), then the other picks in their order.
   *
   * @param ranked every table the question may be offered, best first
   * @param links the linked tables and their reasons ({@link #tables})
   */
  public static List<ScoredTable> choose(List<ScoredTable> ranked, int k, Map<String, String> links) {
    List<ScoredTable> top = ranked.subList(0, Math.min(k, ranked.size()));
    if (links.isEmpty()) return List.copyOf(top);
    Map<String, ScoredTable> byName = new LinkedHashMap<>();
    for (ScoredTable s : ranked) byName.putIfAbsent(s.name(), s);
    List<ScoredTable> out = new ArrayList<>(top.size() + links.size());
    Set<String> linked = links.keySet();
    if (!top.isEmpty() && !linked.contains(top.get(0).name())) out.add(top.get(0));
    // Linked tables in their similarity order (the best pick first when it is linked itself), unranked ones last.
    List<String> rankOrder = new ArrayList<>(byName.keySet());
    links.keySet().stream()
        .sorted(java.util.Comparator.comparingInt(t -> rankOrder.contains(t) ? rankOrder.indexOf(t) : Integer.MAX_VALUE))
        .forEach(table -> {
          ScoredTable s = byName.get(table);
          out.add((s == null ? new ScoredTable(table, 0.0) : s).withValueLink(links.get(table)));
        });
    for (ScoredTable s : top) {
      if (!linked.contains(s.name()) && !out.contains(s)) out.add(s);
    }
    return List.copyOf(out);
  }
}
