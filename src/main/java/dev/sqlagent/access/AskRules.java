package dev.sqlagent.access;

import dev.sqlagent.bus.BusFailure;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * What a question request may hold, checked the same way wherever it comes in (HTTP, /ws, the bridge, MCP,
 * the agent itself, the cluster's dispatcher), with the same refusal: the question, the mode, a client-chosen
 * run id and the conversation a follow-up continues. The conversation store and the verified queries apply
 * the same rules to the ids and questions they are given.
 */
public final class AskRules {
  private AskRules() {}

  /** Longest question accepted; longer is refused with a clear message rather than sent to the model. */
  public static final int MAX_QUESTION_CHARS = 2_000;
  /** An ask's body: room for a question at its limit even with every character JSON-escaped (12 bytes for an emoji). */
  public static final int MAX_ASK_BODY_BYTES = 32 * 1024;
  /** A run id as clients may choose it and as run addresses carry it. */
  public static final String RUN_ID_REGEX = "[A-Za-z0-9-]{8,64}";
  private static final Pattern RUN_ID = Pattern.compile(RUN_ID_REGEX);

  /** A refusal as every edge reports it: {@code {ok:false, error_type, message, ...}}. */
  public record Refusal(String errorType, String message, JsonObject details) {
    public JsonObject toJson() {
      return new JsonObject().put("ok", false).put("error_type", errorType).put("message", message).mergeIn(details);
    }
  }

  /**
   * The request's question, mode and conversation, or null when all are fine (an absent mode means "agent",
   * an absent conversation a new one).
   */
  public static Refusal ask(JsonObject request) {
    Refusal q = question(request.getValue("question"));
    if (q == null) q = mode(request.getValue("mode"));
    Object conversation = request.getValue("conversation_id");
    return q != null || conversation == null ? q : conversationId(conversation);
  }

  public static Refusal question(Object question) {
    if (!(question instanceof String s) || s.isBlank()) return bad("question must be a non-empty string");
    Refusal nul = noNul("the question", s);
    if (nul != null) return nul;
    // Characters as a person (and JSON Schema's maxLength) counts them: an emoji is one, not two UTF-16 units.
    int chars = s.codePointCount(0, s.length());
    if (chars > MAX_QUESTION_CHARS) {
      return new Refusal("question_too_long", "the question is " + chars + " characters long; the limit is "
          + MAX_QUESTION_CHARS + ". Ask something shorter (one question at a time) and try again.",
          new JsonObject().put("length", chars).put("limit", MAX_QUESTION_CHARS));
    }
    return null;
  }

  public static Refusal mode(Object mode) {
    return mode == null || "agent".equals(mode) || "baseline".equals(mode) ? null
        : bad("mode must be \"agent\" or \"baseline\"");
  }

  /** A run id a client names (to replay a run, or to choose its own); null is refused too. */
  public static Refusal runId(Object runId) {
    return runId instanceof String r && RUN_ID.matcher(r).matches() ? null
        : bad("run_id must be 8 to 64 letters, digits or dashes");
  }

  /**
   * The run id a bus request names ({@code "run_id"}), or null once the request is failed as a bad request with
   * the refusal's message: the same answer from every verticle that takes one.
   */
  public static String runIdOf(Message<?> msg, Object runId) {
    return accepted(msg, runId, runId(runId));
  }

  /** {@code id} when {@code refused} is null; otherwise the bus request is failed as a bad request, and null. */
  public static String accepted(Message<?> msg, Object id, Refusal refused) {
    if (refused == null) return (String) id;
    msg.fail(BusFailure.BAD_REQUEST.code(), refused.message());
    return null;
  }

  /** A conversation id a client names to continue it (ids have the run ids' shape); null is refused too. */
  public static Refusal conversationId(Object conversationId) {
    return conversationId instanceof String c && RUN_ID.matcher(c).matches() ? null
        : bad("conversation_id must be 8 to 64 letters, digits or dashes (the id an earlier answer returned)");
  }

  /** Longest SQL a person may send to be run as an answer's edit. */
  public static final int MAX_SQL_CHARS = 64 * 1024;

  /** The SQL of an edited answer: a non-empty string, not too long (the gate judges the rest). */
  public static Refusal editedSql(Object sql) {
    if (!(sql instanceof String s) || s.isBlank()) {
      return bad("sql must be a non-empty string: the SELECT to run, e.g. {\"sql\": \"SELECT ...\"}");
    }
    Refusal nul = noNul("the SQL", s);
    if (nul != null) return nul;
    if (s.length() > MAX_SQL_CHARS) {
      return new Refusal("sql_too_long", "the SQL is " + s.length() + " characters long; the limit is " + MAX_SQL_CHARS,
          new JsonObject().put("length", s.length()).put("limit", MAX_SQL_CHARS));
    }
    return null;
  }

  /** The number of a reading to choose: a whole number from 1 (the run's readings bound it). */
  public static Refusal reading(Object reading) {
    return reading instanceof Integer || reading instanceof Long ? ((Number) reading).longValue() >= 1 ? null
        : bad("reading must be 1 or more: the number of one of the readings the answer offered")
        : bad("reading must be a whole number: the number of one of the readings the answer offered, e.g. {\"reading\": 2}");
  }

  /**
   * Text a person typed that would be stored (a question, SQL, a comment) is refused when it holds a NUL character:
   * PostgreSQL cannot store one, and removing it silently would store something else than was sent.
   */
  public static Refusal noNul(String what, String text) {
    return text == null || text.indexOf('\u0000') < 0 ? null
        : bad(what + " contains a NUL character (\\u0000), which cannot be stored; remove it and send it again");
  }

  private static Refusal bad(String message) {
    return new Refusal("bad_request", message, new JsonObject());
  }
}
