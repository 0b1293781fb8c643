package dev.sqlagent.contract;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/** The small notices between the services: stop a run's work, flush its journal, drift seen, live clients. */
public final class OpsMessages {
  private OpsMessages() {}

  /** Published on {@code Addresses.STOP_WORK}: a run was cancelled or passed its deadline. */
  public record StopWork(String runId) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    /** Lenient: a run id that is not a string reads as null (nothing of that run is running). */
    public static StopWork fromJson(JsonObject j) {
      return new StopWork(j != null && j.getValue("run_id") instanceof String r ? r : null);
    }
  }

  /** {@code Addresses.JOURNAL_FLUSH}: {@code {run_id}}, replied (empty) once its events so far are written. */
  public record JournalFlush(String runId) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static JournalFlush fromJson(JsonObject j) {
      return new JournalFlush(j != null && j.getValue("run_id") instanceof String r ? r : null);
    }
  }

  /** Published on {@code Addresses.SCHEMA_DRIFTED}: the differences between the snapshot and the live schema. */
  public record SchemaDrifted(Object differences) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static SchemaDrifted fromJson(JsonObject j) {
      return new SchemaDrifted(j == null ? null : j.getValue("differences"));
    }
  }

  /** Published on {@code Addresses.LIVE_CLIENTS}: a live client of {@code transport} ("ws" or "eventbus") came (1) or left (-1). */
  public record LiveClients(String transport, long delta) {
    public static final String WS = "ws";
    public static final String EVENTBUS = "eventbus";

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static LiveClients fromJson(JsonObject j) {
      return new LiveClients(j.getValue("transport") instanceof String t ? t : null,
          j.getValue("delta") instanceof Number n ? n.longValue() : 0);
    }
  }

  /**
   * {@code Addresses.DRAIN_AGENT} and {@code Addresses.DRAIN_EDGE} (node-local), when the process is told to stop:
   * the questions in flight may finish until {@code deadlineMs} ({@code System.currentTimeMillis()}); those still
   * running then are cancelled. Replied with {@link Drained} once every one has its answer.
   */
  public record Drain(long deadlineMs) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Drain fromJson(JsonObject j) {
      return new Drain(j != null && j.getValue("deadline_ms") instanceof Number n ? n.longValue() : 0);
    }
  }

  /** The reply to {@link Drain}: how many questions in flight finished by themselves, and how many were cancelled. */
  public record Drained(int finished, int cancelled) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Drained fromJson(JsonObject j) {
      return new Drained(j != null && j.getValue("finished") instanceof Number f ? f.intValue() : 0,
          j != null && j.getValue("cancelled") instanceof Number c ? c.intValue() : 0);
    }
  }
}
