package dev.sqlagent.agent;

import dev.sqlagent.contract.StepData;

/**
 * A failure outside the agent's control (the model down, out of quota, too slow; retrieval failing): ends the run in
 * a give-up. {@code eventData}, when present, is the failed event of the node it happened in.
 */
final class InfrastructureFailure extends RuntimeException {
  final String errorType;
  final StepData eventData;

  InfrastructureFailure(String errorType, String message) {
    this(errorType, message, null);
  }

  InfrastructureFailure(String errorType, String message, StepData eventData) {
    super(message, null, false, false);
    this.errorType = errorType;
    this.eventData = eventData;
  }

  /** The model failed: the node that asked it fails with the error type and the message. */
  static InfrastructureFailure model(String errorType, String message) {
    return new InfrastructureFailure(errorType, message, new StepData.ModelFailed(errorType, message));
  }
}
