package dev.sqlagent.contract;

import dev.sqlagent.users.User;
import io.vertx.core.json.JsonObject;

/**
 * A new run from SQL a person chose rather than the model wrote ({@code Addresses.RERUN}): {@code {run_id, sql?,
 * reading?, new_run_id?, source, user?}}. Either {@code sql}, the answer's SQL as the person edited it, or
 * {@code reading}, the number of one of the readings a run that asked back offered. The new run is the next turn of
 * the first run's conversation, for the first run's owner or an admin; its answer names the run it came from.
 * Values are kept as sent; the agent checks them.
 *
 * @param runId the run whose answer is edited, or whose readings are chosen from
 * @param newRunId the client's name for the new run, or null for one the agent picks
 * @param source which entry it came through (http, ws, eventbus, cli, mcp)
 * @param client the asking client's address as the edge saw it (see {@link AskRequest#client}), or null
 */
public record RerunRequest(String runId, Object sql, Object reading, String newRunId, String source, User user,
    String client) {

  /** An edit of {@code runId}'s SQL. */
  public static RerunRequest edited(String runId, Object sql, String newRunId, String source, User user) {
    return new RerunRequest(runId, sql, null, newRunId, source, user, null);
  }

  /** The choice of reading {@code reading} of {@code runId}. */
  public static RerunRequest chosen(String runId, Object reading, String newRunId, String source, User user) {
    return new RerunRequest(runId, null, reading, newRunId, source, user, null);
  }

  /** The same request from the client at {@code address}. */
  public RerunRequest withClient(String address) {
    return new RerunRequest(runId, sql, reading, newRunId, source, user, address);
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("run_id", runId);
    if (sql != null) j.put("sql", sql);
    if (reading != null) j.put("reading", reading);
    if (newRunId != null) j.put("new_run_id", newRunId);
    if (client != null) j.put("client", client);
    return j.put("source", source).put("user", user == null ? null : user.toJson());
  }

  public static RerunRequest fromJson(JsonObject j) {
    j = j == null ? new JsonObject() : j;
    return new RerunRequest(j.getValue("run_id") instanceof String r ? r : null, j.getValue("sql"), j.getValue("reading"),
        j.getValue("new_run_id") instanceof String n ? n : null, j.getValue("source") instanceof String s ? s : null,
        j.getValue("user") instanceof JsonObject u ? User.fromJson(u) : null,
        j.getValue("client") instanceof String c ? c : null);
  }
}
