package dev.sqlagent.contract;

import dev.sqlagent.users.User;
import dev.sqlagent.bus.BusFailure;
import io.vertx.core.eventbus.Message;
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

  /**
   * A {@code run_id} that is not a string reads as null (refused by the run-id rule); an {@code after_seq} that is
   * not a number is an {@link IllegalArgumentException}.
   */
  public static RunRequest fromJson(JsonObject j) {
    j = j == null ? new JsonObject() : j;
    Object after = j.getValue("after_seq");
    if (after != null && !(after instanceof Number)) throw new IllegalArgumentException("after_seq must be a whole number");
    return new RunRequest(j.getValue("run_id") instanceof String r ? r : null,
        after == null ? 0 : ((Number) after).longValue(),
        j.getValue("user") instanceof JsonObject u ? User.fromJson(u) : null,
        j.getValue("by") instanceof String b ? b : null);
  }

  /** The request a message carries, or null once the message is failed as a bad request (a malformed {@code after_seq}). */
  public static RunRequest read(Message<JsonObject> msg) {
    try {
      return fromJson(msg.body());
    } catch (IllegalArgumentException e) {
      msg.fail(BusFailure.BAD_REQUEST.code(), e.getMessage());
      return null;
    }
  }
}
