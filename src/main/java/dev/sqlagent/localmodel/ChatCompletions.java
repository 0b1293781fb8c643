package dev.sqlagent.localmodel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import de.kherud.llama.LlamaIterator;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** {@code POST /v1/chat/completions}, streaming (server-sent events) and not, one generation at a time. */
final class ChatCompletions implements HttpHandler {
  private static final int DEFAULT_MAX_TOKENS = 512;
  private final ModelState state;

  ChatCompletions(ModelState state) {
    this.state = state;
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try (ex) {
      if (!"POST".equals(ex.getRequestMethod())) {
        LocalModelServer.json(ex, 405, OpenAiErrors.body("use POST", "invalid_request_error", null));
        return;
      }
      LlamaModel model = state.model();
      if (model == null) {
        LocalModelServer.json(ex, 503, OpenAiErrors.body("the model is still loading", "server_error", "loading"));
        return;
      }
      ChatRequest req;
      String prompt;
      int promptTokens;
      try {
        req = ChatRequest.parse(new JsonObject(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
        prompt = model.applyTemplate(new JsonObject().put("messages", req.messages()).encode());
        promptTokens = model.encode(prompt).length;
      } catch (DecodeException e) {
        LocalModelServer.json(ex, 400, OpenAiErrors.body("the body is not JSON: " + e.getMessage(), "invalid_request_error", null));
        return;
      } catch (IllegalArgumentException e) {
        LocalModelServer.json(ex, 400, OpenAiErrors.body(e.getMessage(), "invalid_request_error", null));
        return;
      }
      if (promptTokens >= state.ctx()) {
        LocalModelServer.json(ex, 400, OpenAiErrors.body("the prompt is " + promptTokens + " tokens; this model's context holds "
            + state.ctx(), "invalid_request_error", "context_length_exceeded"));
        return;
      }
      int maxTokens = Math.min(req.maxTokens() > 0 ? req.maxTokens() : DEFAULT_MAX_TOKENS, state.ctx() - promptTokens);
      try {
        state.slot.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      try {
        if (req.stream()) stream(ex, model, req, prompt, promptTokens, maxTokens);
        else whole(ex, model, req, prompt, promptTokens, maxTokens);
      } finally {
        state.slot.release();
      }
    }
  }

  private void whole(HttpExchange ex, LlamaModel model, ChatRequest req, String prompt, int promptTokens, int maxTokens)
      throws IOException {
    JsonArray choices = new JsonArray();
    int completionTokens = 0;
    Timing timing = null;
    try {
      for (int i = 0; i < req.n(); i++) {
        Timing t = new Timing();
        StringBuilder text = new StringBuilder();
        LlamaIterator it = model.generate(req.parameters(prompt, maxTokens, i)).iterator();
        while (it.hasNext()) {
          LlamaOutput o = it.next();
          if (!o.text.isEmpty()) t.token();
          text.append(o.text);
        }
        int tokens = text.isEmpty() ? 0 : model.encode(text.toString()).length;
        completionTokens += tokens;
        if (timing == null) timing = t.done(promptTokens, tokens);
        choices.add(new JsonObject().put("index", i).put("finish_reason", tokens >= maxTokens ? "length" : "stop")
            .put("message", new JsonObject().put("role", "assistant").put("content", text.toString())));
      }
    } catch (RuntimeException e) {
      LocalModelServer.json(ex, 500, OpenAiErrors.body("generation failed: " + e.getMessage(), "server_error", null));
      return;
    }
    LocalModelServer.json(ex, 200, new JsonObject().put("id", "chatcmpl-" + UUID.randomUUID()).put("object", "chat.completion")
        .put("created", System.currentTimeMillis() / 1000).put("model", state.alias()).put("choices", choices)
        .put("usage", usage(promptTokens, completionTokens)).put("timings", timing == null ? null : timing.json()));
  }

  private void stream(HttpExchange ex, LlamaModel model, ChatRequest req, String prompt, int promptTokens, int maxTokens)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream");
    ex.getResponseHeaders().set("Cache-Control", "no-cache");
    ex.sendResponseHeaders(200, 0);
    String id = "chatcmpl-" + UUID.randomUUID();
    long created = System.currentTimeMillis() / 1000;
    OutputStream os = ex.getResponseBody();
    send(os, chunk(id, created, new JsonObject().put("role", "assistant").put("content", ""), null));
    Timing t = new Timing();
    StringBuilder text = new StringBuilder();
    LlamaIterator it = model.generate(req.parameters(prompt, maxTokens, 0)).iterator();
    try {
      while (it.hasNext()) {
        LlamaOutput o = it.next();
        if (o.text.isEmpty()) continue;
        t.token();
        text.append(o.text);
        send(os, chunk(id, created, new JsonObject().put("content", o.text), null));
      }
    } catch (IOException gone) {
      it.cancel(); // the client left: free the slot for the next request
      return;
    } catch (RuntimeException e) {
      send(os, OpenAiErrors.body("generation failed: " + e.getMessage(), "server_error", null));
      return;
    }
    int tokens = text.isEmpty() ? 0 : model.encode(text.toString()).length;
    JsonObject last = chunk(id, created, new JsonObject(), tokens >= maxTokens ? "length" : "stop");
    last.put("usage", usage(promptTokens, tokens)).put("timings", t.done(promptTokens, tokens).json());
    send(os, last);
    os.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    os.flush();
  }

  private JsonObject chunk(String id, long created, JsonObject delta, String finish) {
    return new JsonObject().put("id", id).put("object", "chat.completion.chunk").put("created", created)
        .put("model", state.alias()).put("choices", new JsonArray().add(new JsonObject().put("index", 0)
            .put("delta", delta).put("finish_reason", finish)));
  }

  private static void send(OutputStream os, JsonObject event) throws IOException {
    os.write(("data: " + event.encode() + "\n\n").getBytes(StandardCharsets.UTF_8));
    os.flush();
  }

  private static JsonObject usage(int prompt, int completion) {
    return new JsonObject().put("prompt_tokens", prompt).put("completion_tokens", completion)
        .put("total_tokens", prompt + completion);
  }

  /** Time to the first token (reading the prompt, less what the prompt cache spared) and the tokens after it. */
  private static final class Timing {
    private final long start = System.nanoTime();
    private long first;
    private long end;
    private int promptTokens;
    private int tokens;

    void token() {
      if (first == 0) first = System.nanoTime();
    }

    Timing done(int promptTokens, int tokens) {
      end = System.nanoTime();
      if (first == 0) first = end;
      this.promptTokens = promptTokens;
      this.tokens = tokens;
      return this;
    }

    JsonObject json() {
      double promptMs = (first - start) / 1e6;
      double genMs = (end - first) / 1e6;
      return new JsonObject().put("prompt_n", promptTokens).put("prompt_ms", Math.round(promptMs))
          .put("predicted_n", tokens).put("predicted_ms", Math.round(genMs))
          .put("predicted_per_second", genMs > 0 && tokens > 1 ? Math.round((tokens - 1) * 10000.0 / genMs) / 10.0 : null);
    }
  }
}
