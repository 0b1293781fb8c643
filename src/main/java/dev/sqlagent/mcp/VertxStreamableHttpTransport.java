package dev.sqlagent.mcp;

import dev.sqlagent.access.TokenExpiry;
import io.vertx.core.eventbus.DeliveryOptions;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.users.User;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.intake.Owner;
import dev.sqlagent.users.Users;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The MCP SDK's Streamable HTTP server transport on a Vert.x route (the SDK ships only servlet ones).
 *
 * <ul>
 *   <li>{@code POST}: one JSON-RPC message. {@code initialize} creates a session and answers with its id in
 *       {@code Mcp-Session-Id}; later messages must carry it. A request is answered as an SSE stream when the
 *       client accepts {@code text/event-stream} (progress and log notifications can then precede the
 *       response), otherwise as one {@code application/json} body. Notifications and responses get 202.</li>
 *   <li>{@code GET}: the session's server-to-client SSE stream.</li>
 *   <li>{@code DELETE}: ends the session.</li>
 * </ul>
 *
 * <p>Never blocks the event loop: the SDK's Monos are subscribed, and every write to a response goes
 * through the context of the request that opened it. Neither the origin check (the spec's DNS-rebinding
 * advice) nor authentication is done here: mount the service's access guard in front, as the HTTP edge does.
 */
public final class VertxStreamableHttpTransport implements McpStreamableServerTransportProvider {

  private static final Logger LOG = LoggerFactory.getLogger(VertxStreamableHttpTransport.class);

  private static final String EVENT_STREAM = "text/event-stream";
  private static final String APPLICATION_JSON = "application/json";
  private static final long KEEP_ALIVE_MS = 25_000;
  /** Transport-context keys: the authenticated user (absent without a users file) and the run id an ask would use. */
  public static final String USER = "sqlagent.user";
  /** The transport-context key of the calling client's address (for the query log). */
  public static final String CLIENT = "sqlagent.client";
  public static final String RUN_ID = "sqlagent.run_id";
  static final String CANCELLED = "notifications/cancelled";

  private final McpJsonMapper json;
  private final int maxSessions;
  private final Map<String, Live> sessions = new ConcurrentHashMap<>();
  private volatile McpStreamableServerSession.Factory sessionFactory;
  private volatile boolean closing;

  /** A session, who opened it and when it was last used. */
  private static final class Live {
    final McpStreamableServerSession session;
    /** The user who opened it (null without users): every later request must be theirs. */
    final String owner;
    volatile long lastSeen = System.nanoTime();
    final AtomicInteger openStreams = new AtomicInteger();
    /** The run id each request in flight would ask as, by JSON-RPC id: what notifications/cancelled stops. */
    final Map<String, String> runs = new ConcurrentHashMap<>();
    /** The session as the intake knows it: the runs its requests asked, stopped when it ends. */
    final Owner asker;

    Live(McpStreamableServerSession session, String owner, Owner asker) {
      this.session = session;
      this.owner = owner;
      this.asker = asker;
    }
  }

  public VertxStreamableHttpTransport(McpJsonMapper json, int maxSessions) {
    this.json = json;
    this.maxSessions = maxSessions;
  }

  @Override
  public List<String> protocolVersions() {
    return List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
        ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
  }

  @Override
  public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
    this.sessionFactory = sessionFactory;
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    return Flux.fromIterable(sessions.values())
        .flatMap(live -> live.session.sendNotification(method, params)
            .onErrorResume(e -> {
              LOG.debug("notification {} to session {} failed: {}", method, live.session.getId(), e.toString());
              return Mono.empty();
            }))
        .then();
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.defer(() -> {
      closing = true;
      return Flux.fromIterable(sessions.values())
          .flatMap(live -> live.session.closeGracefully().onErrorResume(e -> Mono.empty()))
          .then(Mono.fromRunnable(sessions::clear));
    });
  }

  /** Sessions currently open (for tests and the log). */
  public int sessionCount() {
    return sessions.size();
  }

  /** Ends sessions unused for longer than {@code idle} that have no open stream. */
  public void expireIdle(Duration idle) {
    long cutoff = System.nanoTime() - idle.toNanos();
    sessions.forEach((id, live) -> {
      if (live.openStreams.get() == 0 && live.lastSeen - cutoff < 0 && sessions.remove(id, live)) {
        LOG.info("MCP session {} expired after {} idle", id, idle);
        live.asker.gone();
        live.session.closeGracefully().onErrorResume(e -> Mono.empty()).subscribe();
      }
    });
  }

  /** The route handler for every method on the MCP endpoint. */
  public void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    if (closing) {
      error(ctx, 503, ErrorCodes.INTERNAL_ERROR, "the MCP server is shutting down");
      return;
    }
    HttpMethod method = req.method();
    if (method.equals(HttpMethod.POST)) {
      post(ctx);
    } else if (method.equals(HttpMethod.GET)) {
      get(ctx);
    } else if (method.equals(HttpMethod.DELETE)) {
      delete(ctx);
    } else {
      ctx.response().putHeader("Allow", "GET, POST, DELETE");
      error(ctx, 405, ErrorCodes.INVALID_REQUEST, "the MCP endpoint takes POST, GET and DELETE");
    }
  }

  private void post(RoutingContext ctx) {
    String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
    boolean sse = accepts(accept, EVENT_STREAM);
    if (!sse && !accepts(accept, APPLICATION_JSON)) {
      error(ctx, 406, ErrorCodes.INVALID_REQUEST, "Accept must include application/json or text/event-stream");
      return;
    }
    String body = ctx.body() == null ? null : ctx.body().asString();
    if (body == null || body.isBlank()) {
      error(ctx, 400, ErrorCodes.PARSE_ERROR, "the body must be one JSON-RPC message");
      return;
    }
    JsonRpcCheck.Refusal refused = JsonRpcCheck.check(body);
    if (refused != null) {
      LOG.debug("MCP message refused: {}", refused.message());
      ctx.response().setStatusCode(refused.httpStatus()).putHeader("content-type", APPLICATION_JSON)
          .end(refused.toJson().encode());
      return;
    }
    JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(json, body);
    } catch (Exception e) {
      error(ctx, 400, ErrorCodes.INVALID_REQUEST, "the body must be one JSON-RPC 2.0 message");
      return;
    }
    if (message instanceof JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
      initialize(ctx, request);
      return;
    }
    Live live = session(ctx);
    if (live == null) return;
    if (message instanceof JSONRPCRequest request) {
      String runId = live.asker.nameRun();
      String key = String.valueOf(request.id());
      live.runs.put(key, runId);
      ctx.response().endHandler(v -> {
        live.runs.remove(key, runId);
        live.asker.release(runId);
      });
      // A client that hangs up before its reply cannot read it (this transport keeps no stream to resume): its run stops.
      ctx.response().closeHandler(v -> {
        live.runs.remove(key, runId);
        if (!ctx.response().ended()) live.asker.stop(runId, Intake.DISCONNECTED);
      });
      McpTransportContext transportContext = transportContext(ctx, runId);
      ResponseStream stream = new ResponseStream(ctx.response(), Vertx.currentContext(), sse, live, request.id());
      live.session.responseStream(request, stream)
          .contextWrite(c -> c.put(McpTransportContext.KEY, transportContext))
          .subscribe(null, err -> stream.failed(request.id(), err));
    } else {
      McpTransportContext transportContext = transportContext(ctx, null);
      if (message instanceof JSONRPCNotification n && CANCELLED.equals(n.method())) cancel(ctx, live, n);
      Mono<Void> accepted = message instanceof JSONRPCResponse response
          ? live.session.accept(response)
          : live.session.accept((JSONRPCNotification) message);
      Context context = Vertx.currentContext();
      accepted.contextWrite(c -> c.put(McpTransportContext.KEY, transportContext))
          .subscribe(null,
              err -> context.runOnContext(v -> error(ctx, 400, ErrorCodes.INVALID_REQUEST,
                  JsonRpcCheck.plain(ErrorCodes.INVALID_REQUEST, firstLine(err.getMessage())))),
              () -> context.runOnContext(v -> ctx.response().setStatusCode(202).end()));
    }
  }

  private void initialize(RoutingContext ctx, JSONRPCRequest request) {
    if (sessionFactory == null) {
      error(ctx, 503, ErrorCodes.INTERNAL_ERROR, "the MCP server is not ready");
      return;
    }
    if (sessions.size() >= maxSessions) {
      error(ctx, 503, ErrorCodes.INTERNAL_ERROR, "too many open MCP sessions; close one (DELETE) or retry later");
      return;
    }
    McpSchema.InitializeRequest init;
    try {
      init = json.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() {});
    } catch (RuntimeException e) {
      init = null;
    }
    if (init == null || init.protocolVersion() == null || init.clientInfo() == null) {
      ctx.response().setStatusCode(200).putHeader("content-type", APPLICATION_JSON).end(new JsonRpcCheck.Refusal(
          ErrorCodes.INVALID_PARAMS, "initialize needs params {\"protocolVersion\", \"capabilities\", \"clientInfo\"}",
          request.id()).toJson().encode());
      return;
    }
    var started = sessionFactory.startSession(init);
    String id = started.session().getId();
    User opener = Users.of(ctx);
    sessions.put(id, new Live(started.session(), opener == null ? null : opener.name(),
        new Intake(ctx.vertx(), DeliveryOptions.DEFAULT_TIMEOUT).owner(opener)));
    Context context = Vertx.currentContext();
    started.initResult().subscribe(
        result -> context.runOnContext(v -> {
          ctx.response().putHeader(HttpHeaders.MCP_SESSION_ID, id);
          writeJson(ctx.response(), 200, new JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), result, null));
        }),
        err -> {
          sessions.remove(id);
          LOG.warn("MCP initialize failed: {}", err.toString());
          context.runOnContext(v -> error(ctx, 500, ErrorCodes.INTERNAL_ERROR, "initialize failed; try again"));
        });
  }

  private void get(RoutingContext ctx) {
    if (!accepts(ctx.request().getHeader(HttpHeaders.ACCEPT), EVENT_STREAM)) {
      error(ctx, 406, ErrorCodes.INVALID_REQUEST, "GET opens the server's event stream: Accept must include text/event-stream");
      return;
    }
    Live live = session(ctx);
    if (live == null) return;
    ResponseStream stream = new ResponseStream(ctx.response(), Vertx.currentContext(), true, live, null);
    stream.open();
    var listening = live.session.listeningStream(stream);
    // No longer than the sign-on token that opened it: the client opens another with a fresh one.
    Vertx vertx = Vertx.currentContext().owner();
    long expiry = TokenExpiry.closeAt(vertx, ctx, () -> {
      stream.comment(TokenExpiry.REASON);
      listening.close();
      stream.close();
    });
    ctx.response().closeHandler(v -> {
      if (expiry >= 0) vertx.cancelTimer(expiry);
      listening.close();
      stream.close();
    });
  }

  private void delete(RoutingContext ctx) {
    String id = ctx.request().getHeader(HttpHeaders.MCP_SESSION_ID);
    if (id == null || id.isBlank()) {
      error(ctx, 400, ErrorCodes.INVALID_REQUEST, "Mcp-Session-Id header required");
      return;
    }
    Live live = sessions.get(id);
    if (live != null && !ownedByCaller(ctx, live)) return;
    if (live == null || !sessions.remove(id, live)) {
      error(ctx, 404, ErrorCodes.INVALID_REQUEST, "no MCP session " + id);
      return;
    }
    // The session ended: the runs its requests asked are not wanted any more.
    live.asker.gone();
    Context context = Vertx.currentContext();
    live.session.delete().subscribe(null,
        err -> context.runOnContext(v -> ctx.response().setStatusCode(200).end()),
        () -> context.runOnContext(v -> ctx.response().setStatusCode(200).end()));
  }

  /** The session the request names; null after answering 400 (none named) or 404 (unknown: initialize again). */
  private Live session(RoutingContext ctx) {
    String id = ctx.request().getHeader(HttpHeaders.MCP_SESSION_ID);
    if (id == null || id.isBlank()) {
      error(ctx, 400, ErrorCodes.INVALID_REQUEST, "Mcp-Session-Id header required: send initialize first");
      return null;
    }
    String version = ctx.request().getHeader(HttpHeaders.PROTOCOL_VERSION);
    if (version != null && !protocolVersions().contains(version)) {
      error(ctx, 400, ErrorCodes.INVALID_REQUEST, "unsupported MCP-Protocol-Version " + version + "; supported: " + protocolVersions());
      return null;
    }
    Live live = sessions.get(id);
    if (live == null) {
      error(ctx, 404, ErrorCodes.INVALID_REQUEST, "no MCP session " + id + " (it ended or expired): initialize again");
      return null;
    }
    if (!ownedByCaller(ctx, live)) return null;
    live.lastSeen = System.nanoTime();
    return live;
  }

  /**
   * With users, a session is its opener's alone: another user's request naming it (to send into it, read its
   * stream or end it) is refused with 403 and logged. False after answering.
   */
  private static boolean ownedByCaller(RoutingContext ctx, Live live) {
    User caller = Users.of(ctx);
    if (live.owner == null || caller != null && live.owner.equals(caller.name())) return true;
    LOG.warn("refused: user {} reached for the MCP session of user {} ({} from {})",
        caller == null ? "(none)" : caller.name(), live.owner, ctx.request().method(), ctx.request().remoteAddress());
    error(ctx, 403, ErrorCodes.INVALID_REQUEST, "this MCP session was opened by another user; initialize your own");
    return false;
  }

  private static McpTransportContext transportContext(RoutingContext ctx, String runId) {
    Map<String, Object> values = new java.util.HashMap<>();
    values.put("remote", String.valueOf(ctx.request().remoteAddress()));
    if (Users.of(ctx) != null) values.put(USER, Users.of(ctx));
    String client = dev.sqlagent.network.TrustedProxies.clientAddress(ctx);
    if (client != null) values.put(CLIENT, client);
    if (runId != null) values.put(RUN_ID, runId);
    return McpTransportContext.create(values);
  }

  /** notifications/cancelled {requestId}: the run that request asked is stopped (its owner's, or an admin's call). */
  private static void cancel(RoutingContext ctx, Live live, JSONRPCNotification n) {
    Object requestId = n.params() instanceof Map<?, ?> p ? p.get("requestId") : null;
    String runId = requestId == null ? null : live.runs.get(String.valueOf(requestId));
    if (runId == null) return;
    User user = Users.of(ctx);
    live.asker.stop(runId, user == null ? "an MCP client" : user.displayName())
        .onFailure(e -> LOG.debug("MCP cancel of request {}: {}", requestId, e.getMessage()));
  }

  static boolean accepts(String accept, String type) {
    if (accept == null || accept.isBlank()) return type.equals(APPLICATION_JSON);
    String a = accept.toLowerCase(Locale.ROOT);
    return a.contains(type) || a.contains("*/*") && type.equals(APPLICATION_JSON);
  }

  private void writeJson(HttpServerResponse response, int status, Object body) {
    String text;
    try {
      text = json.writeValueAsString(body);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    response.setStatusCode(status).putHeader("content-type", APPLICATION_JSON).end(text);
  }

  /** A JSON-RPC error object (id null: the transport could not read or route the message). */
  private static void error(RoutingContext ctx, int status, int code, String message) {
    if (ctx.response().ended()) return;
    ctx.response().setStatusCode(status).putHeader("content-type", APPLICATION_JSON)
        .end(new JsonObject().put("jsonrpc", "2.0").putNull("id")
            .put("error", new JsonObject().put("code", code).put("message", message)).encode());
  }

  private static String firstLine(String s) {
    if (s == null) return "unreadable";
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /**
   * One HTTP response as the SDK's per-stream transport: an SSE stream, or (for a client that takes only
   * JSON) the single JSON-RPC response. Writes happen on the request's context, in order.
   */
  private final class ResponseStream implements McpStreamableServerTransport {
    private final HttpServerResponse response;
    private final Context context;
    private final boolean sse;
    private final Live live;
    private final long keepAlive;
    /** The id of the request this stream answers (null: the session's listening stream). */
    private final Object requestId;
    private boolean answered;
    private boolean started;
    private boolean closed;

    ResponseStream(HttpServerResponse response, Context context, boolean sse, Live live, Object requestId) {
      this.requestId = requestId;
      this.response = response;
      this.context = context;
      this.sse = sse;
      this.live = live;
      live.openStreams.incrementAndGet();
      // A quiet SSE stream (a long ask, an idle listening stream) must not look dead to proxies and clients.
      this.keepAlive = sse ? context.owner().setPeriodic(KEEP_ALIVE_MS, t -> context.runOnContext(v -> comment("keep-alive"))) : -1;
    }

    /** Sends the SSE headers now (a listening stream may stay quiet for a long time). */
    void open() {
      context.runOnContext(v -> comment("stream open"));
    }

    void comment(String text) {
      if (closed || response.closed()) return;
      startSse();
      response.write(": " + text + "\n\n");
    }

    private void startSse() {
      if (started) return;
      started = true;
      response.setStatusCode(200).setChunked(true)
          .putHeader("content-type", EVENT_STREAM)
          .putHeader("cache-control", "no-cache")
          .putHeader("x-accel-buffering", "no");
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
      return sendMessage(message, null);
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message, String messageId) {
      return Mono.create(sink -> context.runOnContext(v -> {
        try {
          write(message, messageId);
          sink.success();
        } catch (Exception e) {
          sink.error(e);
        }
      }));
    }

    private void write(JSONRPCMessage message, String messageId) throws java.io.IOException {
      if (closed || response.closed() || response.ended()) {
        LOG.debug("MCP session {}: message dropped, the client's stream is gone", live.session.getId());
        return;
      }
      if (message instanceof JSONRPCResponse r && r.error() != null) {
        // The SDK puts exception text (class names, library internals) into errors; clients get plain words.
        String plain = JsonRpcCheck.plain(r.error().code(), r.error().message());
        if (!plain.equals(r.error().message()) || r.error().data() != null) {
          LOG.debug("MCP error for request {} made plain: {}", r.id(), r.error().message());
          message = new JSONRPCResponse(r.jsonrpc(), r.id(), null,
              new JSONRPCResponse.JSONRPCError(r.error().code(), plain));
        }
      }
      if (message instanceof JSONRPCResponse) answered = true;
      String text = json.writeValueAsString(message);
      if (sse) {
        startSse();
        StringBuilder event = new StringBuilder();
        if (messageId != null) event.append("id: ").append(messageId).append('\n');
        event.append("event: message\n");
        event.append("data: ").append(text).append("\n\n");
        response.write(event.toString());
      } else if (message instanceof JSONRPCResponse) {
        closed = true;
        live.openStreams.decrementAndGet();
        response.setStatusCode(200).putHeader("content-type", APPLICATION_JSON).end(text);
      } else {
        LOG.debug("MCP session {}: notification not sent, the client accepts only JSON", live.session.getId());
      }
    }

    /** The SDK could not even produce an error response: answer with one. */
    void failed(Object requestId, Throwable err) {
      LOG.warn("MCP session {}: request {} failed: {}", live.session.getId(), requestId, err.toString());
      JSONRPCResponse response = new JSONRPCResponse(McpSchema.JSONRPC_VERSION, requestId, null,
          new JSONRPCResponse.JSONRPCError(ErrorCodes.INTERNAL_ERROR, "the request could not be handled"));
      sendMessage(response, null).then(closeGracefully()).subscribe();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return json.convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return Mono.create(sink -> context.runOnContext(v -> {
        end();
        sink.success();
      }));
    }

    /** Queued behind the writes already asked for, so nothing sent before is cut off. */
    @Override
    public void close() {
      context.runOnContext(v -> end());
    }

    private void end() {
      if (closed) return;
      closed = true;
      if (keepAlive >= 0) context.owner().cancelTimer(keepAlive);
      live.openStreams.decrementAndGet();
      live.lastSeen = System.nanoTime();
      if (response.ended() || response.closed()) return;
      String unanswered = null;
      if (requestId != null && !answered) {
        // Every request with an id gets exactly one response, even when the SDK produced none.
        LOG.warn("MCP session {}: request {} ended without a response; answering with an error", live.session.getId(), requestId);
        try {
          unanswered = json.writeValueAsString(new JSONRPCResponse(McpSchema.JSONRPC_VERSION, requestId, null,
              new JSONRPCResponse.JSONRPCError(ErrorCodes.INVALID_PARAMS, JsonRpcCheck.plain(ErrorCodes.INVALID_PARAMS, null))));
        } catch (java.io.IOException e) {
          unanswered = null;
        }
      }
      if (sse) {
        startSse();
        if (unanswered != null) response.write("event: message\ndata: " + unanswered + "\n\n");
        response.end();
      } else if (unanswered != null) {
        response.setStatusCode(200).putHeader("content-type", APPLICATION_JSON).end(unanswered);
      } else {
        response.setStatusCode(202).end();
      }
    }
  }
}
