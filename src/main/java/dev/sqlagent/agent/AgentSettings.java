package dev.sqlagent.agent;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.policy.ModelSees;

/**
 * What a run reads from the service configuration; the step deadline is derived in {@code Deadlines}.
 *
 * @param onOneNode clustered: the run's own node serves its steps (the gate, retrieval, the model)
 * @param candidates SQL candidates per attempt (1: one SQL; more: voted by their results)
 * @param candidateTemperature the sampling temperature when there are several candidates
 * @param modelSees what of the database the model is sent: below {@code results} no result row reaches a prompt
 */
record AgentSettings(String model, long questionTimeoutMs, long stepTimeoutMs, boolean modelSummary, boolean onOneNode,
    int candidates, double candidateTemperature, ModelSees modelSees) {

  /** @param clusterNode this worker's node id when clustered, else null */
  static AgentSettings from(AppConfig config, String clusterNode) {
    return new AgentSettings(config.llmModel(), config.questionTimeoutMs(), config.deadlines().stepMs(),
        config.llmAnswerSummary(), clusterNode != null, config.candidates(), config.candidateTemperature(),
        config.modelSees());
  }
}
