package dev.sqlagent.agent;

import io.vertx.core.json.JsonArray;

/** A recent run as the registry keeps it: its events, who asked, and the run itself while it is running. */
final class KeptRun {
  final JsonArray events = new JsonArray();
  final String owner;
  final String question;
  final long startedAt;
  /** The run while it runs; null once it ended (or before it started). */
  AgentRun active;
  String state = "running";

  KeptRun(String owner, String question) {
    this(owner, question, System.currentTimeMillis());
  }

  KeptRun(String owner, String question, long startedAt) {
    this.owner = owner;
    this.question = question;
    this.startedAt = startedAt;
  }
}
