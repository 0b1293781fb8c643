package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
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

  /**
   * One recent run as {@code Addresses.RUNS} lists it; {@code startedAt} is an ISO-8601 instant; {@code worker},
   * clustered, the worker node that runs it.
   */
  public record Run(String runId, String user, String question, String state, String startedAt,
      @OmitWhenNull String worker) {
    public Run(String runId, String user, String question, String state, String startedAt) {
      this(runId, user, question, state, startedAt, null);
    }

    /** The same run, as the cluster's edge lists it: naming its worker node. */
    public Run onWorker(String workerName) {
      return new Run(runId, user, question, state, startedAt, workerName);
    }
  }

  /**
   * {@code Addresses.RUNS}' reply, newest first; clustered, {@code unreachable} names the workers that did not
   * answer (absent when all did).
   */
  public record Runs(List<Run> runs, @OmitWhenNull List<String> unreachable) {
    public Runs {
      unreachable = unreachable == null || unreachable.isEmpty() ? null : List.copyOf(unreachable);
    }

    public Runs(List<Run> runs) {
      this(runs, null);
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Runs fromJson(JsonObject j) {
      return RecordJson.fromJson(Runs.class, j);
    }
  }
}
