package dev.sqlagent.agent;

import dev.sqlagent.contract.ErrorType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The vote among several candidates: the successful ones are grouped by the fingerprint of their result, the
 * largest group wins, and a tie goes to the group whose first member came first. When none succeeded, the
 * repair continues from the most informative failure.
 */
final class CandidateVote {

  /**
   * @param winner the index of the winning group's first member; -1 when no candidate succeeded
   * @param votes each fingerprint's group size, in the order the groups first appeared
   */
  record Result(int winner, Map<String, Integer> votes) {
    int votesFor(String fingerprint) {
      return fingerprint == null ? 0 : votes.getOrDefault(fingerprint, 0);
    }
  }

  private CandidateVote() {}

  /** {@code fingerprints.get(i)} is candidate i's fingerprint, or null when it failed. */
  static Result decide(List<String> fingerprints) {
    Map<String, Integer> votes = new LinkedHashMap<>();
    Map<String, Integer> first = new LinkedHashMap<>();
    for (int i = 0; i < fingerprints.size(); i++) {
      String f = fingerprints.get(i);
      if (f == null) continue;
      votes.merge(f, 1, Integer::sum);
      first.putIfAbsent(f, i);
    }
    String best = null;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {  // groups in order of first appearance: ties keep the earlier
      if (best == null || e.getValue() > votes.get(best)) best = e.getKey();
    }
    return new Result(best == null ? -1 : first.get(best), votes);
  }

  /**
   * The failure a repair learns most from: a repairable error that says where or how (a position or a hint)
   * over a repairable one that does not, over anything not repairable; the earliest among equals.
   */
  static int mostInformative(List<Outcome> failures) {
    int best = 0;
    for (int i = 1; i < failures.size(); i++) {
      if (informative(failures.get(i)) > informative(failures.get(best))) best = i;
    }
    return best;
  }

  private static int informative(Outcome o) {
    ErrorType type = ErrorType.fromWireName(o.errorType());
    if (type == null || !type.repairable()) return 0;
    boolean located = o.position() != null || (o.hint() != null && !o.hint().isBlank());
    return located ? 2 : 1;
  }
}
