package dev.sqlagent.agent;

import io.vertx.core.json.JsonObject;

/**
 * One step of a run as every watcher sees it. {@code seq} starts at 1 and rises by one per event within a
 * run, so a client can detect a gap and ask for the run's events so far. Status is started, finished or
 * failed; streaming token deltas of a generation are extra events with status {@code progress}.
 */
public record GraphEvent(String runId, long seq, long ts, String node, String status, int attempt, String kind,
    JsonObject data) {

  public JsonObject toJson() {
    return new JsonObject().put("run_id", runId).put("seq", seq).put("ts", ts).put("node", node)
        .put("status", status).put("attempt", attempt).put("kind", kind).put("data", data);
  }
}
