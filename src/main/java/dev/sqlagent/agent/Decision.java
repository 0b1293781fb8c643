package dev.sqlagent.agent;

/** What follows an inspected result: the rule of the {@code decide} node ({@link Decide}). */
public final class Decision {

  public enum Next { ANSWER, REPAIR, GIVE_UP, REFUSE }

  private Decision() {}

  /**
   * @param succeeded the query ran and its result stands as the answer (rows, or an honest empty result)
   * @param repairable the failure's error type has a repair strategy
   * @param refusal the failure means the request itself is not allowed (a write); it is refused, not retried
   * @param attemptsLeft the attempt cap allows another attempt ({@link AgentGraph#MAX_ATTEMPTS})
   * @param repairAllowed false in baseline mode: one attempt, no repair
   */
  public static Next decide(boolean succeeded, boolean repairable, boolean refusal, boolean attemptsLeft,
      boolean repairAllowed) {
    if (succeeded) return Next.ANSWER;
    if (refusal) return Next.REFUSE;
    if (!repairable || !repairAllowed || !attemptsLeft) return Next.GIVE_UP;
    return Next.REPAIR;
  }
}
