package dev.sqlagent.access;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.users.OidcVerifier;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.shareddata.Shareable;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Who may use the service, mounted first on the router:
 * <ul>
 *   <li><b>Token.</b> With {@code SQLAGENT_API_TOKEN} set, every request to {@code /api}, {@code /ws},
 *       {@code /eventbus} and {@code /mcp} must carry it as {@code Authorization: Bearer <token>}; browsers'
 *       WebSockets cannot set headers, so {@code /ws} and {@code /eventbus} also accept {@code ?token=<token>} (or {@code ?access_token=}, the
 *       OAuth-style name the page uses).
 *       Compared in constant time. {@code /health}, {@code /metrics} and the page stay open.</li>
 *   <li><b>Users.</b> With a users file ({@code SQLAGENT_USERS}) or a sign-on ({@code SQLAGENT_OIDC_ISSUER}),
 *       the token names the user: a JWT is verified against the issuer's keys ({@link OidcVerifier}), any other
 *       token is looked up in the users file. A refused token is 401 with its reason (expired, wrong audience, …).</li>
 *   <li><b>Watching every run.</b> Without a token configured, only loopback clients may watch all runs;
 *       the live edges ask {@link #mayWatchAll(RoutingContext)} before subscribing anyone to every event.</li>
 *   <li><b>Sizes.</b> A body larger than {@code maxBodyBytes} is refused (413) before it is read (a question's body
 *       at most {@link AskRules#MAX_ASK_BODY_BYTES}); the question itself is checked by the intake, as on every other
 *       door.</li>
 *   <li><b>Browser-borne requests.</b> A POST to {@code /api} must say {@code Content-Type: application/json}
 *       (415 otherwise); it, {@code /ws}, {@code /eventbus} and {@code /mcp} must not come from another site's
 *       page ({@link OriginGuard}, 403): a form or a {@code text/plain} fetch that a browser sends without a
 *       preflight cannot spend the model or read data, and a page cannot drive the live edges or the tools.</li>
 *   <li><b>Fair share.</b> {@code POST /api/ask} admits {@code askPerClient} questions in flight per client
 *       address; one more gets 429 with {@code Retry-After}, so one client cannot starve the others. The client's
 *       address is the socket's peer, or behind a trusted proxy the one it forwarded for ({@link TrustedProxies}).</li>
 * </ul>
 */
public final class AccessGuard {

  /** RoutingContext key: whether this request may watch every run (set on every guarded request). */
  public static final String WATCH_ALL = "sqlagent.access.watch_all";
  /** RoutingContext key: the moment the request's sign-on token stops being accepted (absent for other tokens). */
  public static final String TOKEN_UNTIL = "sqlagent.access.token_until";
  public static final int RETRY_AFTER_SECONDS = 2;
  static final int ASK_BODY_BYTES = AskRules.MAX_ASK_BODY_BYTES;

  // Groups here never capture: Vert.x Web adds a regex route's groups to the request's parameters as param0,
  // param1… and the first value of a name wins, so a capturing guard stole param0 from SockJS's own routes (which
  // read the session id from it): fallback clients were then put in one shared session named "eventbus".
  private static final Pattern GUARDED = Pattern.compile("^/(?:api|ws|eventbus|mcp)(?:/.*)?$");
  private static final Pattern API_POST = Pattern.compile("^/api(?:/.*)?$");
  private static final Pattern QUERY_TOKEN_ALLOWED = Pattern.compile("^/(?:ws|eventbus)(?:/.*)?$");
  /** Where a browser page could reach without a preflight: the origin check stands in front of each. */
  private static final Pattern BROWSER_REACHABLE = Pattern.compile("^/(?:ws|eventbus|mcp)(?:/.*)?$");

  private final byte[] tokenDigest;
  private final Users users;
  private final OidcVerifier oidc;
  private final ProtectedResource resource;
  private final TrustedProxies proxies;
  private final boolean identityRequired;
  private final int maxBodyBytes;
  private final int askPerClient;
  private final AskSlots slots;
  private final RowRules rowRules;

  private AccessGuard(Vertx vertx, AppConfig config, OidcVerifier oidc) {
    String token = config.apiToken().orElse(null);
    this.tokenDigest = token == null || token.isEmpty() ? null : sha256(token);
    this.users = config.users();
    this.oidc = oidc;
    this.resource = oidc == null ? null : new ProtectedResource(config, oidc);
    this.proxies = config.trustedProxies();
    this.identityRequired = users.configured() || oidc != null;
    this.maxBodyBytes = config.maxBodyBytes();
    this.askPerClient = config.askPerClient();
    this.rowRules = RowRules.of(config);
    // One table per Vert.x instance, shared by every HTTP verticle instance.
    this.slots = (AskSlots) vertx.sharedData().<String, AskSlots>getLocalMap("sqlagent.access")
        .computeIfAbsent("ask-slots", k -> new AskSlots());
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    mount(router, vertx, config, null);
  }

  /** With the sign-on's verifier (null without {@code SQLAGENT_OIDC_ISSUER}). */
  public static void mount(Router router, Vertx vertx, AppConfig config, OidcVerifier oidc) {
    AccessGuard g = new AccessGuard(vertx, config, oidc);
    OriginGuard origin = new OriginGuard(config);
    router.route().handler(g::limitBody);
    router.post().pathRegex(API_POST.pattern()).handler(AccessGuard::requireJson).handler(origin);
    router.routeWithRegex(BROWSER_REACHABLE.pattern()).handler(origin);
    router.routeWithRegex(GUARDED.pattern()).handler(g::authenticate);
    // A question needs far less than the general limit; the agent's own route uses the same.
    router.post("/api/ask").handler(BodyHandler.create(false).setBodyLimit(Math.min(g.maxBodyBytes, ASK_BODY_BYTES)))
        .handler(g::admitAsk);
    router.get("/api/access").handler(g::describe);
    router.get("/api/runs").handler(g::mayListRuns);
  }

  /** What this client may do here: the page reads it once to know whether to offer "watch every run". */
  private void describe(RoutingContext ctx) {
    User user = Users.of(ctx);
    ctx.json(new JsonObject().put("token_required", tokenDigest != null || identityRequired).put("watch_all", mayWatchAll(ctx))
        .put("user", user == null ? null : new JsonObject().put("name", user.name()).put("display_name", user.displayName())
            .put("admin", user.admin()).put("db_role", user.dbRole()).put("see_sensitive", user.seeSensitive()))
        .put("ask_per_client", askPerClient).put("max_body_bytes", maxBodyBytes)
        .put("max_question_chars", AskRules.MAX_QUESTION_CHARS));
  }

  /** Whether the client of this request may watch every run (see the class comment). */
  public static boolean mayWatchAll(RoutingContext ctx) {
    Boolean decided = ctx.get(WATCH_ALL);
    return decided != null ? decided : mayWatchAll(ctx.request().remoteAddress(), false);
  }

  /** The one rule without a users file: a client that presented the configured token, or one on this machine. */
  public static boolean mayWatchAll(SocketAddress remote, boolean tokenConfiguredAndPresented) {
    return tokenConfiguredAndPresented || isLoopback(remote);
  }

  private static boolean isLoopback(SocketAddress remote) {
    if (remote == null || remote.host() == null) return false;
    try {
      // A literal address: no name lookup happens.
      return InetAddress.getByName(remote.host()).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private void limitBody(RoutingContext ctx) {
    // Every edge reads the client from here (the query log keeps it): behind a trusted proxy, the forwarded one.
    ctx.put(TrustedProxies.CLIENT_KEY, proxies.clientOf(ctx));
    String length = ctx.request().getHeader("Content-Length");
    if (length != null) {
      long n;
      try {
        n = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        refuse(ctx, 400, "bad_request", "Content-Length is not a number");
        return;
      }
      if (n > maxBodyBytes) {
        refuse(ctx, 413, "body_too_large", "the request body is " + n + " bytes; the limit is " + maxBodyBytes + " bytes");
        return;
      }
    }
    ctx.next();
  }

  /** JSON bodies only: a browser sends text/plain, forms and multipart across sites without asking first. */
  private static void requireJson(RoutingContext ctx) {
    String type = ctx.request().getHeader("Content-Type");
    String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    if (!media.equals("application/json")) {
      refuse(ctx, 415, "unsupported_media_type", "send the body as JSON with \"Content-Type: application/json\""
          + (type == null ? "" : "; this request said " + media.replaceAll("[^a-z0-9/+.\\-]", "")));
      return;
    }
    ctx.next();
  }

  private void authenticate(RoutingContext ctx) {
    if (identityRequired) {
      authenticateUser(ctx);
      return;
    }
    if (tokenDigest == null) {
      ctx.put(WATCH_ALL, proxies.clientIsLoopback(ctx));
      ctx.next();
      return;
    }
    String presented = presented(ctx);
    if (presented == null || !MessageDigest.isEqual(sha256(presented), tokenDigest)) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"sql-agent\"");
      refuse(ctx, 401, "unauthorized", presented == null
          ? "this service requires its API token: send \"Authorization: Bearer <token>\" (WebSocket clients of /ws and /eventbus may add ?token=<token> instead)"
          : "the API token is not valid");
      return;
    }
    ctx.put(WATCH_ALL, mayWatchAll(ctx.request().remoteAddress(), true));
    ctx.next();
  }

  /**
   * The list of runs shows people's questions: with a users file each user gets their own (the agent filters);
   * without one, only a client that may watch every run gets it.
   */
  private void mayListRuns(RoutingContext ctx) {
    if (!identityRequired && !mayWatchAll(ctx)) {
      refuse(ctx, 403, "forbidden", "listing every run is only allowed from this machine unless an API token is configured");
      return;
    }
    ctx.next();
  }

  /** The token a request carries: its bearer header, or on the sockets' paths the token query parameter. */
  private static String presented(RoutingContext ctx) {
    String presented = bearer(ctx.request().getHeader("Authorization"));
    if (presented == null && QUERY_TOKEN_ALLOWED.matcher(ctx.normalizedPath()).matches()) {
      presented = ctx.request().getParam("token");
      if (presented == null) presented = ctx.request().getParam("access_token");  // what the page sends
    }
    return presented;
  }

  /**
   * With a users file or a sign-on: the presented token names the user, whose rights then go with the request. A JWT
   * goes to the sign-on's verifier (the request waits, paused, while the issuer's keys are fetched), any other token to
   * the users file.
   */
  private void authenticateUser(RoutingContext ctx) {
    String presented = presented(ctx);
    if (oidc != null && OidcVerifier.looksLikeJwt(presented)) {
      boolean paused = !ctx.request().isEnded();
      if (paused) ctx.request().pause();
      oidc.verify(presented).onComplete(ar -> {
        if (paused && !ctx.request().isEnded()) ctx.request().resume();
        if (ar.succeeded()) {
          ctx.put(TOKEN_UNTIL, ar.result().acceptedUntil());
          admit(ctx, ar.result().user(), true);
          return;
        }
        OidcVerifier.Refused r = ar.cause() instanceof OidcVerifier.Refused x ? x
            : new OidcVerifier.Refused(401, "invalid_token", "the token could not be verified");
        if (r.status() == 401) {
          ctx.response().putHeader("WWW-Authenticate", challenge(ctx, true, "Bearer realm=\"sql-agent\", error=\"invalid_token\""));
        } else {
          ctx.response().putHeader("Retry-After", String.valueOf(RETRY_AFTER_SECONDS));
        }
        JsonErrors.send(ctx, r.status(), new JsonObject().put("ok", false)
            .put("error_type", r.status() == 401 ? "unauthorized" : "sign_on_unavailable").put("reason", r.reason())
            .put("message", r.getMessage()));
      });
      return;
    }
    User user = users.authenticate(presented).orElse(null);
    if (user == null) {
      ctx.response().putHeader("WWW-Authenticate", challenge(ctx, presented != null, "Bearer realm=\"sql-agent\""));
      String how = oidc != null ? "sign in, or send \"Authorization: Bearer <token>\" with a token from " + oidc.settings().issuer()
          : "send \"Authorization: Bearer <token>\"";
      JsonErrors.send(ctx, 401, new JsonObject().put("ok", false).put("error_type", "unauthorized")
          .put("reason", presented == null ? "no_token" : "unknown_token")
          .put("message", presented == null
              ? "this service requires your user token: " + how + " (WebSocket clients of /ws and /eventbus may add ?access_token=<token> instead)"
              : "the token is not valid"));
      return;
    }
    admit(ctx, user, false);
  }

  /**
   * A 401's {@code WWW-Authenticate}: on {@code /mcp} with a sign-on, where an MCP client finds the issuer to sign in
   * at ({@link ProtectedResource}); elsewhere {@code otherwise}.
   */
  private String challenge(RoutingContext ctx, boolean tokenRefused, String otherwise) {
    return resource != null && ProtectedResource.covers(ctx) ? resource.challenge(ctx, tokenRefused) : otherwise;
  }

  /**
   * When the token that opened this request stops being accepted: a sign-on token's expiry (plus the clock skew
   * allowed); null for a users-file or API token, which does not expire. A live socket is closed then.
   */
  public static Instant tokenUntil(RoutingContext ctx) {
    return ctx == null ? null : ctx.get(TOKEN_UNTIL);
  }

  private void admit(RoutingContext ctx, User user, boolean signedOn) {
    JsonObject refused = rowRules.refusal(user, signedOn);
    if (refused != null) {
      JsonErrors.send(ctx, 403, refused);
      return;
    }
    ctx.put(Users.CONTEXT_KEY, user);
    ctx.put(WATCH_ALL, user.admin());
    ctx.next();
  }

  private void admitAsk(RoutingContext ctx) {
    String client = proxies.clientOf(ctx);
    AtomicInteger inFlight = slots.byClient.computeIfAbsent(client, k -> new AtomicInteger());
    if (inFlight.incrementAndGet() > askPerClient) {
      inFlight.decrementAndGet();
      ctx.response().putHeader("Retry-After", String.valueOf(RETRY_AFTER_SECONDS));
      refuse(ctx, 429, "too_many_requests", "this client already has " + askPerClient + " question"
          + (askPerClient == 1 ? "" : "s") + " in progress, the most one client may have; wait for an answer, then ask again");
      return;
    }
    // Released when the response ends or the connection closes, whichever comes first (once).
    java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
    ctx.addEndHandler(ar -> {
      if (released.compareAndSet(false, true)) {
        inFlight.decrementAndGet();
        slots.byClient.computeIfPresent(client, (k, v) -> v.get() <= 0 ? null : v);
      }
    });
    ctx.next();
  }

  /** In-flight questions per client address. */
  private static final class AskSlots implements Shareable {
    final ConcurrentHashMap<String, AtomicInteger> byClient = new ConcurrentHashMap<>();
  }

  private static String bearer(String header) {
    if (header == null) return null;
    String h = header.trim();
    return h.regionMatches(true, 0, "Bearer ", 0, 7) ? h.substring(7).trim() : null;
  }

  private static void refuse(RoutingContext ctx, int status, String type, String message) {
    JsonErrors.send(ctx, status, type, message);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
