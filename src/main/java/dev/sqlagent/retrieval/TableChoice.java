package dev.sqlagent.retrieval;

import dev.sqlagent.contract.ScoredTable;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How many tables a question is offered and which: the top of the ranking, the tables its stored values link,
 * then the tables that join them. Pure arithmetic over a ranking, kept apart so the sizes can be tuned and
 * measured (RetrievalBenchmark, Retrieval1000Benchmark) without a verticle.
 */
public final class TableChoice {
  private TableChoice() {}

  /** Tables chosen by similarity for a small schema (up to {@link #SMALL_SCHEMA} tables), and when widened. */
  public static final int TOP_K = 5;
  public static final int WIDE_TOP_K = 9;
  static final int SMALL_SCHEMA = 30;
  static final int MAX_TOP_K = 12;
  /** Widening (a repair after an unknown table or column) offers this many more. */
  static final int WIDEN_BY = WIDE_TOP_K - TOP_K;

  /**
   * How many tables a question is offered, by the size of the schema: 5 up to 30 tables (the demo's size,
   * where 5 holds every join path the labelled questions need), then 2 more for every doubling,
   * {@code round(5 + 2 * log2(n / 30))}, at most 12 (100 tables: 8, 300: 12, 1,000: 12). Widened (a repair
   * after an unknown table or column) by 4 more. Join tables are added on top (at most {@link
   * JoinPaths#maxAdded}), and the prompt budget shortens column lists rather than dropping any table.
   */
  public static int topK(int tables, boolean widen) {
    int k = tables <= SMALL_SCHEMA ? TOP_K
        : (int) Math.min(MAX_TOP_K, Math.round(TOP_K + 2 * (Math.log((double) tables / SMALL_SCHEMA) / Math.log(2))));
    return widen ? k + WIDEN_BY : k;
  }

  /**
   * The choice for a question: the top {@code k} of {@code ranked} with the tables the question's stored values
   * link ({@link ValueLinks#choose}), then the tables that join them ({@link JoinPaths}), over declared keys first
   * and learned joins after.
   *
   * @param tables how many tables the catalogue holds
   */
  public static List<ScoredTable> choice(JoinPaths.Graph graph, List<ScoredTable> ranked, int k, int tables,
      Map<String, String> links) {
    return JoinPaths.complete(graph, ValueLinks.choose(ranked, k, links), ranked, joinTables(tables, k));
  }

  /** {@link #choice(JoinPaths.Graph, List, int, int, Map)} over the foreign keys alone. */
  public static List<ScoredTable> choice(Map<String, Set<String>> graph, List<ScoredTable> ranked, int k, int tables,
      Map<String, String> links) {
    return choice(JoinPaths.Graph.declaredOnly(graph), ranked, k, tables, links);
  }

  /**
   * How many linking tables join-path completion may add: none for a small schema, where the top 5 are a
   * third of all tables and already hold the join paths (on the demo's 20 labelled questions completion fired
   * on 12 and added none of the 3 missing tables); {@link JoinPaths#maxAdded} beyond (on the generated
   * 1,000-table schema it lifts recall of the needed tables from 77% to 92%, Retrieval1000Benchmark).
   */
  public static int joinTables(int tables, int k) {
    return tables <= SMALL_SCHEMA ? 0 : JoinPaths.maxAdded(k);
  }
}
