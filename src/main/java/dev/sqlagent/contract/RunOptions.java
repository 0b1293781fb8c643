package dev.sqlagent.contract;

/**
 * How the agent runs one question, beyond the question itself. A person's question ({@link #ASKED}) waits
 * for a slot, is a turn of a conversation and may be answered from the verified queries; an evaluation's
 * ({@link #evaluation}) paces itself, stands alone and measures the model, so it never looks the verified
 * queries up. Set by whoever asks (the evaluation harness), never by a client of the edges: on the wire the
 * options are top-level keys of the ask request, left out when they have their default.
 *
 * @param lookupVerified look the question up in the verified queries (worked examples, or the answer itself)
 * @param standalone not a turn of a conversation: none is opened or written, and the run id is not claimed
 * @param selfPaced the caller paces itself: the question takes no slot and never waits in the queue
 * @param candidates SQL candidates per attempt, overriding the configured number; null for the configured
 * @param faultKey inject a fault into the first attempt's SQL, chosen by this key; null for none
 */
public record RunOptions(boolean lookupVerified, boolean standalone, boolean selfPaced, Integer candidates,
    String faultKey) {

  /** A person's question, through any edge. */
  public static final RunOptions ASKED = new RunOptions(true, false, false, null, null);

  /** An evaluation's question: with {@code candidates} (null: the configured) and a fault keyed by {@code faultKey}. */
  public static RunOptions evaluation(Integer candidates, String faultKey) {
    return new RunOptions(false, true, true, candidates, faultKey);
  }

  public boolean injectFault() {
    return faultKey != null;
  }
}
