package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/**
 * One step of a run as every watcher sees it. {@code seq} starts at 1 and rises by one per event within a
 * run, so a client can detect a gap and ask for the run's events so far. Status is started, finished or
 * failed; streaming token deltas of a generation are extra events with status {@code progress}. The JSON
 * keys are the components in snake_case ({@link RecordJson}).
 *
 * @param user the asking user's name from the users file (whose run it is); absent without one
 * @param conversationId the conversation the run is a turn of (absent for a question outside one, such as an
 *     evaluation's)
 */
public record GraphEvent(String runId, long seq, long ts, String node, String status, int attempt, String kind,
    JsonObject data, @OmitWhenNull String user, @OmitWhenNull String conversationId) {

  public static final String STARTED = "started";
  public static final String FINISHED = "finished";
  public static final String FAILED = "failed";
  public static final String PROGRESS = "progress";

  public GraphEvent {
    data = data == null ? new JsonObject() : data;
  }

  /** Whether this is the end of a node (finished or failed), not its start or a streaming delta. */
  public boolean ended() {
    return FINISHED.equals(status) || FAILED.equals(status);
  }

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  /** Throws IllegalArgumentException for a value of the wrong type. */
  public static GraphEvent fromJson(JsonObject json) {
    return RecordJson.fromJson(GraphEvent.class, json);
  }
}
