package dev.sqlagent.generation;

import dev.sqlagent.contract.ModelException.Type;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/** How to read what an OpenAI-compatible server sent back, and what to do when one attempt failed. */
final class Upstream {
  private Upstream() {}

  /** What the client does after a failed attempt. */
  enum Next { RETRY, NEXT_KEY, GIVE_UP }

  /** One attempt's failure: the type it becomes if it is the last, and what to do next. */
  static final class AttemptFailure extends RuntimeException {
    final Next next;
    final Type type;
    /** How long the server asked us to wait (Retry-After), or -1. */
    final long retryAfterMs;

    AttemptFailure(Next next, Type type, String message, long retryAfterMs) {
      super(message, null, false, false);
      this.next = next;
      this.type = type;
      this.retryAfterMs = retryAfterMs;
    }

    AttemptFailure(Next next, Type type, String message) {
      this(next, type, message, -1);
    }
  }

  // OpenAI says "insufficient_quota"; others say "... per day", "daily", "RPD/TPD", "PerDay" in a quota id.
  private static final Pattern DAILY = Pattern.compile("(?i)per[\\s_-]?day|daily|\\b(?:RPD|TPD)\\b");

  /** A non-2xx answer. */
  static AttemptFailure forStatus(int status, String retryAfterMsHeader, String retryAfterHeader, String body,
      boolean keyConfigured, long nowMs) {
    String said = serverMessage(body);
    String detail = said.isEmpty() ? "" : ": " + said;
    if (status == 429) {
      if (isDailyQuota(body)) {
        return new AttemptFailure(Next.NEXT_KEY, Type.MODEL_QUOTA, "the API key's daily quota is used up (HTTP 429)" + detail);
      }
      return new AttemptFailure(Next.RETRY, Type.MODEL_QUOTA, "rate limited by the model server (HTTP 429)" + detail,
          retryAfterMs(retryAfterMsHeader, retryAfterHeader, nowMs));
    }
    if (status >= 500) {
      return new AttemptFailure(Next.RETRY, Type.MODEL_UNAVAILABLE, "the model server failed (HTTP " + status + ")" + detail,
          retryAfterMs(retryAfterMsHeader, retryAfterHeader, nowMs));
    }
    if (status == 401 || status == 403) {
      String why = keyConfigured ? "the model server refused the API key" : "the model server wants an API key and none is configured (SQLAGENT_LLM_API_KEY)";
      return new AttemptFailure(Next.GIVE_UP, Type.MODEL_UNAVAILABLE, why + " (HTTP " + status + ")" + detail);
    }
    if (status == 404) {
      return new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model server answered HTTP 404" + detail
          + " (check that SQLAGENT_LLM_BASE_URL ends in /v1 and SQLAGENT_LLM_MODEL names a model it serves)");
    }
    return new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model server rejected the request (HTTP " + status + ")" + detail);
  }

  /** The request never got a whole answer: refused connection, broken connection, TLS, idle timeout. */
  static AttemptFailure forTransport(Throwable t, String baseUrl) {
    if (t instanceof AttemptFailure af) return af;
    String what = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    if (t instanceof TimeoutException) {
      return new AttemptFailure(Next.GIVE_UP, Type.MODEL_TIMEOUT, "the model server sent nothing before the call's deadline");
    }
    if (t instanceof SSLException) {
      return new AttemptFailure(Next.GIVE_UP, Type.MODEL_UNAVAILABLE, "TLS with the model server at " + baseUrl + " failed: " + what);
    }
    if (t instanceof ConnectException || t instanceof UnknownHostException) {
      return new AttemptFailure(Next.RETRY, Type.MODEL_UNAVAILABLE, "cannot reach the model server at " + baseUrl + ": " + what);
    }
    return new AttemptFailure(Next.RETRY, Type.MODEL_UNAVAILABLE, "the connection to the model server at " + baseUrl + " broke: " + what);
  }

  static boolean isDailyQuota(String body) {
    JsonObject err = errorObject(body);
    if (err != null) {
      if ("insufficient_quota".equalsIgnoreCase(String.valueOf(err.getValue("code")))
          || "insufficient_quota".equalsIgnoreCase(String.valueOf(err.getValue("type")))) {
        return true;
      }
      // Google-style details carry the quota id ("GenerateRequestsPerDayPerProjectPerModel").
      if (DAILY.matcher(err.encode()).find()) return true;
    }
    return body != null && DAILY.matcher(body).find();
  }

  /**
   * The wait the server asked for, in ms: OpenAI's retry-after-ms, else Retry-After as seconds or an
   * HTTP date; -1 when absent or unreadable.
   */
  static long retryAfterMs(String retryAfterMsHeader, String retryAfterHeader, long nowMs) {
    if (retryAfterMsHeader != null) {
      try {
        return Math.max(0, Math.round(Double.parseDouble(retryAfterMsHeader.trim())));
      } catch (NumberFormatException ignored) {
        // fall through to Retry-After
      }
    }
    if (retryAfterHeader == null || retryAfterHeader.isBlank()) return -1;
    String v = retryAfterHeader.trim();
    try {
      return Math.max(0, Math.round(Double.parseDouble(v) * 1000));
    } catch (NumberFormatException notSeconds) {
      try {
        return Math.max(0, ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli() - nowMs);
      } catch (RuntimeException notDate) {
        return -1;
      }
    }
  }

  /** What the server said went wrong: error.message, an error string, or the start of the body. */
  static String serverMessage(String body) {
    if (body == null || body.isBlank()) return "";
    JsonObject err = errorObject(body);
    if (err != null) {
      Object m = err.getValue("message");
      if (m != null) return clip(String.valueOf(m), 300);
    }
    try {
      JsonObject o = new JsonObject(body);
      if (o.getValue("error") instanceof String s) return clip(s, 300);
      if (o.getValue("message") instanceof String s) return clip(s, 300);
      if (o.getValue("detail") instanceof String s) return clip(s, 300);
    } catch (RuntimeException notAnObject) {
      // not JSON: show the text itself
    }
    return clip(body, 300);
  }

  /** {"error": {...}} or [{"error": {...}}] (Google); null otherwise. */
  private static JsonObject errorObject(String body) {
    if (body == null) return null;
    String b = body.strip();
    try {
      if (b.startsWith("[")) {
        JsonArray a = new JsonArray(b);
        return a.isEmpty() || !(a.getValue(0) instanceof JsonObject first) ? null : first.getJsonObject("error");
      }
      if (b.startsWith("{")) {
        return new JsonObject(b).getValue("error") instanceof JsonObject e ? e : null;
      }
    } catch (RuntimeException notJson) {
      return null;
    }
    return null;
  }

  static String clip(String s, int max) {
    String one = s.strip().replaceAll("\\s+", " ");
    return one.length() <= max ? one : one.substring(0, max) + "…";
  }
}
