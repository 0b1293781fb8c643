package dev.sqlagent.contract;

import dev.sqlagent.users.User;
import io.vertx.core.json.JsonObject;

/**
 * A request about one run: its events so far ({@code Addresses.RUN_EVENTS}: {@code {run_id, after_seq, user?}}),
 * or to stop it ({@code Addresses.CANCEL}: {@code {run_id, user?, by?}}). {@code user} is the caller (null
 * without a users file), checked against the run's owner.
 *
 * @param afterSeq events after this sequence number (events only)
 * @param by who stops it, in words, for the log (cancel only)
 */
public record RunRequest(String runId, long afterSeq, User user, String by) {

  public static RunRequest events(String runId, long afterSeq, User user) {
    return new RunRequest(runId, afterSeq, user, null);
  }

  public static RunRequest cancel(String runId, User user, String by) {
    return new RunRequest(runId, 0, user, by);
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("run_id", runId);
    if (afterSeq != 0) j.put("after_seq", afterSeq);
    j.put("user", user == null ? null : user.toJson());
    if (by != null) j.put("by", by);
    return j;
  }

  public static RunRequest fromJson(JsonObject j) {
    return new RunRequest(j.getValue("run_id") instanceof String r ? r : null,
        j.getValue("after_seq") instanceof Number n ? n.longValue() : 0,
        j.getValue("user") instanceof JsonObject u ? User.fromJson(u) : null,
        j.getValue("by") instanceof String b ? b : null);
  }
}
