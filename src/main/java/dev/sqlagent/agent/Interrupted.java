package dev.sqlagent.agent;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Attempt;
import io.vertx.core.json.JsonArray;
import java.time.Instant;
import java.util.List;

/**
 * The honest end of a run whose process stopped without answering it (killed, crashed, the machine lost): a give-up
 * with {@code interrupted}, in the shape of every other answer, so the query log, the conversation and the list of
 * runs show it as one. Written by the process that finds the run's claim unfinished.
 */
final class Interrupted {

  static final String ERROR_TYPE = "interrupted";
  /** A run's state in the list of runs ({@code GET /api/runs}). */
  static final String STATE = "interrupted";

  private Interrupted() {}

  /**
   * @param foundAt when the claim was found: the run's latency is counted to then (its process's end is not known),
   *     so that its log row's {@code asked_at} is the moment it was claimed
   */
  static Answer answer(RunClaimsRepository.Claim claim, Instant foundAt, String model) {
    String message = "the service stopped (it was killed or crashed) before this question was answered";
    Attempt lost = new Attempt(0, null, ERROR_TYPE, message, "ask again", null, null);
    long latencyMs = Math.max(0, foundAt.toEpochMilli() - claim.claimedAt().toEpochMilli());
    return new Answer(claim.question() == null ? "" : claim.question(),
        "I could not answer this question: " + message + ". Ask again.",
        null, 0, List.of(), false, true, false, new JsonArray(), new JsonArray(), 0, false, List.of(lost), null, 0.0,
        latencyMs, claim.runId(), claim.mode() == null ? "agent" : claim.mode(), model, claim.source(), claim.user(), null,
        null, null, claim.conversationId(), "model", null, null, null, null, ERROR_TYPE);
  }
}
