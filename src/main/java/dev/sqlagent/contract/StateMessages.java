package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import dev.sqlagent.users.User;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The state side's messages: conversations, feedback and turns (the conversation store), the verified
 * library's management, the query log. A request's values that its service checks itself (an id's shape, a
 * rating, a comment) are carried as given ({@code Object}), so the service refuses them in its own words;
 * {@code user} is the caller (null without a users file).
 */
public final class StateMessages {
  private StateMessages() {}

  private static JsonObject userJson(User user) {
    return user == null ? null : user.toJson();
  }

  private static User userOf(JsonObject j) {
    return j.getValue("user") instanceof JsonObject u ? User.fromJson(u) : null;
  }

  private static JsonObject body(JsonObject j) {
    return j == null ? new JsonObject() : j;
  }

  // --- conversations --------------------------------------------------------------------------------

  /**
   * {@code Addresses.CONVERSATION_OPEN} ({@code conversationId} null: a new conversation) and
   * {@code Addresses.CONVERSATION_GET}: {@code {user, conversation_id?}}.
   */
  public record ConversationRequest(Object conversationId, User user) {
    public JsonObject toJson() {
      JsonObject j = new JsonObject().put("user", userJson(user));
      if (conversationId != null) j.put("conversation_id", conversationId);
      return j;
    }

    public static ConversationRequest fromJson(JsonObject j) {
      j = body(j);
      return new ConversationRequest(j.getValue("conversation_id"), userOf(j));
    }
  }

  /** {@code Addresses.CONVERSATION_OPEN}'s reply: {@code {conversation_id, new, turns}}, the turns oldest first. */
  public record Opened(String conversationId, boolean isNew, JsonArray turns) {
    public Opened {
      turns = turns == null ? new JsonArray() : turns;
    }

    public JsonObject toJson() {
      return new JsonObject().put("conversation_id", conversationId).put("new", isNew).put("turns", turns);
    }

    public static Opened fromJson(JsonObject j) {
      return new Opened(j.getString("conversation_id"), j.getBoolean("new", false), j.getJsonArray("turns"));
    }
  }

  /**
   * {@code Addresses.CONVERSATION_RECORD}: {@code {conversation_id, answer, user}}. Reading fails with an
   * {@link IllegalArgumentException} when the answer is not an answer.
   */
  public record RecordTurn(String conversationId, Answer answer, User user) {
    public JsonObject toJson() {
      return new JsonObject().put("conversation_id", conversationId).put("answer", answer == null ? null : answer.toJson())
          .put("user", userJson(user));
    }

    public static RecordTurn fromJson(JsonObject j) {
      j = body(j);
      return new RecordTurn(j.getValue("conversation_id") instanceof String s ? s : null,
          j.getValue("answer") instanceof JsonObject a ? Answer.fromJson(a) : null, userOf(j));
    }
  }

  /** {@code Addresses.CONVERSATION_RECORD}'s reply: the run is turn {@code turn} of the conversation. */
  public record Recorded(String conversationId, int turn) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Recorded fromJson(JsonObject j) {
      return RecordJson.fromJson(Recorded.class, j);
    }
  }

  /**
   * {@code Addresses.CONVERSATION_GET}'s reply: the conversation, who started it, its instants (ISO-8601) and
   * its turns oldest first, each with its {@code feedback} ({rating, comment} or null).
   */
  public record Conversation(String conversationId, String user, String startedAt, String lastTurnAt,
      String expiresAt, JsonArray turns) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Conversation fromJson(JsonObject j) {
      return RecordJson.fromJson(Conversation.class, j);
    }
  }

  /** {@code Addresses.RUN_FEEDBACK}: {@code {run_id, rating: up|down, comment?, user}}. */
  public record FeedbackRequest(Object runId, Object rating, Object comment, User user) {
    public JsonObject toJson() {
      return new JsonObject().put("run_id", runId).put("rating", rating).put("comment", comment).put("user", userJson(user));
    }

    public static FeedbackRequest fromJson(JsonObject j) {
      j = body(j);
      return new FeedbackRequest(j.getValue("run_id"), j.getValue("rating"), j.getValue("comment"), userOf(j));
    }
  }

  /** {@code Addresses.RUN_FEEDBACK}'s reply: the feedback as stored, {@code givenAt} an ISO-8601 instant. */
  public record Feedback(String runId, String rating, String comment, String user, String givenAt) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Feedback fromJson(JsonObject j) {
      return RecordJson.fromJson(Feedback.class, j);
    }
  }

  /** {@code Addresses.RUN_TURN}: {@code {run_id, user}}. */
  public record RunTurnRequest(Object runId, User user) {
    public JsonObject toJson() {
      return new JsonObject().put("run_id", runId).put("user", userJson(user));
    }

    public static RunTurnRequest fromJson(JsonObject j) {
      j = body(j);
      return new RunTurnRequest(j.getValue("run_id"), userOf(j));
    }
  }

  /**
   * {@code Addresses.RUN_TURN}'s reply: the run's turn ({@code sql} its final SQL, {@code askedAt} an ISO-8601
   * instant), its conversation, who asked and its rating (null when not rated); the readings it asked back with,
   * and for SQL a person chose the run it came from (and the reading's number).
   */
  public record RunTurn(int turn, String runId, String question, String sql, String outcome, String answer,
      JsonObject summary, Long verifiedId, String askedAt, String conversationId, String user, String rating,
      @OmitWhenNull Clarification clarification, @OmitWhenNull String editedFrom, @OmitWhenNull Integer chosenReading) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static RunTurn fromJson(JsonObject j) {
      return RecordJson.fromJson(RunTurn.class, j);
    }
  }

  // --- the verified library's management ---------------------------------------------------------------

  /** {@code Addresses.VERIFIED_ADD}: {@code {question, sql, from_run_id?, user}}. */
  public record VerifiedAdd(Object question, Object sql, Object fromRunId, User user) {
    public JsonObject toJson() {
      JsonObject j = new JsonObject().put("question", question).put("sql", sql);
      if (fromRunId != null) j.put("from_run_id", fromRunId);
      return j.put("user", userJson(user));
    }

    public static VerifiedAdd fromJson(JsonObject j) {
      j = body(j);
      return new VerifiedAdd(j.getValue("question"), j.getValue("sql"), j.getValue("from_run_id"), userOf(j));
    }
  }

  /** {@code Addresses.VERIFIED_PROMOTE}: {@code {run_id, question?, user}} (the question in full, for a follow-up). */
  public record VerifiedPromote(Object runId, Object question, User user) {
    public JsonObject toJson() {
      return new JsonObject().put("run_id", runId).put("question", question).put("user", userJson(user));
    }

    public static VerifiedPromote fromJson(JsonObject j) {
      j = body(j);
      return new VerifiedPromote(j.getValue("run_id"), j.getValue("question"), userOf(j));
    }
  }

  /** {@code Addresses.VERIFIED_REMOVE} (and {@code VERIFIED_RETIRE}'s id): {@code {verified_id}}, a number or its digits. */
  public record VerifiedRemove(Object verifiedId) {
    public JsonObject toJson() {
      return new JsonObject().put("verified_id", verifiedId);
    }

    public static VerifiedRemove fromJson(JsonObject j) {
      return new VerifiedRemove(body(j).getValue("verified_id"));
    }
  }

  /** {@code Addresses.VERIFIED_REMOVE}'s reply. */
  public record Removed(long verifiedId, boolean removed) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Removed fromJson(JsonObject j) {
      return RecordJson.fromJson(Removed.class, j);
    }
  }

  /** {@code Addresses.VERIFIED_LIST}'s reply: every entry ({@code verified}), how many answer and how many are retired. */
  public record VerifiedList(String target, double threshold, JsonArray verified, long active, long retired) {
    public VerifiedList {
      verified = verified == null ? new JsonArray() : verified;
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static VerifiedList fromJson(JsonObject j) {
      return RecordJson.fromJson(VerifiedList.class, j);
    }
  }

  /**
   * {@code Addresses.VERIFIED_RECHECK}'s reply: how many were checked, the entries retired and restored by this
   * pass, and how many are retired and active now.
   */
  public record Rechecked(int checked, JsonArray newlyRetired, JsonArray restored, long retired, long active,
      long elapsedMs) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Rechecked fromJson(JsonObject j) {
      return RecordJson.fromJson(Rechecked.class, j);
    }
  }

  // --- the query log ---------------------------------------------------------------------------------

  /** {@code Addresses.QUERY_LOG_FLUSH}: {@code {timeout_ms}} (null: the writer's default). */
  public record Flush(Long timeoutMs) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Flush fromJson(JsonObject j) {
      JsonObject b = body(j);
      return new Flush(b.getValue("timeout_ms") instanceof Number n ? n.longValue() : null);
    }
  }

  /** {@code Addresses.QUERY_LOG_KEEP}: {@code {answer, answered_at}} ({@code answeredAt} epoch ms, null: now). */
  public record Keep(JsonObject answer, Long answeredAt) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Keep fromJson(JsonObject j) {
      JsonObject b = body(j);
      return new Keep(b.getValue("answer") instanceof JsonObject a ? a : null,
          b.getValue("answered_at") instanceof Number n ? n.longValue() : null);
    }
  }

  /** {@code Addresses.QUERY_LOG_KEEP}'s reply: {@code {run_id, kept: true}}, or {@code {kept: false}} (not logged). */
  public record Kept(@OmitWhenNull String runId, boolean kept) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Kept fromJson(JsonObject j) {
      return RecordJson.fromJson(Kept.class, j);
    }
  }

  /**
   * {@code Addresses.QUERY_LOG_STATUS}'s reply (and {@code QUERY_LOG_FLUSH}'s): the writer's state, its totals
   * since start and its last error; instants ISO-8601 or null.
   */
  public record LogStatus(boolean running, int buffered, int capacity, long written, long dropped, long failedWrites,
      boolean retrying, long backoffMs, String lastError, String lastErrorAt, String lastWrittenAt) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static LogStatus fromJson(JsonObject j) {
      return RecordJson.fromJson(LogStatus.class, j);
    }
  }

  /** Published on {@code Addresses.QUERY_LOG_FACTS} after every change of the query log's totals. */
  public record LogFacts(long written, long dropped, long buffered) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static LogFacts fromJson(JsonObject j) {
      return RecordJson.fromJson(LogFacts.class, j);
    }
  }
}
