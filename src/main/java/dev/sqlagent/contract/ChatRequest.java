package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A request to {@code Addresses.GENERATE}: {"run_id", "messages": [{"role", "content"}], "stream"}, for
 * several candidates {"temperature", "n"} (temperature null: 0, the deterministic default; n: choices asked of
 * the API in one call, which a server may answer with fewer), and {"format": "sql"} when the reply must be the SQL
 * reply object (the model client then constrains it where the server can; null: free text).
 */
public record ChatRequest(String runId, List<Message> messages, boolean stream, Double temperature, int n, String format) {

  /** Most choices one request may ask for. */
  public static final int MAX_N = 16;

  /** The reply is the SQL reply object {"sql", "explanation"[, "readings"]}. */
  public static final String FORMAT_SQL = "sql";

  public ChatRequest(String runId, List<Message> messages, boolean stream) {
    this(runId, messages, stream, null, 1, null);
  }

  public ChatRequest(String runId, List<Message> messages, boolean stream, Double temperature, int n) {
    this(runId, messages, stream, temperature, n, null);
  }

  public record Message(String role, String content) {
    public static Message system(String content) {
      return new Message("system", content);
    }

    public static Message user(String content) {
      return new Message("user", content);
    }

    public static Message assistant(String content) {
      return new Message("assistant", content);
    }

    public JsonObject toJson() {
      return new JsonObject().put("role", role).put("content", content);
    }
  }

  private static final Set<String> ROLES = Set.of("system", "user", "assistant");
  private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,100}");

  public ChatRequest {
    messages = List.copyOf(messages);
    if (format != null && !format.equals(FORMAT_SQL)) throw new IllegalArgumentException("format must be \"sql\" or absent");
  }

  /** The same request, its reply to be the SQL reply object. */
  public ChatRequest asSql() {
    return new ChatRequest(runId, messages, stream, temperature, n, FORMAT_SQL);
  }

  public static ChatRequest of(String runId, boolean stream, Message... messages) {
    return new ChatRequest(runId, List.of(messages), stream);
  }

  /** Reads and checks a request; IllegalArgumentException says what is wrong. */
  public static ChatRequest fromJson(JsonObject json) {
    if (json == null) throw new IllegalArgumentException("the request body must be a JSON object");
    Object runId = json.getValue("run_id");
    if (runId != null && !(runId instanceof String s && RUN_ID.matcher(s).matches())) {
      throw new IllegalArgumentException("run_id must be 1-100 characters of letters, digits, '_', '.', ':' or '-'");
    }
    Object stream = json.getValue("stream", false);
    if (!(stream instanceof Boolean)) throw new IllegalArgumentException("stream must be true or false");
    if ((Boolean) stream && runId == null) throw new IllegalArgumentException("a streaming request needs a run_id");
    if (!(json.getValue("messages") instanceof JsonArray array) || array.isEmpty()) {
      throw new IllegalArgumentException("messages must be a non-empty array of {role, content}");
    }
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject m)
          || !(m.getValue("role") instanceof String role) || !ROLES.contains(role)
          || !(m.getValue("content") instanceof String content)) {
        throw new IllegalArgumentException("messages[" + i + "] must be {\"role\": system|user|assistant, \"content\": string}");
      }
      messages.add(new Message(role, content));
    }
    Object temperature = json.getValue("temperature");
    if (temperature != null && !(temperature instanceof Number t && t.doubleValue() >= 0 && t.doubleValue() <= 2)) {
      throw new IllegalArgumentException("temperature must be a number from 0 to 2");
    }
    Object n = json.getValue("n", 1);
    if (!((n instanceof Integer || n instanceof Long) && ((Number) n).intValue() >= 1 && ((Number) n).intValue() <= MAX_N)) {
      throw new IllegalArgumentException("n must be a whole number from 1 to " + MAX_N);
    }
    Object format = json.getValue("format");
    if (format != null && !FORMAT_SQL.equals(format)) throw new IllegalArgumentException("format must be \"sql\" or absent");
    return new ChatRequest((String) runId, messages, (Boolean) stream,
        temperature == null ? null : ((Number) temperature).doubleValue(), ((Number) n).intValue(), (String) format);
  }

  public JsonObject toJson() {
    JsonArray m = new JsonArray();
    messages.forEach(x -> m.add(x.toJson()));
    JsonObject j = new JsonObject().put("run_id", runId).put("messages", m).put("stream", stream);
    if (temperature != null) j.put("temperature", temperature);
    if (format != null) j.put("format", format);
    return n == 1 ? j : j.put("n", n);
  }

  /** Characters of all messages, for the token estimate when the server reports no usage. */
  public int promptChars() {
    return messages.stream().mapToInt(x -> x.content().length()).sum();
  }
}
