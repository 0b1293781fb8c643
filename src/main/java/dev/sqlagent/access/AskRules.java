package dev.sqlagent.access;

import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * What a question request may hold, checked the same way wherever it comes in (HTTP, /ws, the bridge, MCP,
 * the agent itself), with the same refusal: the question, the mode and a client-chosen run id.
 */
public final class AskRules {
  private AskRules() {}

  /** Longest question accepted; longer is refused with a clear message rather than sent to the model. */
  public static final int MAX_QUESTION_CHARS = 2_000;
  /** A run id as clients may choose it and as run addresses carry it. */
  public static final String RUN_ID_REGEX = "[A-Za-z0-9-]{8,64}";
  private static final Pattern RUN_ID = Pattern.compile(RUN_ID_REGEX);

  /** A refusal as every edge reports it: {@code {ok:false, error_type, message, ...}}. */
  public record Refusal(String errorType, String message, JsonObject details) {
    public JsonObject toJson() {
      return new JsonObject().put("ok", false).put("error_type", errorType).put("message", message).mergeIn(details);
    }
  }

  /** The request's question and mode, or null when both are fine (an absent mode means "agent"). */
  public static Refusal ask(JsonObject request) {
    Refusal q = question(request.getValue("question"));
    return q != null ? q : mode(request.getValue("mode"));
  }

  public static Refusal question(Object question) {
    if (!(question instanceof String s) || s.isBlank()) return bad("question must be a non-empty string");
    if (s.length() > MAX_QUESTION_CHARS) {
      return new Refusal("question_too_long", "the question is " + s.length() + " characters long; the limit is "
          + MAX_QUESTION_CHARS + ". Ask something shorter (one question at a time) and try again.",
          new JsonObject().put("length", s.length()).put("limit", MAX_QUESTION_CHARS));
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

  private static Refusal bad(String message) {
    return new Refusal("bad_request", message, new JsonObject());
  }
}
