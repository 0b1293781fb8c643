package dev.sqlagent.intake;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.contract.AskRequest;

/**
 * What the intake made of a question: refused ({@link #refusal}, as every door reports it), or a named run's request,
 * registered with the connection that asked ({@link #owner}, null for a caller that holds none).
 */
public record Taken(AskRules.Refusal refusal, AskRequest request, Owner owner) {

  static Taken refused(AskRules.Refusal refusal) {
    return new Taken(refusal, null, null);
  }

  public boolean refused() {
    return refusal != null;
  }

  /** The run's id: the client's choice where the door lets it choose, else one the intake named. */
  public String runId() {
    return request == null ? null : request.runId();
  }
}
