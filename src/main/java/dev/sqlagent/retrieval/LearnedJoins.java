package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.contract.LearnedMessages;
import dev.sqlagent.learn.Learner;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The joins the database's workload runs that no foreign key declares ({@code dev.sqlagent.learn}), as join-path
 * completion and the prompt use them. The workload changes with use, not with the schema, so it is read again on a
 * timer as well as at each new catalogue version; until the first reading is done, join paths use the declared keys
 * alone. A reading that fails keeps what the one before taught.
 */
final class LearnedJoins {

  private static final Logger LOG = LoggerFactory.getLogger(LearnedJoins.class);

  /** The workload is read again this often (and at each new catalogue version, and for {@code GET /api/learned}). */
  static final long RELEARN_EVERY_MS = 15 * 60_000L;
  /** Most learned joins the prompt names. */
  static final int MAX_IN_PROMPT = 12;

  /** The join graph of one catalogue with the joins one report taught: rebuilt only when either changes. */
  private record JoinGraph(Catalogue catalogue, LearnedMessages.Report learned, JoinPaths.Graph graph) {}

  private final Vertx vertx;
  private final Learner learner;
  private volatile LearnedMessages.Report learned = LearnedMessages.Report.none("not read yet");
  private volatile JoinGraph joinGraph;
  private long timer = -1;

  LearnedJoins(Vertx vertx, Learner learner) {
    this.vertx = vertx;
    this.learner = learner;
  }

  /** Reads the workload now (in the background), then every {@link #RELEARN_EVERY_MS} against the catalogue then followed. */
  void start(Supplier<Catalogue> followed) {
    relearn(followed.get());
    timer = vertx.setPeriodic(RELEARN_EVERY_MS, t -> relearn(followed.get()));
  }

  void stop() {
    if (timer >= 0) vertx.cancelTimer(timer);
  }

  /**
   * Reads the workload again and learns from it against {@code catalogue} (on a worker); what it learned serves
   * join-path completion from then on (a join whose columns are gone is dropped). A failure keeps what was learned
   * before.
   */
  Future<LearnedMessages.Report> relearn(Catalogue catalogue) {
    return learner.learn(vertx, catalogue)
        .onSuccess(report -> learned = report)
        .onFailure(e -> LOG.warn("learning from the workload failed: {}", e.toString()));
  }

  /** What the last reading taught. */
  LearnedMessages.Report learned() {
    return learned;
  }

  /** The join graph of {@code catalogue}: its declared keys first, then the learned joins. */
  JoinPaths.Graph graph(Catalogue catalogue) {
    JoinGraph g = joinGraph;
    LearnedMessages.Report taught = learned;
    if (g == null || g.catalogue() != catalogue || g.learned() != taught) {
      joinGraph = g = new JoinGraph(catalogue, taught, JoinPaths.graph(catalogue, taught.joins()));
    }
    return g.graph();
  }

  /**
   * The learned joins between the offered tables that no declared key already gives, so the model can write the
   * join a completed path relies on: observed facts of the workload (with how often they ran), not suggestions.
   * Empty when there are none.
   *
   * @param catalogue the catalogue whose foreign keys are checked (null: none is)
   */
  String promptText(List<String> offered, Catalogue catalogue) {
    return promptText(learned.joins(), offered, catalogue);
  }

  static String promptText(List<LearnedMessages.Join> learned, List<String> offered, Catalogue catalogue) {
    List<LearnedMessages.Join> joins = learned.stream()
        .filter(j -> offered.contains(j.table()) && offered.contains(j.refTable())).limit(MAX_IN_PROMPT).toList();
    if (joins.isEmpty()) return "";
    StringBuilder b = new StringBuilder();
    for (LearnedMessages.Join j : joins) {
      if (catalogue != null && declared(catalogue, j)) continue;
      b.append("-- ").append(j.describe()).append(" (run ").append(j.count()).append(" times)\n");
    }
    return b.isEmpty() ? "" : "\n-- Joins this database's workload runs (learned; no foreign key declares them):\n" + b;
  }

  /** Whether a foreign key of either table already says this join. */
  private static boolean declared(Catalogue catalogue, LearnedMessages.Join j) {
    return catalogue.find(j.table())
        .map(t -> t.foreignKeys().stream().anyMatch(fk -> fk.refTable().equals(j.refTable()))).orElse(false)
        || catalogue.find(j.refTable())
        .map(t -> t.foreignKeys().stream().anyMatch(fk -> fk.refTable().equals(j.table()))).orElse(false);
  }
}
