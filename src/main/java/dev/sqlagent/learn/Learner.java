package dev.sqlagent.learn;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.contract.LearnedMessages.Evidence;
import dev.sqlagent.contract.LearnedMessages.Join;
import dev.sqlagent.contract.LearnedMessages.Report;
import dev.sqlagent.contract.LearnedMessages.Source;
import dev.sqlagent.contract.LearnedMessages.Suggestion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns from the workload: the SELECTs that ran in the target ({@code pg_stat_statements}, when the agent role may
 * read it), the questions this service answered (the state store's query log: answered only, never a refused,
 * failed, given-up or cancelled one) and the verified queries (not retired). From each it takes the pairs of
 * columns joined by equality and the conditions kept on a table's rows ({@link QueryShape}), resolved against the
 * catalogue as it is now, so a join whose columns the schema no longer has is dropped at the next reading.
 *
 * <p>Nothing is stored: the workload is stored already (the query log and verified queries in the state store,
 * pg_stat_statements in the target), and each reading is made against the catalogue of that moment. Reading
 * pg_stat_statements is a read of the target through its one door ({@link TargetReader}), as the agent role.
 */
public final class Learner {

  private static final Logger LOG = LoggerFactory.getLogger(Learner.class);

  /** Most distinct statements read from each source (the most executed, or the latest). */
  public static final int MAX_STATEMENTS = 5_000;
  /** A condition becomes a suggestion when at least this share of a table's queries keep it... */
  static final double SUGGEST_SHARE = 0.8;
  /** ...and at least this many of them do. */
  static final long SUGGEST_MIN = 3;

  public static final String PG_STAT_STATEMENTS = "pg_stat_statements";
  public static final String QUERY_LOG = "query_log";
  public static final String VERIFIED = "verified";

  /** One distinct statement of the workload, how often it ran (or was answered, or is verified), last when. */
  public record Statement(String source, String sql, long count, Instant lastSeen) {}

  /** The statements read, and what each source said. */
  public record Workload(List<Source> sources, List<Statement> statements) {}

  private static final String ANSWERED = "SELECT final_sql, count(*)::int8 AS n, max(asked_at) AS last_seen"
      + " FROM agent_query_log WHERE final_sql IS NOT NULL AND NOT gave_up AND NOT refused"
      + " AND NOT coalesce(cancelled, false) AND rows_returned IS NOT NULL"
      + " GROUP BY final_sql ORDER BY max(asked_at) DESC LIMIT " + MAX_STATEMENTS;
  private static final String VERIFIED_SQL = "SELECT sql, count(*)::int8 AS n, max(checked_at) AS last_seen"
      + " FROM verified_queries WHERE target = $1 AND retired_at IS NULL GROUP BY sql LIMIT " + MAX_STATEMENTS;

  private final TargetReader target;
  private final Pool state;
  private final String targetKey;

  /**
   * @param target the door to the target's data
   * @param state the state store's owner pool; null: no query log or verified queries to read
   * @param targetKey the target's key in the state store (the verified queries are per target)
   */
  public Learner(TargetReader target, Pool state, String targetKey) {
    this.target = target;
    this.state = state;
    this.targetKey = targetKey;
  }

  /** Reads the workload and learns from it against {@code catalogue}; the parsing is done on a worker. */
  public Future<Report> learn(Vertx vertx, Catalogue catalogue) {
    return read().compose(w -> vertx.executeBlocking(() -> learn(catalogue, w, Instant.now()), false));
  }

  /** The workload as it is now: every source read, each failure reported as that source's detail. */
  public Future<Workload> read() {
    List<Future<Part>> parts = List.of(statStatements(), answered(), verified());
    return Future.join(parts).transform(done -> {
      List<Source> sources = new ArrayList<>();
      List<Statement> statements = new ArrayList<>();
      for (Future<Part> p : parts) {
        sources.add(p.result().source());
        statements.addAll(p.result().statements());
      }
      return Future.succeededFuture(new Workload(sources, statements));
    });
  }

  private record Part(Source source, List<Statement> statements) {}

  private Future<Part> statStatements() {
    return target.workload(MAX_STATEMENTS).map(w -> {
      if (!w.access().readable()) return new Part(new Source(PG_STAT_STATEMENTS, false, w.access().detail(), 0), List.of());
      List<Statement> out = new ArrayList<>();
      for (TargetReader.Statement s : w.statements()) out.add(new Statement(PG_STAT_STATEMENTS, s.query(), s.calls(), null));
      return new Part(new Source(PG_STAT_STATEMENTS, true, w.access().detail(), out.size()), out);
    }).recover(e -> Future.succeededFuture(new Part(new Source(PG_STAT_STATEMENTS, false, "not read: " + e.getMessage(), 0),
        List.of())));
  }

  /** The query log's answered questions: their final SQL (the one that answered), however many attempts it took. */
  private Future<Part> answered() {
    if (state == null) return Future.succeededFuture(new Part(new Source(QUERY_LOG, false, "no state store", 0), List.of()));
    return state.query(ANSWERED).execute().map(rows -> {
      List<Statement> out = new ArrayList<>();
      for (Row r : rows) out.add(new Statement(QUERY_LOG, r.getString("final_sql"), r.getLong("n"), instant(r, "last_seen")));
      return new Part(new Source(QUERY_LOG, true, out.size() + " distinct answered queries", out.size()), out);
    }).recover(e -> Future.succeededFuture(new Part(new Source(QUERY_LOG, false, "not read: " + e.getMessage(), 0), List.of())));
  }

  private Future<Part> verified() {
    if (state == null) return Future.succeededFuture(new Part(new Source(VERIFIED, false, "no state store", 0), List.of()));
    return state.preparedQuery(VERIFIED_SQL).execute(Tuple.of(targetKey)).map(rows -> {
      List<Statement> out = new ArrayList<>();
      for (Row r : rows) out.add(new Statement(VERIFIED, r.getString("sql"), r.getLong("n"), instant(r, "last_seen")));
      return new Part(new Source(VERIFIED, true, out.size() + " verified queries in use", out.size()), out);
    }).recover(e -> Future.succeededFuture(new Part(new Source(VERIFIED, false, "not read: " + e.getMessage(), 0), List.of())));
  }

  private static Instant instant(Row r, String column) {
    OffsetDateTime t = r.getOffsetDateTime(column);
    return t == null ? null : t.toInstant();
  }

  // ---------------------------------------------------------------------------------------------------------

  /** Evidence gathered per source: executions and the latest time. */
  private static final class Tally {
    final Map<String, long[]> counts = new TreeMap<>();
    final Map<String, Instant> last = new HashMap<>();

    void add(Statement s) {
      counts.computeIfAbsent(s.source(), k -> new long[1])[0] += s.count();
      if (s.lastSeen() != null) last.merge(s.source(), s.lastSeen(), (a, b) -> a.isAfter(b) ? a : b);
    }

    long total() {
      return counts.values().stream().mapToLong(c -> c[0]).sum();
    }

    Instant latest() {
      return last.values().stream().max(Comparator.naturalOrder()).orElse(null);
    }

    List<Evidence> evidence() {
      List<Evidence> out = new ArrayList<>();
      for (var e : counts.entrySet()) {
        Instant t = last.get(e.getKey());
        out.add(new Evidence(e.getKey(), e.getValue()[0], t == null ? null : t.toString()));
      }
      return out;
    }
  }

  /**
   * What the workload teaches against {@code catalogue}: its joins (most executed first) and its suggested
   * conventions. Pure; BLOCKING (the parser): on a worker.
   */
  public static Report learn(Catalogue catalogue, Workload workload, Instant now) {
    long t0 = System.nanoTime();
    Map<QueryShape.JoinPair, Tally> joins = new LinkedHashMap<>();
    Map<String, Tally> tableUse = new HashMap<>();
    Map<QueryShape.Condition, Tally> conditions = new LinkedHashMap<>();
    Map<QueryShape.Condition, Map<String, Tally>> aggregatedWith = new HashMap<>();
    Map<String, QueryShape> parsed = new HashMap<>();
    int unparsed = 0;
    for (Statement s : workload.statements()) {
      QueryShape shape = parsed.computeIfAbsent(s.sql(), sql -> QueryShape.of(sql, catalogue));
      if (shape == QueryShape.NONE) {
        unparsed++;
        continue;
      }
      for (QueryShape.JoinPair p : shape.joins()) joins.computeIfAbsent(p, k -> new Tally()).add(s);
      for (String t : shape.tables()) tableUse.computeIfAbsent(t, k -> new Tally()).add(s);
      for (QueryShape.Condition c : shape.conditions()) {
        conditions.computeIfAbsent(c, k -> new Tally()).add(s);
        for (QueryShape.Condition a : shape.aggregates()) {
          if (a.table().equals(c.table())) {
            aggregatedWith.computeIfAbsent(c, k -> new TreeMap<>()).computeIfAbsent(a.predicate(), k -> new Tally()).add(s);
          }
        }
      }
    }
    List<Join> learnedJoins = new ArrayList<>();
    for (var e : joins.entrySet()) {
      QueryShape.JoinPair p = e.getKey();
      Tally t = e.getValue();
      learnedJoins.add(new Join(p.table(), p.column(), p.refTable(), p.refColumn(), t.total(),
          t.latest() == null ? null : t.latest().toString(), t.evidence()));
    }
    learnedJoins.sort(Comparator.comparingLong(Join::count).reversed().thenComparing(Join::describe));
    List<Suggestion> suggestions = new ArrayList<>();
    for (var e : conditions.entrySet()) {
      QueryShape.Condition c = e.getKey();
      long with = e.getValue().total();
      long of = tableUse.get(c.table()).total();
      if (with < SUGGEST_MIN || with < SUGGEST_SHARE * of) continue;
      boolean softDelete = softDelete(c);
      String aggregated = "";
      Map<String, Tally> aggs = aggregatedWith.getOrDefault(c, Map.of());
      if (!aggs.isEmpty()) {
        var top = aggs.entrySet().stream().max(Comparator.comparingLong(x -> x.getValue().total())).orElseThrow();
        aggregated = "; " + top.getValue().total() + " of them compute " + top.getKey();
      }
      String text = softDelete
          ? "Rows of " + c.table() + " are kept after deletion: count only those with " + c.predicate()
              + " (the workload filters " + c.predicate() + " in " + with + " of " + of + " queries of " + c.table() + ")."
          : "Queries of " + c.table() + " keep " + c.predicate() + " (in " + with + " of " + of + " queries of " + c.table()
              + aggregated + "); say so when a question means only those rows.";
      suggestions.add(new Suggestion(softDelete ? "soft_delete" : "filter", c.table(), c.predicate(), with, of, text,
          e.getValue().evidence()));
    }
    suggestions.sort(Comparator.comparing(Suggestion::table).thenComparing(Suggestion::predicate));
    LOG.info("learned from {} statements ({} not a query of known tables) in {} ms: {} joins, {} suggestions",
        workload.statements().size(), unparsed, (System.nanoTime() - t0) / 1_000_000, learnedJoins.size(), suggestions.size());
    return new Report(now.toString(), workload.sources(), learnedJoins, suggestions, NotesFragment.yaml(suggestions, learnedJoins, now));
  }

  /** Evidence for a person: {@code query_log 3, last 2026-12-01T18:00:00Z; pg_stat_statements 40}. */
  public static String describe(List<Evidence> evidence) {
    return NotesFragment.evidence(evidence);
  }

  private static final Set<String> DELETED_MARKERS = Set.of("deleted_at", "deleted", "is_deleted", "deleted_on",
      "removed_at", "archived_at", "is_archived", "archived", "voided_at", "is_void");

  /** A deleted marker filtered out: {@code deleted_at IS NULL}, {@code is_deleted = false}. */
  static boolean softDelete(QueryShape.Condition c) {
    String col = c.column().toLowerCase(java.util.Locale.ROOT);
    if (!DELETED_MARKERS.contains(col)) return false;
    String test = c.predicate().substring(c.column().length()).trim().toLowerCase(java.util.Locale.ROOT);
    return test.equals("is null") || test.equals("= false") || test.equals("<> true");
  }
}
