package dev.sqlagent.contract;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** The agent's replies about runs: a run's events, a cancel, the list of recent runs. */
public final class RunMessages {
  private RunMessages() {}

  /** {@code Addresses.RUN_EVENTS}'s reply: the run's events after the asked sequence number, in order. */
  public record Events(String runId, List<GraphEvent> events) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Events fromJson(JsonObject j) {
      return RecordJson.fromJson(Events.class, j);
    }
  }

  /** {@code Addresses.CANCEL}'s reply. */
  public record Cancelled(String runId, boolean cancelled) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Cancelled fromJson(JsonObject j) {
      return RecordJson.fromJson(Cancelled.class, j);
    }
  }

  /** One recent run as {@code Addresses.RUNS} lists it; {@code startedAt} is an ISO-8601 instant. */
  public record Run(String runId, String user, String question, String state, String startedAt) {}

  /** {@code Addresses.RUNS}' reply, newest first. */
  public record Runs(List<Run> runs) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Runs fromJson(JsonObject j) {
      return RecordJson.fromJson(Runs.class, j);
    }
  }
}
