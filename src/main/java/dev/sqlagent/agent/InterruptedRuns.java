package dev.sqlagent.agent;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.conversation.Conversations;
import dev.sqlagent.querylog.AnswerKeeper;
import dev.sqlagent.users.User;
import io.vertx.core.Vertx;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs whose process stopped before they answered: every run claimed by a process that is gone and never marked
 * finished becomes an interrupted run (its log row, its conversation turn and its place in the list of runs). A store
 * that does not answer leaves them for the next sweep (clustered) or start.
 */
final class InterruptedRuns {

  private static final Logger LOG = LoggerFactory.getLogger(InterruptedRuns.class);

  /** Clustered, another worker's runs may be cut short at any time: their claims are looked for this often. */
  static final long SWEEP_EVERY_MS = 60_000;

  private final Vertx vertx;
  private final RunClaimsRepository claims;
  private final String node;
  private final Supplier<Set<String>> liveNodes;
  private final String model;
  private final RunRegistry registry;
  /** Has the query-log writer keep the rows of interrupted runs. */
  private AnswerKeeper keeper;
  private long timer = -1;

  /**
   * @param node the process its run claims name (this one)
   * @param liveNodes the node ids of the processes alive now, whose unfinished runs are theirs
   */
  InterruptedRuns(Vertx vertx, RunClaimsRepository claims, String node, Supplier<Set<String>> liveNodes, String model,
      RunRegistry registry) {
    this.vertx = vertx;
    this.claims = claims;
    this.node = node;
    this.liveNodes = liveNodes;
    this.model = model;
    this.registry = registry;
  }

  /** Looks once now and, when {@code periodic} (clustered), every {@link #SWEEP_EVERY_MS} until {@link #stop}. */
  void start(boolean periodic) {
    sweep();
    if (periodic) timer = vertx.setPeriodic(SWEEP_EVERY_MS, t -> sweep());
  }

  void stop() {
    if (timer != -1) vertx.cancelTimer(timer);
    timer = -1;
  }

  private void sweep() {
    Set<String> live = new HashSet<>(liveNodes.get());
    live.add(node);
    claims.sweep(live)
        .onFailure(e -> LOG.warn("runs cut short by a stopped process could not be looked for: {}", e.toString()))
        .onSuccess(found -> found.forEach(this::interrupted));
  }

  private void interrupted(RunClaimsRepository.Claim claim) {
    if (claim.turned()) return;  // it answered: its turn is written after its answer, and only then is it finished
    Answer answer = Interrupted.answer(claim, java.time.Instant.now(), model);
    LOG.warn("run {} was interrupted: the process that ran it ({}) stopped before it answered; recorded as interrupted",
        claim.runId(), claim.node());
    registry.interrupted(claim.runId(), claim.user(), claim.question(), claim.claimedAt());
    // Straight to the log writer, not published as an answer: the question was asked of the process that is gone (its
    // metrics went with it), and nobody is waiting for it.
    if (!claim.logged()) {
      if (keeper == null) keeper = new AnswerKeeper(vertx, "the agent, for an interrupted run");
      keeper.keep(answer.toJson());
    }
    if (claim.conversationId() != null) {
      User asker = claim.user() == null ? null : new User(claim.user(), claim.user(), false, null);
      Conversations.record(vertx, claim.conversationId(), answer, asker);
    }
  }
}
