package dev.sqlagent.agent;

import io.vertx.core.json.JsonObject;

/**
 * What the agent reads from the service configuration.
 *
 * @param onOneNode clustered: the run's own node serves its steps (the gate, retrieval, the model)
 * @param candidates SQL candidates per attempt (1: one, as before; more: voted by their results)
 * @param candidateTemperature the sampling temperature when there are several candidates
 */
record AgentSettings(String model, long questionTimeoutMs, long stepTimeoutMs, boolean modelSummary, boolean onOneNode,
    int candidates, double candidateTemperature) {

  static AgentSettings from(JsonObject config) {
    return new AgentSettings(
        config.getString("llmModel", "unknown"),
        config.getLong("questionTimeoutMs", 180_000L),
        // gate and retrieval steps: the statement timeout plus planning and queueing headroom
        config.getLong("statementTimeoutMs", 5_000L) + 10_000L,
        config.getBoolean("llmAnswerSummary", true),
        // clustered: the run's own node serves its steps (the gate, retrieval, the model)
        config.getString("clusterNode") != null,
        config.getInteger("candidates", 1),
        config.getDouble("candidateTemperature", 0.7));
  }
}
