package dev.sqlagent.generation;

import dev.sqlagent.contract.ModelException;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.ModelException.Type;
import dev.sqlagent.generation.Upstream.AttemptFailure;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.WebClientInternal;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client for any OpenAI-compatible chat-completions API (POST {base}/chat/completions), temperature 0.
 *
 * <p>Each call has a total deadline (the web client's timeout is only an idle timeout). A per-minute 429,
 * a 5xx, a broken connection or a cut-off stream is retried with exponential backoff and jitter, honouring
 * Retry-After, within a bounded number of attempts and never past the deadline. A daily-quota 429 moves at
 * once to the second key when there is one (and stays there until the next UTC day). Every message that can
 * leave this class is masked of the keys. The returned future always completes, by the deadline at latest.
 */
public final class ChatClient {

  private static final Logger LOG = LoggerFactory.getLogger(ChatClient.class);

  /** Past its deadline, a streamed reply goes on while text keeps coming at least this often (or the deadline, if shorter). */
  static final long STREAM_STALL_MS = 10_000;

  private final Vertx vertx;
  private final WebClient web;
  private final ChatClientOptions options;
  private final Secrets secrets;
  /** The server refused a JSON-schema response_format once: SQL replies are then asked for unconstrained. */
  private volatile boolean schemaRefused;
  /** Until when (epoch ms) the primary key is known to be out of its daily quota. */
  private volatile long primaryExhaustedUntil;
  /** Calls in flight by run, so a stopped run's call can be aborted. */
  private final Map<String, Set<Call>> byRun = new ConcurrentHashMap<>();
  /** The HTTP request each attempt is sending, to reset it when its call is aborted. */
  private final Map<HttpRequest<?>, Call> sending = new ConcurrentHashMap<>();

  public ChatClient(Vertx vertx, ChatClientOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.secrets = new Secrets(options.apiKeys());
    // The HTTP client's default pool is 5 connections per host: with more questions in flight, model calls
    // queued behind each other (40 questions with a 4 s model took up to 65 s).
    this.web = WebClient.create(vertx, new WebClientOptions()
        .setUserAgent("sql-agent")
        .setKeepAliveTimeout(30),
        new io.vertx.core.http.PoolOptions().setHttp1MaxSize(options.maxConnections())
            .setHttp2MaxSize(Math.max(1, options.maxConnections() / 8)));
    // The web client hides its HTTP request; this interceptor hands it to the call, which resets it when aborted.
    ((WebClientInternal) web).addInterceptor(ctx -> {
      if (ctx.phase() == ClientPhase.SEND_REQUEST) {
        Call call = sending.get(ctx.request());
        if (call != null) call.sent(ctx.clientRequest());
      }
      ctx.next();
    });
  }

  /**
   * Aborts the calls of a stopped run: each fails at once as {@code cancelled} and its HTTP request is reset,
   * which closes the connection, so the model server sees the client go.
   */
  public void abort(String runId) {
    Set<Call> calls = byRun.remove(runId);
    if (calls == null) return;
    for (Call c : calls) c.context.runOnContext(v -> c.fail(Type.CANCELLED, "the model call was aborted: the run was stopped"));
  }

  public ChatClientOptions options() {
    return options;
  }

  /** Masks the keys in a text (for callers that log what this client returned). */
  public String redact(String text) {
    return secrets.redact(text);
  }

  /**
   * One chat completion. When {@code request.stream()} the text arrives at {@code sink} as it streams
   * (once whole if the server answers a stream request with plain JSON). Fails with a ModelException.
   */
  public Future<Completion> complete(ChatRequest request, DeltaSink sink) {
    Context ctx = vertx.getOrCreateContext();
    Promise<Completion> result = Promise.promise();
    // All of a call's state lives on one context: its timers and the web client's callbacks share it.
    ctx.runOnContext(v -> new Call(request, sink == null ? DeltaSink.NONE : sink, result, ctx).start());
    return result.future();
  }

  public Future<Void> close() {
    web.close();
    return Future.succeededFuture();
  }

  private final class Call {
    private final ChatRequest request;
    private final DeltaSink sink;
    private final Promise<Completion> result;
    private final long startedAt = System.currentTimeMillis();
    private final long deadline;
    private int attempts;
    private int retryableFailures;
    private int keyIndex;
    private boolean textSent;
    private boolean omitStreamOptions;
    private boolean omitSchema;
    /** When the last streamed text arrived (epoch ms; 0: none yet). */
    private long lastTextAt;
    private boolean extended;
    private long deadlineTimer = -1;
    private long backoffTimer = -1;
    private ReplyBody current;
    private final Context context;
    private HttpRequest<?> currentRequest;
    private io.vertx.core.http.HttpClientRequest currentHttp;

    Call(ChatRequest request, DeltaSink sink, Promise<Completion> result, Context context) {
      this.context = context;
      this.request = request;
      this.sink = sink;
      this.result = result;
      this.deadline = startedAt + timeoutMs();
      this.keyIndex = options.apiKeys().size() > 1 && System.currentTimeMillis() < primaryExhaustedUntil ? 1 : 0;
    }

    /**
     * The call's deadline: the configured one per choice asked for. A local server writes several choices one after
     * another (measured: 3 candidates of a 0.5B model on 2 loaded cores took over 300 s), and an unstreamed reply
     * cannot show that it is on its way.
     */
    private long timeoutMs() {
      return options.callTimeoutMs() * (request.stream() ? 1 : Math.max(1, request.n()));
    }

    /** The web client sent this attempt's request (an interceptor tells, on the call's context). */
    void sent(io.vertx.core.http.HttpClientRequest http) {
      currentHttp = http;
      if (finished()) http.reset();
    }

    void start() {
      if (request.runId() != null) {
        byRun.computeIfAbsent(request.runId(), k -> ConcurrentHashMap.newKeySet()).add(this);
        result.future().onComplete(done -> byRun.computeIfPresent(request.runId(), (k, set) -> {
          set.remove(this);
          return set.isEmpty() ? null : set;
        }));
      }
      deadlineTimer = vertx.setTimer(timeoutMs(), t -> deadlinePassed());
      attempt();
    }

    private boolean finished() {
      return result.future().isComplete();
    }

    /**
     * The call's deadline passed. A streamed reply whose text is still arriving goes on: a slow model that has
     * started talking is not cut off mid-statement (the question's own deadline still bounds it, by aborting the
     * run's calls); it ends once no text came for {@link #STREAM_STALL_MS} (or the deadline, if shorter).
     */
    private void deadlinePassed() {
      deadlineTimer = -1;
      if (finished()) return;
      long quiet = System.currentTimeMillis() - lastTextAt;
      long stall = Math.min(STREAM_STALL_MS, timeoutMs());
      if (request.stream() && lastTextAt > 0 && quiet < stall) {
        if (!extended) LOG.info("model call run={}: past its {} ms deadline, still streaming; going on", runId(), timeoutMs());
        extended = true;
        deadlineTimer = vertx.setTimer(Math.max(1, stall - quiet), t -> deadlinePassed());
        return;
      }
      fail(Type.MODEL_TIMEOUT, (extended ? "the model's stream stopped for " + stall + " ms after its deadline of "
          + timeoutMs() + " ms" : "the model gave no complete answer within " + timeoutMs() + " ms")
          + (attempts > 1 ? " (" + attempts + " attempts)" : ""));
    }

    private void attempt() {
      backoffTimer = -1;
      if (finished()) return;
      attempts++;
      if (textSent) {
        sink.restart();
        textSent = false;
      }
      try {
        send();
      } catch (RuntimeException e) {
        // A request that cannot even be built (a malformed base URL) must still end the call.
        fail(Type.MODEL_UNAVAILABLE, "cannot call the model server at " + options.baseUrl() + ": " + e.getMessage());
      }
    }

    private void send() {
      long remaining = Math.max(1, deadline - System.currentTimeMillis());
      CompletionParts parts = new CompletionParts();
      ReplyBody body = new ReplyBody(request.stream() ? data -> parts.onStreamData(data, this::text) : null);
      current = body;
      String key = keyIndex < options.apiKeys().size() ? options.apiKeys().get(keyIndex) : null;
      HttpRequest<Buffer> http = web.postAbs(options.baseUrl() + "/chat/completions")
          .timeout(remaining)
          .putHeader("Accept", request.stream() ? "text/event-stream, application/json" : "application/json")
          .as(body);
      if (key != null) http.bearerTokenAuthentication(key);
      forget();
      currentRequest = http;
      sending.put(http, this);
      http.sendJsonObject(payload()).onComplete(ar -> {
        forget();
        currentHttp = null;
        if (finished()) return;
        if (ar.failed()) {
          Throwable cause = body.failure() != null ? body.failure() : ar.cause();
          onAttemptFailed(Upstream.forTransport(cause, options.baseUrl()));
          return;
        }
        try {
          succeed(read(ar.result(), body, parts));
        } catch (AttemptFailure f) {
          onAttemptFailed(f);
        } catch (RuntimeException e) {
          onAttemptFailed(CompletionParts.garbage(body.text()));
        }
      });
    }

    private void text(String delta) {
      if (finished()) return;
      textSent = true;
      lastTextAt = System.currentTimeMillis();
      sink.delta(delta);
    }

    private JsonObject payload() {
      JsonArray messages = new JsonArray();
      request.messages().forEach(m -> messages.add(m.toJson()));
      JsonObject p = new JsonObject()
          .put("model", options.model())
          .put("messages", messages)
          .put("temperature", 0)
          .put("stream", request.stream());
      if (request.temperature() != null) p.put("temperature", request.temperature());
      if (request.n() > 1 && !request.stream()) p.put("n", request.n());
      if (request.stream() && !omitStreamOptions) p.put("stream_options", new JsonObject().put("include_usage", true));
      if (ChatRequest.FORMAT_SQL.equals(request.format())) {
        // A small model strays from the asked format and can repeat itself until the context is full: the server
        // constrains the reply to the SQL reply object's schema, and the reply's length is bounded.
        p.put("max_tokens", SqlReplySchema.MAX_TOKENS);
        if (!omitSchema && !schemaRefused) p.put("response_format", SqlReplySchema.responseFormat());
      }
      return p;
    }

    private CompletionParts read(HttpResponse<Buffer> resp, ReplyBody body, CompletionParts streamed) {
      int status = resp.statusCode();
      if (status < 200 || status > 299) {
        throw Upstream.forStatus(status, resp.getHeader("retry-after-ms"), resp.getHeader("Retry-After"), body.text(),
            keyIndex < options.apiKeys().size(), System.currentTimeMillis());
      }
      if (body.wasEventStream()) {
        streamed.checkStreamComplete(body.text());
        return streamed;
      }
      String text = body.text();
      if (text.startsWith("data:")) return CompletionParts.fromEventStream(text); // a stream nobody asked for
      CompletionParts whole = CompletionParts.fromBody(text);
      if (request.stream() && !whole.content().isEmpty()) text(whole.content()); // plain JSON to a stream request
      return whole;
    }

    private void onAttemptFailed(AttemptFailure f) {
      if (finished()) return;
      String message = secrets.redact(f.getMessage());
      switch (f.next) {
        case NEXT_KEY -> {
          if (keyIndex + 1 < options.apiKeys().size()) {
            LOG.warn("model call run={}: API key #{} is out of its daily quota; moving to key #{}", runId(), keyIndex, keyIndex + 1);
            if (keyIndex == 0) primaryExhaustedUntil = nextUtcMidnight();
            keyIndex++;
            attempt();
          } else {
            fail(Type.MODEL_QUOTA, options.apiKeys().size() > 1 ? message + " (the failover key too)" : message);
          }
        }
        case GIVE_UP -> {
          if (request.stream() && !omitStreamOptions && f.type == Type.MODEL_ERROR && message.contains("stream_options")) {
            // An older server that does not know stream_options: ask again without it (usage is then estimated).
            omitStreamOptions = true;
            attempt();
          } else if (ChatRequest.FORMAT_SQL.equals(request.format()) && !omitSchema && !schemaRefused
              && f.type == Type.MODEL_ERROR && SqlReplySchema.refusedBy(message)) {
            // A server that cannot constrain replies to a JSON schema: ask again without; the reply is parsed leniently.
            LOG.info("model call run={}: the server refused response_format ({}); asking without it from now on", runId(), message);
            omitSchema = true;
            schemaRefused = true;
            attempt();
          } else {
            fail(f.type, message);
          }
        }
        case RETRY -> retry(f, message);
      }
    }

    private void retry(AttemptFailure f, String message) {
      retryableFailures++;
      if (retryableFailures >= options.maxAttempts()) {
        fail(f.type, message + " (after " + attempts + " attempts)");
        return;
      }
      long delay = f.retryAfterMs >= 0 ? f.retryAfterMs : backoff(retryableFailures);
      long left = deadline - System.currentTimeMillis();
      if (delay >= left) {
        String wait = f.retryAfterMs >= 0 ? "the server asked to wait " + f.retryAfterMs + " ms" : "a retry";
        fail(f.type, message + " (" + wait + ", which does not fit in the " + left + " ms left before the deadline)");
        return;
      }
      LOG.info("model call run={}: attempt {} failed ({}); retrying in {} ms", runId(), attempts, message, delay);
      backoffTimer = vertx.setTimer(Math.max(1, delay), t -> attempt());
    }

    /** Exponential with full jitter in its upper half: base * 2^(n-1), capped, times 0.5..1. */
    private long backoff(int failures) {
      long exp = options.backoffBaseMs() << Math.min(failures - 1, 20);
      long capped = Math.min(options.backoffMaxMs(), exp);
      return capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1);
    }

    private void succeed(CompletionParts parts) {
      if (finished()) return;
      cancelTimers();
      String content = parts.content();
      boolean estimated = parts.promptTokens() == null || parts.completionTokens() == null;
      int prompt = parts.promptTokens() != null ? parts.promptTokens() : estimate(request.promptChars());
      int completion = parts.completionTokens() != null ? parts.completionTokens() : estimate(content.length());
      long latency = System.currentTimeMillis() - startedAt;
      double cost = BigDecimal.valueOf(prompt * options.promptPricePerMTok() / 1e6 + completion * options.completionPricePerMTok() / 1e6)
          .setScale(8, RoundingMode.HALF_UP).doubleValue();
      String model = parts.model() != null ? parts.model() : options.model();
      Completion c = new Completion(content, model, prompt, completion, estimated, cost, latency, attempts - 1, keyIndex,
          parts.finishReason(), parts.alternatives());
      LOG.info("model call run={}: ok model={} attempts={} key=#{} tokens={}+{}{} cost_usd={} {} ms", runId(), model, attempts,
          keyIndex, prompt, completion, estimated ? " (estimated)" : "", cost, latency);
      result.tryComplete(c);
    }

    private void fail(Type type, String message) {
      if (finished()) return;
      cancelTimers();
      if (current != null) current.abort();
      if (type == Type.CANCELLED && currentHttp != null) currentHttp.reset();
      forget();
      result.tryFail(new ModelException(type, secrets.redact(message)));
    }

    private void forget() {
      if (currentRequest != null) sending.remove(currentRequest);
      currentRequest = null;
    }

    private void cancelTimers() {
      if (deadlineTimer >= 0) vertx.cancelTimer(deadlineTimer);
      if (backoffTimer >= 0) vertx.cancelTimer(backoffTimer);
    }

    private String runId() {
      return request.runId() == null ? "-" : request.runId();
    }
  }

  /** Tokens estimated as characters / 4, at least 1 for any text. */
  public static int estimate(int chars) {
    return Completion.estimateTokens(chars);
  }

  private static long nextUtcMidnight() {
    return LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  }
}
