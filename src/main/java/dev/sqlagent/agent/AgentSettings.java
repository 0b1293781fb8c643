package dev.sqlagent.agent;

import io.vertx.core.json.JsonObject;

/** What the agent reads from the service configuration. */
record AgentSettings(String model, long questionTimeoutMs, long stepTimeoutMs, boolean modelSummary, boolean onOneNode) {

  static AgentSettings from(JsonObject config) {
    return new AgentSettings(
        config.getString("llmModel", "unknown"),
        config.getLong("questionTimeoutMs", 180_000L),
        // gate and retrieval steps: the statement timeout plus planning and queueing headroom
        config.getLong("statementTimeoutMs", 5_000L) + 10_000L,
        config.getBoolean("llmAnswerSummary", true),
        // clustered: the run's own node serves its steps (the gate, retrieval, the model)
        config.getString("clusterNode") != null);
  }
}
