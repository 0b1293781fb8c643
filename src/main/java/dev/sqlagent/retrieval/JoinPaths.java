package dev.sqlagent.retrieval;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Completes a choice of tables with the tables that join them: the foreign-key graph (undirected, one edge per
 * pair of relations a foreign key links) is searched for a shortest path between chosen tables, up to
 * {@link #MAX_HOPS} edges, and the path's intermediate tables are added. Choosing {@code artist} and
 * {@code release_group} brings {@code artist_credit} (and {@code artist_credit_name}) that link them.
 *
 * <p>Hub tables must not flood the choice (adding every foreign-key neighbour of two chosen tables was tried
 * on the demo shop and fired on 10 of 12 questions, mostly adding noise), so:
 * <ul>
 *   <li>only pairs of chosen tables that are not already connected by chosen (or already added) tables
 *       are joined: most choices are connected already and get nothing;</li>
 *   <li>only intermediates on a shortest path are added; among several shortest paths, the one whose
 *       intermediates are most similar to the question wins;</li>
 *   <li>a pair must include one of the {@link #ANCHORS} best-ranked tables (the ones retrieval is surest
 *       of): two marginal tables are not linked to each other;</li>
 *   <li>pairs are taken best-ranked first, and at most {@link #maxAdded(int)} tables are added in all.</li>
 * </ul>
 * <p>Joins learned from the workload ({@link #graph(Catalogue, List)}) complete the graph where keys are not
 * declared: ranked below the keys (a path over declared keys is always preferred), and marked {@code learned}
 * with their evidence in the {@code via}.
 *
 * Pure and fast (a breadth-first search of at most 3 levels per pair): safe anywhere.
 */
public final class JoinPaths {
  private JoinPaths() {}

  /** The longest join path searched, in foreign-key edges (2 intermediate tables). */
  public static final int MAX_HOPS = 3;

  /** A join path must start at one of this many best-ranked tables. */
  public static final int ANCHORS = 3;

  /** At most this many linking tables are added to a choice of {@code k} tables: 2 for k = 5, 6 for k = 12. */
  public static int maxAdded(int k) {
    return Math.max(2, k / 2);
  }

  /** The foreign-key graph of a catalogue, undirected; relations only, self-references left out. */
  public static Map<String, Set<String>> graph(Catalogue catalogue) {
    Set<String> known = new HashSet<>(catalogue.names());
    Map<String, Set<String>> g = new HashMap<>();
    for (TableInfo t : catalogue.tables()) {
      for (TableInfo.ForeignKey fk : t.foreignKeys()) {
        String other = fk.refTable();
        if (other.equals(t.name()) || !known.contains(other)) continue;
        g.computeIfAbsent(t.name(), x -> new TreeSet<>()).add(other);
        g.computeIfAbsent(other, x -> new TreeSet<>()).add(t.name());
      }
    }
    return g;
  }

  /**
   * The join graph: the declared foreign keys, and the same with the joins learned from the workload
   * ({@code dev.sqlagent.learn}), each learned edge with its evidence.
   *
   * @param declared the foreign-key graph ({@link #graph(Catalogue)})
   * @param all declared and learned edges together
   * @param learned the edges only the workload knows, by {@link #edge}: the joins that make them and how often they ran
   */
  public record Graph(Map<String, Set<String>> declared, Map<String, Set<String>> all, Map<String, String> learned) {
    /** Foreign keys only. */
    public static Graph declaredOnly(Map<String, Set<String>> declared) {
      return new Graph(declared, declared, Map.of());
    }
  }

  /**
   * The foreign-key graph with the learned joins added below it: a learned pair of relations the keys already
   * link adds nothing; a pair only the workload joins becomes an edge marked {@code learned}. Joins naming a
   * relation the catalogue no longer has are left out.
   */
  public static Graph graph(Catalogue catalogue, List<dev.sqlagent.contract.LearnedMessages.Join> joins) {
    Map<String, Set<String>> declared = graph(catalogue);
    if (joins.isEmpty()) return Graph.declaredOnly(declared);
    Set<String> known = new HashSet<>(catalogue.names());
    Map<String, Set<String>> all = new HashMap<>();
    declared.forEach((k, v) -> all.put(k, new TreeSet<>(v)));
    Map<String, String> learned = new HashMap<>();
    for (var j : joins) {
      String a = j.table();
      String b = j.refTable();
      if (a.equals(b) || !known.contains(a) || !known.contains(b)) continue;
      if (declared.getOrDefault(a, Set.of()).contains(b)) continue;
      all.computeIfAbsent(a, x -> new TreeSet<>()).add(b);
      all.computeIfAbsent(b, x -> new TreeSet<>()).add(a);
      learned.merge(edge(a, b), j.describe() + ", run " + j.count() + " times", (x, y) -> x);  // most run first
    }
    return new Graph(declared, all, learned);
  }

  /** The key of the undirected edge between two relations. */
  static String edge(String a, String b) {
    return a.compareTo(b) <= 0 ? a + "\u0000" + b : b + "\u0000" + a;
  }

  /** {@link #complete(Graph, List, List, int)} over the foreign keys alone. */
  public static List<ScoredTable> complete(Map<String, Set<String>> graph, List<ScoredTable> chosen,
      List<ScoredTable> ranked, int maxAdded) {
    return complete(Graph.declaredOnly(graph), chosen, ranked, maxAdded);
  }

  /**
   * The chosen tables (best first), followed by the linking tables added for join paths, each with its own
   * similarity (from {@code ranked}) and a {@code via} naming the path. A path over declared keys is preferred;
   * one that needs learned joins is taken only when the keys give none, and its {@code via} names each learned
   * join with its evidence.
   *
   * @param ranked every table with its similarity to the question (to score and prefer intermediates)
   */
  public static List<ScoredTable> complete(Graph joinGraph, List<ScoredTable> chosen,
      List<ScoredTable> ranked, int maxAdded) {
    Map<String, Set<String>> graph = joinGraph.all();
    Map<String, Double> score = new HashMap<>();
    for (ScoredTable s : ranked) score.put(s.name(), s.score());
    for (ScoredTable s : chosen) score.putIfAbsent(s.name(), s.score());
    Set<String> inSet = new HashSet<>();
    for (ScoredTable s : chosen) inSet.add(s.name());
    Map<String, ScoredTable> added = new LinkedHashMap<>();
    List<String> names = chosen.stream().map(ScoredTable::name).toList();
    // Pairs in order of the worse rank, then the better: (0,1), (0,2), (1,2), (0,3), ...
    outer:
    for (int j = 1; j < names.size(); j++) {
      for (int i = 0; i < Math.min(j, ANCHORS); i++) {
        if (added.size() >= maxAdded) break outer;
        String a = names.get(i);
        String b = names.get(j);
        if (connected(graph, inSet, a, b)) continue;
        List<String> path = shortestPath(joinGraph.declared(), a, b, score);
        if (path == null && !joinGraph.learned().isEmpty()) path = shortestPath(graph, a, b, score);
        if (path == null) continue;
        List<String> middle = path.subList(1, path.size() - 1).stream().filter(n -> !inSet.contains(n)).toList();
        if (middle.isEmpty() || added.size() + middle.size() > maxAdded) continue;
        String via = "join path: " + String.join(" - ", path) + learnedOn(joinGraph, path);
        for (String m : middle) {
          added.put(m, new ScoredTable(m, score.getOrDefault(m, 0.0), via));
          inSet.add(m);
        }
      }
    }
    if (added.isEmpty()) return chosen;
    List<ScoredTable> all = new ArrayList<>(chosen);
    all.addAll(added.values());
    return List.copyOf(all);
  }

  /** The learned joins a path takes, with their evidence: {@code " (learned: a.x = b.y, run 12 times)"}; "" for none. */
  private static String learnedOn(Graph g, List<String> path) {
    List<String> learned = new ArrayList<>();
    for (int i = 1; i < path.size(); i++) {
      String why = g.learned().get(edge(path.get(i - 1), path.get(i)));
      if (why != null && !g.declared().getOrDefault(path.get(i - 1), Set.of()).contains(path.get(i))) learned.add(why);
    }
    return learned.isEmpty() ? "" : " (learned: " + String.join("; ", learned) + ")";
  }

  /** Whether a and b are connected through tables of {@code within} only. */
  static boolean connected(Map<String, Set<String>> graph, Set<String> within, String a, String b) {
    Deque<String> queue = new ArrayDeque<>(List.of(a));
    Set<String> seen = new HashSet<>(List.of(a));
    while (!queue.isEmpty()) {
      String n = queue.poll();
      if (n.equals(b)) return true;
      for (String m : graph.getOrDefault(n, Set.of())) {
        if (within.contains(m) && seen.add(m)) queue.add(m);
      }
    }
    return false;
  }

  /**
   * A shortest path from a to b of at most {@link #MAX_HOPS} edges (a and b included), or null. Among equally
   * short paths, the one whose intermediate tables have the highest summed similarity; then by name.
   */
  static List<String> shortestPath(Map<String, Set<String>> graph, String a, String b, Map<String, Double> score) {
    Map<String, Integer> depth = new HashMap<>();
    Map<String, List<String>> parents = new HashMap<>();
    depth.put(a, 0);
    List<String> level = List.of(a);
    for (int d = 1; d <= MAX_HOPS && !depth.containsKey(b); d++) {
      List<String> next = new ArrayList<>();
      for (String n : level) {
        for (String m : graph.getOrDefault(n, Set.of())) {
          Integer dm = depth.get(m);
          if (dm == null) {
            depth.put(m, d);
            next.add(m);
          }
          if (depth.get(m) == d) parents.computeIfAbsent(m, x -> new ArrayList<>()).add(n);
        }
      }
      level = next;
    }
    if (!depth.containsKey(b)) return null;
    return best(b, a, parents, score);
  }

  /** The best path from a (the root) to node, following parent links back. */
  private static List<String> best(String node, String root, Map<String, List<String>> parents, Map<String, Double> score) {
    if (node.equals(root)) return new ArrayList<>(List.of(root));
    List<String> bestPath = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (String p : new TreeSet<>(parents.get(node))) {
      List<String> path = best(p, root, parents, score);
      double s = 0;
      for (int i = 1; i < path.size(); i++) s += score.getOrDefault(path.get(i), 0.0);
      if (bestPath == null || s > bestScore) {
        bestPath = path;
        bestScore = s;
      }
    }
    bestPath.add(node);
    return bestPath;
  }
}
