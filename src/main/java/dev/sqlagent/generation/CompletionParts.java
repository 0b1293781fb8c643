package dev.sqlagent.generation;

import dev.sqlagent.contract.ModelException.Type;
import dev.sqlagent.generation.Upstream.AttemptFailure;
import dev.sqlagent.generation.Upstream.Next;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.function.Consumer;

/**
 * The pieces of one chat completion as they arrive: from a whole JSON body, or chunk by chunk from an
 * event stream (deltas of choices[0].delta.content, the finish reason, the usage of the last chunk).
 */
final class CompletionParts {

  private final StringBuilder content = new StringBuilder();
  private final java.util.List<String> alternatives = new java.util.ArrayList<>();
  private String model;
  private Integer promptTokens;
  private Integer completionTokens;
  private String finishReason;
  private boolean done;
  private int chunks;

  /** One SSE data payload of a streamed completion; text deltas go to {@code onText}. */
  void onStreamData(String data, Consumer<String> onText) {
    if (data == null || data.isBlank()) return;
    if (data.strip().equals("[DONE]")) {
      done = true;
      return;
    }
    JsonObject chunk;
    try {
      chunk = new JsonObject(data);
    } catch (RuntimeException e) {
      throw new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model's event stream holds a chunk that is not JSON: " + Upstream.clip(data, 200));
    }
    if (chunk.getValue("error") != null) {
      throw new AttemptFailure(Next.RETRY, Type.MODEL_UNAVAILABLE, "the model server reported an error mid-stream: "
          + Upstream.serverMessage(chunk.encode()));
    }
    chunks++;
    readCommon(chunk);
    JsonObject choice = firstChoice(chunk);
    if (choice == null) return;
    JsonObject delta = choice.getValue("delta") instanceof JsonObject d ? d : null;
    if (delta != null && delta.getValue("content") instanceof String text && !text.isEmpty()) {
      content.append(text);
      onText.accept(text);
    }
    if (choice.getValue("finish_reason") instanceof String f) finishReason = f;
  }

  /** A whole event stream read after the fact (a server that streamed without being asked). */
  static CompletionParts fromEventStream(String text) {
    CompletionParts p = new CompletionParts();
    SseParser parser = new SseParser(data -> p.onStreamData(data, t -> {}));
    parser.feed(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    parser.finish();
    p.checkStreamComplete(text);
    return p;
  }

  /** A whole (non-streamed) completion body. */
  static CompletionParts fromBody(String body) {
    JsonObject json;
    try {
      json = new JsonObject(body);
    } catch (RuntimeException e) {
      throw garbage(body);
    }
    if (json.getValue("error") != null) {
      throw new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model server answered with an error: " + Upstream.serverMessage(body));
    }
    CompletionParts p = new CompletionParts();
    p.readCommon(json);
    JsonObject choice = firstChoice(json);
    if (choice == null) throw garbage(body);
    JsonObject message = choice.getValue("message") instanceof JsonObject m ? m : null;
    if (message == null) throw garbage(body);
    if (choice.getValue("finish_reason") instanceof String f) p.finishReason = f;
    if (!(message.getValue("content") instanceof String text)) {
      throw new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model's reply has no text content (finish_reason "
          + p.finishReason + ")");
    }
    p.content.append(text);
    // Further choices (a request with n > 1): their text only; a choice without text is left out.
    JsonArray choices = json.getJsonArray("choices");
    for (int i = 1; i < choices.size(); i++) {
      if (choices.getValue(i) instanceof JsonObject c && c.getValue("message") instanceof JsonObject m
          && m.getValue("content") instanceof String more) {
        p.alternatives.add(more);
      }
    }
    p.done = true;
    return p;
  }

  /** A stream that ended: complete only with [DONE] or a finish reason; otherwise it was cut off. */
  void checkStreamComplete(String rawStart) {
    if (done || finishReason != null) return;
    if (chunks == 0) throw garbage(rawStart);
    throw new AttemptFailure(Next.RETRY, Type.MODEL_ERROR, "the model's event stream ended before the model finished (after "
        + content.length() + " characters)");
  }

  private void readCommon(JsonObject o) {
    if (o.getValue("model") instanceof String m && !m.isBlank()) model = m;
    if (o.getValue("usage") instanceof JsonObject u) {
      if (u.getValue("prompt_tokens") instanceof Number n) promptTokens = n.intValue();
      if (u.getValue("completion_tokens") instanceof Number n) completionTokens = n.intValue();
    }
  }

  private static JsonObject firstChoice(JsonObject o) {
    if (!(o.getValue("choices") instanceof JsonArray choices) || choices.isEmpty()) return null;
    return choices.getValue(0) instanceof JsonObject c ? c : null;
  }

  static AttemptFailure garbage(String body) {
    String shown = body == null || body.isBlank() ? "an empty body" : "\"" + Upstream.clip(body, 200) + "\"";
    return new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model server's reply is not a chat completion: " + shown);
  }

  String content() {
    return content.toString();
  }

  /** The text of choices after the first (a request for several), in the server's order. */
  java.util.List<String> alternatives() {
    return java.util.List.copyOf(alternatives);
  }

  String model() {
    return model;
  }

  Integer promptTokens() {
    return promptTokens;
  }

  Integer completionTokens() {
    return completionTokens;
  }

  String finishReason() {
    return finishReason;
  }
}
