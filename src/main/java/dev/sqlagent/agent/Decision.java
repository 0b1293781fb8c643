package dev.sqlagent.agent;

/**
 * The {@code decide} node: what follows an inspected result. The attempt cap lives here and nowhere else.
 */
public final class Decision {

  /** At most this many attempts per question; then an honest give-up. */
  public static final int MAX_ATTEMPTS = 3;

  public enum Next { ANSWER, REPAIR, GIVE_UP, REFUSE }

  private Decision() {}

  /**
   * @param succeeded the query ran and its result stands as the answer (rows, or an honest empty result)
   * @param repairable the failure's error type has a repair strategy
   * @param refusal the failure means the request itself is not allowed (a write); it is refused, not retried
   * @param attempt the attempt just made (1-based)
   * @param repairAllowed false in baseline mode: one attempt, no repair
   */
  public static Next decide(boolean succeeded, boolean repairable, boolean refusal, int attempt, boolean repairAllowed) {
    if (succeeded) return Next.ANSWER;
    if (refusal) return Next.REFUSE;
    if (!repairable || !repairAllowed || attempt >= MAX_ATTEMPTS) return Next.GIVE_UP;
    return Next.REPAIR;
  }
}
