package dev.sqlagent.agent;

import dev.sqlagent.config.AppConfig;

/** What the agent reads from the service configuration; the step deadline is derived in {@code Deadlines}. */
record AgentSettings(String model, long questionTimeoutMs, long stepTimeoutMs, boolean modelSummary) {

  static AgentSettings from(AppConfig config) {
    return new AgentSettings(config.llmModel(), config.questionTimeoutMs(), config.deadlines().stepMs(),
        config.llmAnswerSummary());
  }
}
