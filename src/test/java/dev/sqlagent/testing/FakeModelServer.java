package dev.sqlagent.testing;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A local model for tests: a real HTTP server on a random port that speaks the OpenAI chat-completions
 * API ({@code POST /v1/chat/completions}, plain JSON or SSE when the request says {@code "stream": true};
 * {@code GET /v1/models}). What it answers is scripted: a queue of {@link Reply}s, used first, then a
 * responder function of the request body (an oracle that looks at the question). Every request is recorded
 * (body and headers) for assertions.
 *
 * <pre>{@code
 * try (FakeModelServer model = FakeModelServer.start()) {          // blocking; or deploy(vertx) in vertx-junit5
 *   model.enqueue(Reply.serverError(), Reply.sql("SELECT count(*) FROM customers").streamedIn(5));
 *   model.respondWith(req -> FakeModelServer.lastUserMessage(req).contains("bills")
 *       ? Reply.sql("SELECT count(*) FROM bills") : Reply.refusal("no such data"));
 *   AppConfig config = TestDatabase.get().config(model.env("key-1", "key-2"));
 *   ...
 *   assertThat(model.requests().get(1).bearerKey()).isEqualTo("key-1");
 * }
 * }</pre>
 */
public final class FakeModelServer implements AutoCloseable {

  /** The model name {@link #env} configures and replies report. */
  public static final String MODEL = "fake-model";

  private final Vertx vertx;
  private final boolean ownsVertx;
  private final Deque<Reply> script = new ConcurrentLinkedDeque<>();
  private final List<Recorded> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger counter = new AtomicInteger();
  private final AtomicInteger abandoned = new AtomicInteger();
  private volatile Function<JsonObject, Reply> responder;
  private volatile Set<String> acceptedKeys;
  private volatile boolean honourN;
  private volatile JsonObject modelMeta;
  private HttpServer server;

  private FakeModelServer(Vertx vertx, boolean ownsVertx) {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
  }

  // ---- start and stop ----

  /** Starts on a Vert.x of its own (closed by {@link #close()}). Blocks; call it from a test thread. */
  public static FakeModelServer start() {
    Vertx own = Vertx.vertx();
    try {
      return new FakeModelServer(own, true).listen().await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      own.close();
      throw new IllegalStateException("FakeModelServer did not start: " + e.getMessage(), e);
    }
  }

  /** Starts on the given Vert.x. Blocks; call it from a test thread, never from an event loop. */
  public static FakeModelServer start(Vertx vertx) {
    try {
      return deploy(vertx).await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("FakeModelServer did not start: " + e.getMessage(), e);
    }
  }

  /** Starts on the given Vert.x without blocking (for vertx-junit5 {@code @BeforeEach(Vertx, VertxTestContext)}). */
  public static Future<FakeModelServer> deploy(Vertx vertx) {
    return new FakeModelServer(vertx, false).listen();
  }

  private Future<FakeModelServer> listen() {
    return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .requestHandler(this::handle)
        .listen()
        .map(s -> {
          server = s;
          return this;
        });
  }

  /** Stops the server; open streams and hung requests are cut. (A Vert.x given to it stays up.) */
  public Future<Void> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  /** Blocking: stops the server, and closes its own Vert.x if {@link #start()} made one. */
  @Override
  public void close() {
    try {
      stop().await(20, TimeUnit.SECONDS);
      if (ownsVertx) vertx.close().await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("FakeModelServer did not stop: " + e, e);
    }
  }

  // ---- where it is ----

  public int port() {
    return server.actualPort();
  }

  /** The API base, ".../v1", as SQLAGENT_LLM_BASE_URL wants it. */
  public String baseUrl() {
    return "http://127.0.0.1:" + port() + "/v1";
  }

  /** Environment overrides pointing the service at this server, e.g. {@code TestDatabase.get().config(model.env())}. */
  public Map<String, String> env(String... apiKeys) {
    Map<String, String> env = new HashMap<>();
    env.put("SQLAGENT_LLM_BASE_URL", baseUrl());
    env.put("SQLAGENT_LLM_MODEL", MODEL);
    if (apiKeys.length > 0) env.put("SQLAGENT_LLM_API_KEY", String.join(",", apiKeys));
    return env;
  }

  /** A generation config as built by {@link #generationConfig}, possibly changed by a test, as client options. */
  public static dev.sqlagent.generation.ChatClientOptions options(JsonObject c) {
    List<String> keys = c.getJsonArray("llmApiKeys", new JsonArray()).stream().map(String::valueOf).toList();
    return new dev.sqlagent.generation.ChatClientOptions(c.getString("llmBaseUrl"), c.getString("llmModel"), keys,
        c.getLong("llmCallTimeoutMs"), c.getDouble("promptPricePerMTok", 0.0), c.getDouble("completionPricePerMTok", 0.0),
        c.getInteger("llmMaxAttempts", dev.sqlagent.generation.ChatClientOptions.DEFAULT_MAX_ATTEMPTS),
        c.getLong("llmBackoffBaseMs"), c.getLong("llmBackoffMaxMs"),
        c.getInteger("llmMaxConnections", dev.sqlagent.generation.ChatClientOptions.DEFAULT_MAX_CONNECTIONS));
  }

  /**
   * Settings for a GenerationVerticle on its own, as JSON a test may change before {@link #options}: this
   * server, a 10 s call deadline and fast retries (10 ms backoff), so tests do not wait.
   */
  public JsonObject generationConfig(String... apiKeys) {
    return new JsonObject()
        .put("llmBaseUrl", baseUrl())
        .put("llmModel", MODEL)
        .put("llmApiKeys", new JsonArray(Arrays.asList(apiKeys)))
        .put("llmCallTimeoutMs", 10_000)
        .put("llmBackoffBaseMs", 10)
        .put("llmBackoffMaxMs", 100)
        .put("promptPricePerMTok", 0.0)
        .put("completionPricePerMTok", 0.0);
  }

  // ---- the script ----

  /** Replies used in order, one per chat request, before the responder. */
  public FakeModelServer enqueue(Reply... replies) {
    script.addAll(Arrays.asList(replies));
    return this;
  }

  /** Answers every request the queue does not: a function of the request body. */
  public FakeModelServer respondWith(Function<JsonObject, Reply> responder) {
    this.responder = responder;
    return this;
  }

  /** Only these bearer keys are accepted; any other gets 401 (echoing the key, as some real servers do). */
  public FakeModelServer requireKeys(String... keys) {
    this.acceptedKeys = Set.of(keys);
    return this;
  }

  /**
   * Whether a request's {@code n} is honoured: each further choice takes the next reply. Off by default, as
   * on servers that answer one choice whatever {@code n} says.
   */
  /** What {@code /v1/models} says of the model's file, as sql-agent's local model server does (null: nothing). */
  public FakeModelServer modelMeta(JsonObject meta) {
    this.modelMeta = meta;
    return this;
  }

  public FakeModelServer honourN(boolean on) {
    this.honourN = on;
    return this;
  }

  /** Replies still queued. */
  public int pending() {
    return script.size();
  }

  /** Forgets the queue, the responder, the key rule and the recorded requests. */
  public FakeModelServer reset() {
    modelMeta = null;
    script.clear();
    requests.clear();
    responder = null;
    acceptedKeys = null;
    honourN = false;
    return this;
  }

  // ---- what it received ----

  /** Every chat request received, in order. */
  public List<Recorded> requests() {
    return Collections.unmodifiableList(new ArrayList<>(requests));
  }

  public int requestCount() {
    return requests.size();
  }

  /** Requests whose client went away (closed or reset the connection) before they were answered. */
  public int abandoned() {
    return abandoned.get();
  }

  public Recorded lastRequest() {
    if (requests.isEmpty()) throw new IllegalStateException("FakeModelServer received no chat request");
    return requests.get(requests.size() - 1);
  }

  /** One received chat request. */
  public record Recorded(JsonObject body, MultiMap headers) {
    public String authorization() {
      return headers.get("Authorization");
    }

    /** The bearer key sent, or null. */
    public String bearerKey() {
      String a = authorization();
      return a != null && a.regionMatches(true, 0, "Bearer ", 0, 7) ? a.substring(7) : null;
    }

    public boolean stream() {
      return body.getBoolean("stream", false);
    }

    public JsonArray messages() {
      return body.getJsonArray("messages", new JsonArray());
    }

    public String lastUserMessage() {
      return FakeModelServer.lastUserMessage(body);
    }

    public String systemMessage() {
      return FakeModelServer.messageOf(body, "system", false);
    }
  }

  /** The content of the request's last user message ("" if none): what a responder usually looks at. */
  public static String lastUserMessage(JsonObject request) {
    return messageOf(request, "user", true);
  }

  /** Every message of the request joined, for a responder that looks anywhere in the prompt. */
  public static String allText(JsonObject request) {
    StringBuilder sb = new StringBuilder();
    JsonArray ms = request.getJsonArray("messages", new JsonArray());
    for (int i = 0; i < ms.size(); i++) {
      if (ms.getValue(i) instanceof JsonObject m) sb.append(m.getString("content", "")).append('\n');
    }
    return sb.toString();
  }

  private static String messageOf(JsonObject request, String role, boolean last) {
    JsonArray ms = request.getJsonArray("messages", new JsonArray());
    String found = "";
    for (int i = 0; i < ms.size(); i++) {
      if (ms.getValue(i) instanceof JsonObject m && role.equals(m.getString("role"))) {
        found = m.getString("content", "");
        if (!last) return found;
      }
    }
    return found;
  }

  // ---- replies ----

  /** What to answer one request with. Build with the static factories, adjust with the fluent methods. */
  public static final class Reply {
    private enum Kind { CONTENT, STATUS, RAW, HANG, DROP }

    private final Kind kind;
    private String content;
    private int status = 200;
    private String body;
    private String contentType = "application/json";
    private final Map<String, String> headers = new LinkedHashMap<>();
    private long delayMs;
    private int chunks = 3;
    private long chunkDelayMs;
    private Integer promptTokens;
    private Integer completionTokens;
    private boolean usage = true;
    private boolean plainJson;
    private boolean truncated;
    private boolean crlf;
    private String model;
    private String finishReason = "stop";

    private Reply(Kind kind) {
      this.kind = kind;
    }

    /** The assistant's message, verbatim. */
    public static Reply content(String text) {
      Reply r = new Reply(Kind.CONTENT);
      r.content = text;
      return r;
    }

    /** The JSON the agent asks for: {"sql": sql, "explanation": ...}. */
    public static Reply sql(String sql) {
      return sql(sql, "Answers the question.");
    }

    public static Reply sql(String sql, String explanation) {
      return content(new JsonObject().put("sql", sql).put("explanation", explanation).encode());
    }

    /** {"sql": null, "explanation": reason}: the schema cannot answer. */
    public static Reply refusal(String reason) {
      return content(new JsonObject().putNull("sql").put("explanation", reason).encode());
    }

    /** Any status with a raw body (JSON content type). */
    public static Reply status(int status, String body) {
      Reply r = new Reply(Kind.STATUS);
      r.status = status;
      r.body = body;
      return r;
    }

    /** An OpenAI-style error: {"error": {"message", "type", "code"}}. */
    public static Reply error(int status, String type, String code, String message) {
      JsonObject err = new JsonObject().put("message", message).put("type", type).put("code", code).putNull("param");
      return status(status, new JsonObject().put("error", err).encode());
    }

    /** 429, a per-minute rate limit, with Retry-After in seconds. */
    public static Reply rateLimited(int retryAfterSeconds) {
      return error(429, "requests", "rate_limit_exceeded",
          "Rate limit reached for fake-model on requests per min (RPM): Limit 3, Used 3. Please try again in "
              + retryAfterSeconds + "s.")
          .header("Retry-After", String.valueOf(retryAfterSeconds));
    }

    /** 429 insufficient_quota: the key's (daily) quota is used up. */
    public static Reply quotaExhausted() {
      return error(429, "insufficient_quota", "insufficient_quota",
          "You exceeded your current quota, please check your plan and billing details.");
    }

    /** 429 whose message names a per-day limit (no insufficient_quota code). */
    public static Reply dailyLimit() {
      return error(429, "requests", "rate_limit_exceeded",
          "Rate limit reached for fake-model on requests per day (RPD): Limit 200, Used 200.");
    }

    public static Reply serverError() {
      return error(500, "server_error", null, "The server had an error while processing your request.");
    }

    public static Reply overloaded() {
      return error(503, "server_error", null, "The engine is currently overloaded, please try again later.");
    }

    public static Reply badRequest(String message) {
      return error(400, "invalid_request_error", null, message);
    }

    /** 404 model_not_found, as for a model name the server does not know. */
    public static Reply unknownModel() {
      return error(404, "invalid_request_error", "model_not_found", "The model `no-such-model` does not exist.");
    }

    /** A 200 whose body is whatever is given (not a completion), with a JSON content type. */
    public static Reply garbage(String body) {
      Reply r = new Reply(Kind.RAW);
      r.body = body;
      return r;
    }

    /** Never answers (the request stays open until the client gives up or the server stops). */
    public static Reply hang() {
      return new Reply(Kind.HANG);
    }

    /** Closes the connection without answering. */
    public static Reply drop() {
      return new Reply(Kind.DROP);
    }

    /** Waits this long before answering (use past the client's deadline to force a timeout). */
    public Reply delayed(long ms) {
      this.delayMs = ms;
      return this;
    }

    /** When streamed: the text split into this many delta chunks (default 3). */
    public Reply streamedIn(int chunks) {
      this.chunks = Math.max(1, chunks);
      return this;
    }

    /** When streamed: a pause between chunks. */
    public Reply chunkDelay(long ms) {
      this.chunkDelayMs = ms;
      return this;
    }

    /** The usage to report (default: characters / 4 of the prompt and of the reply). */
    public Reply usage(int promptTokens, int completionTokens) {
      this.promptTokens = promptTokens;
      this.completionTokens = completionTokens;
      return this;
    }

    /** Report no usage at all (the client must estimate). */
    public Reply withoutUsage() {
      this.usage = false;
      return this;
    }

    /** Answer with a plain JSON completion even when a stream was asked for. */
    public Reply plainJson() {
      this.plainJson = true;
      return this;
    }

    /** Cut off half-way: half the JSON body, or half the chunks and no [DONE]; then the connection closes. */
    public Reply truncated() {
      this.truncated = true;
      return this;
    }

    /** Frame the event stream with CRLF line ends. */
    public Reply crlf() {
      this.crlf = true;
      return this;
    }

    public Reply model(String model) {
      this.model = model;
      return this;
    }

    public Reply finishReason(String reason) {
      this.finishReason = reason;
      return this;
    }

    public Reply header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    public Reply contentType(String type) {
      this.contentType = type;
      return this;
    }

    @Override
    public String toString() {
      return "Reply[" + kind + (kind == Kind.CONTENT ? " " + content : kind == Kind.STATUS ? " " + status : "") + "]";
    }
  }

  // ---- the server ----

  private void handle(HttpServerRequest req) {
    String path = req.path();
    if (req.method() == HttpMethod.GET && path.equals("/v1/models")) {
      json(req.response(), 200, new JsonObject().put("object", "list")
          .put("data", new JsonArray().add(new JsonObject().put("id", MODEL).put("object", "model")
              .put("meta", modelMeta))).encode());
      return;
    }
    if (req.method() != HttpMethod.POST || !path.equals("/v1/chat/completions")) {
      json(req.response(), 404, new JsonObject().put("error", new JsonObject()
          .put("message", "Unknown request URL: " + req.method() + " " + path).put("type", "invalid_request_error")).encode());
      return;
    }
    req.body().onSuccess(buf -> {
      JsonObject body;
      try {
        body = buf.toJsonObject();
      } catch (RuntimeException e) {
        json(req.response(), 400, Reply.badRequest("We could not parse the JSON body of your request.").body);
        return;
      }
      MultiMap headers = HttpHeaders.headers().addAll(req.headers());
      requests.add(new Recorded(body, headers));
      int n = counter.incrementAndGet();
      Set<String> keys = acceptedKeys;
      if (keys != null) {
        String key = new Recorded(body, headers).bearerKey();
        if (key == null || !keys.contains(key)) {
          json(req.response(), 401, Reply.error(401, "invalid_request_error", "invalid_api_key",
              "Incorrect API key provided: " + key + ". You can find your API key at https://example.invalid.").body);
          return;
        }
      }
      Reply reply = pick(body, n);
      req.response().closeHandler(v -> {
        if (!req.response().ended()) abandoned.incrementAndGet();
      });
      if (reply.delayMs > 0) {
        vertx.setTimer(reply.delayMs, t -> answer(req, body, reply, n));
      } else {
        answer(req, body, reply, n);
      }
    });
  }

  private Reply pick(JsonObject body, int n) {
    Reply next = script.poll();
    if (next != null) return next;
    Function<JsonObject, Reply> r = responder;
    if (r != null) {
      try {
        Reply out = r.apply(body);
        if (out != null) return out;
      } catch (RuntimeException e) {
        return Reply.badRequest("FakeModelServer: the responder threw " + e);
      }
    }
    return Reply.badRequest("FakeModelServer: no scripted reply left for request #" + n
        + " (enqueue replies or set respondWith)");
  }

  private void answer(HttpServerRequest req, JsonObject body, Reply reply, int n) {
    HttpServerResponse resp = req.response();
    if (resp.closed() || resp.ended()) return;
    reply.headers.forEach(resp::putHeader);
    switch (reply.kind) {
      case HANG -> { }
      case DROP -> req.connection().close();
      case STATUS -> json(resp, reply.status, reply.body);
      case RAW -> resp.setStatusCode(200).putHeader("content-type", reply.contentType).end(reply.body == null ? "" : reply.body);
      case CONTENT -> {
        if (body.getBoolean("stream", false) && !reply.plainJson) {
          stream(req, body, reply, n);
        } else {
          whole(req, body, reply, n);
        }
      }
    }
  }

  private void whole(HttpServerRequest req, JsonObject body, Reply reply, int n) {
    JsonObject completion = new JsonObject()
        .put("id", "chatcmpl-fake-" + n)
        .put("object", "chat.completion")
        .put("created", System.currentTimeMillis() / 1000)
        .put("model", modelOf(body, reply))
        .put("choices", new JsonArray().add(choice(0, reply)));
    if (honourN) {
      // Each further choice takes the next scripted reply, as if the model had sampled again.
      for (int i = 1; i < body.getInteger("n", 1); i++) {
        Reply more = pick(body, n);
        if (more.kind == Reply.Kind.CONTENT) completion.getJsonArray("choices").add(choice(i, more));
      }
    }
    if (reply.usage) completion.put("usage", usage(body, reply));
    String text = completion.encode();
    HttpServerResponse resp = req.response();
    if (reply.truncated) {
      resp.setStatusCode(200).putHeader("content-type", "application/json").putHeader("content-length", String.valueOf(text.length()));
      resp.write(text.substring(0, text.length() / 2)).onComplete(v -> req.connection().close());
      return;
    }
    json(resp, 200, text);
  }

  private static JsonObject choice(int index, Reply reply) {
    return new JsonObject().put("index", index)
        .put("message", new JsonObject().put("role", "assistant").put("content", reply.content))
        .put("finish_reason", reply.finishReason);
  }

  private void stream(HttpServerRequest req, JsonObject body, Reply reply, int n) {
    HttpServerResponse resp = req.response();
    resp.setStatusCode(200).setChunked(true)
        .putHeader("content-type", "text/event-stream")
        .putHeader("cache-control", "no-cache");
    String eol = reply.crlf ? "\r\n" : "\n";
    String model = modelOf(body, reply);
    List<String> events = new ArrayList<>();
    List<String> pieces = split(reply.content == null ? "" : reply.content, reply.chunks);
    for (int i = 0; i < pieces.size(); i++) {
      JsonObject delta = new JsonObject().put("content", pieces.get(i));
      if (i == 0) delta.put("role", "assistant");
      events.add(chunk(n, model, new JsonArray().add(new JsonObject().put("index", 0).put("delta", delta).putNull("finish_reason"))).encode());
    }
    int cut = reply.truncated ? Math.max(1, events.size() / 2) : -1;
    events.add(chunk(n, model, new JsonArray().add(new JsonObject().put("index", 0).put("delta", new JsonObject())
        .put("finish_reason", reply.finishReason))).encode());
    JsonObject options = body.getJsonObject("stream_options");
    if (reply.usage && options != null && options.getBoolean("include_usage", false)) {
      events.add(chunk(n, model, new JsonArray()).put("usage", usage(body, reply)).encode());
    }
    events.add("[DONE]");
    sendEvents(req, events, 0, cut, reply.chunkDelayMs, eol);
  }

  private void sendEvents(HttpServerRequest req, List<String> events, int i, int cut, long delay, String eol) {
    HttpServerResponse resp = req.response();
    if (resp.closed()) return;
    if (i == cut) {
      req.connection().close();
      return;
    }
    if (i == events.size()) {
      resp.end();
      return;
    }
    resp.write("data: " + events.get(i) + eol + eol);
    if (delay > 0 && i + 1 < events.size()) {
      vertx.setTimer(delay, t -> sendEvents(req, events, i + 1, cut, delay, eol));
    } else {
      sendEvents(req, events, i + 1, cut, delay, eol);
    }
  }

  private static JsonObject chunk(int n, String model, JsonArray choices) {
    return new JsonObject()
        .put("id", "chatcmpl-fake-" + n)
        .put("object", "chat.completion.chunk")
        .put("created", System.currentTimeMillis() / 1000)
        .put("model", model)
        .put("choices", choices);
  }

  private static JsonObject usage(JsonObject body, Reply reply) {
    int prompt = reply.promptTokens != null ? reply.promptTokens : (allText(body).length() + 3) / 4;
    int completion = reply.completionTokens != null ? reply.completionTokens
        : reply.content == null ? 0 : (reply.content.length() + 3) / 4;
    return new JsonObject().put("prompt_tokens", prompt).put("completion_tokens", completion).put("total_tokens", prompt + completion);
  }

  private static String modelOf(JsonObject body, Reply reply) {
    return reply.model != null ? reply.model : body.getString("model", MODEL);
  }

  /** The text in n pieces as even as possible (fewer when the text is shorter); code points kept whole. */
  static List<String> split(String text, int n) {
    int[] cps = text.codePoints().toArray();
    int parts = Math.max(1, Math.min(n, cps.length));
    List<String> out = new ArrayList<>();
    for (int i = 0; i < parts; i++) {
      int from = (int) ((long) cps.length * i / parts);
      int to = (int) ((long) cps.length * (i + 1) / parts);
      out.add(new String(cps, from, to - from));
    }
    return out;
  }

  private static void json(HttpServerResponse resp, int status, String body) {
    if (resp.closed() || resp.ended()) return;
    resp.setStatusCode(status).putHeader("content-type", "application/json").end(body == null ? "" : body);
  }
}
