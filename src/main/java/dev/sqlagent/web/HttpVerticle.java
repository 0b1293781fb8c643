package dev.sqlagent.web;

import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.access.AccessGuard;
import dev.sqlagent.access.ProtectedResource;
import dev.sqlagent.access.SignIn;
import dev.sqlagent.users.OidcVerifier;
import dev.sqlagent.agent.AgentRoutes;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.conversation.ConversationRoutes;
import dev.sqlagent.eval.EvalRoutes;
import dev.sqlagent.verified.VerifiedRoutes;
import dev.sqlagent.execution.QueryRoutes;
import dev.sqlagent.export.ExportRoutes;
import dev.sqlagent.health.HealthRoutes;
import dev.sqlagent.live.LiveRoutes;
import dev.sqlagent.mcp.McpRoutes;
import dev.sqlagent.metrics.MetricsRoutes;
import dev.sqlagent.retrieval.RetrievalRoutes;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The HTTP edge: thin routes onto event-bus addresses. */
public final class HttpVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(HttpVerticle.class);

  private final AppConfig config;
  private HttpServer server;
  private Router router;

  public HttpVerticle(AppConfig config) {
    this.config = config;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    this.router = router;
    router.route().handler(HttpVerticle::headAsGet);
    router.route().handler(HttpVerticle::wellFormedQuery);
    OidcVerifier oidc = config.oidc().map(o -> new OidcVerifier(vertx, o)).orElse(null);
    if (oidc != null) oidc.start();   // discovery and keys, in the background: a token that comes first waits for them
    AccessGuard.mount(router, vertx, config, oidc);
    SignIn.mount(router, oidc);
    ProtectedResource.mount(router, config, oidc);
    router.get("/health").handler(this::liveness);
    AgentRoutes.mount(router, vertx, config);
    RetrievalRoutes.mount(router, vertx, config);
    HealthRoutes.mount(router, vertx, config);
    MetricsRoutes.mount(router, vertx, config);
    EvalRoutes.mount(router, vertx, config);
    QueryRoutes.mount(router, vertx, config);
    McpRoutes.mount(router, vertx, config);
    LiveRoutes.mount(router, vertx, config);
    ConversationRoutes.mount(router, vertx, config);
    VerifiedRoutes.mount(router, vertx, config);
    ExportRoutes.mount(router, vertx, config);
    for (String path : POST_ONLY) router.route(path).handler(HttpVerticle::postOnly);
    Page.mount(router, oidc == null ? () -> "" : oidc::connectSources);
    router.route().last().handler(ctx -> error(ctx, 404, "not_found", "no such route: " + ctx.request().path()));
    router.route().failureHandler(HttpVerticle::failed);
    ConnectionTimeouts timeouts = new ConnectionTimeouts(vertx, config.httpHeaderTimeoutMs(), config.httpIdleTimeoutMs());
    return vertx.createHttpServer(new HttpServerOptions()
            .setHost(config.httpHost())
            .setPort(config.httpPort())
            // No h2c: with it the server waits for the first bytes to choose a protocol, and a connection that
            // sends nothing is never seen by the connection handler (so never timed out).
            .setHttp2ClearTextEnabled(false))
        .connectionHandler(timeouts::connected)
        .requestHandler(req -> {
          timeouts.request(req);
          if (wellFormedPath(req)) router.handle(req);
        })
        .listen()
        .onSuccess(s -> server = s);
  }

  /** Routes that take a POST only: any other method is told so (405, Allow: POST) rather than "no such route". */
  static final java.util.List<String> POST_ONLY = java.util.List.of("/api/ask", "/api/query", "/api/schema/refresh",
      "/api/query/export");

  private static void postOnly(RoutingContext ctx) {
    if (ctx.request().method() == io.vertx.core.http.HttpMethod.POST) {
      ctx.next();
      return;
    }
    ctx.response().putHeader("Allow", "POST");
    error(ctx, 405, "method_not_allowed", ctx.request().method() + " " + ctx.request().path()
        + " is not supported: send a POST with a JSON body");
  }

  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  /** The exact paths the router serves (routes given by a path, not a pattern), for checking what refers to them. */
  public java.util.List<String> routePaths() {
    return router == null ? java.util.List.of()
        : router.getRoutes().stream().map(io.vertx.ext.web.Route::getPath).filter(java.util.Objects::nonNull).distinct().toList();
  }

  /**
   * HEAD is answered wherever GET is (RFC 9110: the same headers, no body): routed as the GET it stands for, the
   * server leaves the body out.
   */
  private static void headAsGet(RoutingContext ctx) {
    if (ctx.request().method() == io.vertx.core.http.HttpMethod.HEAD) {
      ctx.reroute(io.vertx.core.http.HttpMethod.GET, ctx.request().uri());
      return;
    }
    ctx.next();
  }

  /**
   * What a route failed with. A body past a route's limit (declared or streamed, whichever limit) is one refusal:
   * 413 body_too_large, as the access guard answers a declared length over the general limit.
   */
  private static void failed(RoutingContext ctx) {
    if (ctx.statusCode() == 413) {
      error(ctx, 413, "body_too_large", "the request body is larger than " + ctx.request().method() + " "
          + ctx.request().path() + " accepts");
      return;
    }
    error(ctx, ctx.statusCode() < 400 ? 500 : ctx.statusCode(), "error", "the request could not be handled");
  }

  /** A malformed percent-escape ({@code ?a=%zz}) is the client's mistake: one WARN line and a JSON 400. */
  private static void wellFormedQuery(RoutingContext ctx) {
    try {
      ctx.queryParams();
    } catch (RuntimeException e) {
      LOG.warn("bad query string from {}: {}", ctx.request().remoteAddress(), String.valueOf(e.getMessage()).lines()
          .findFirst().orElse(""));
      error(ctx, 400, "bad_request", "the query string is not well formed (a '%' must start an escape like %20)");
      return;
    }
    ctx.next();
  }

  /**
   * A malformed percent-escape in the path ({@code /api/runs/%/events}) cannot be routed: the router would fail
   * while decoding it and log the stack trace. It is the client's mistake: one WARN line and a JSON 400.
   */
  private static boolean wellFormedPath(HttpServerRequest req) {
    String path = req.path();
    int bad = badEscape(path == null ? "" : path);
    if (bad < 0) return true;
    String shown = path.length() > 200 ? path.substring(0, 200) + "…" : path;
    LOG.warn("bad request path from {}: a '%' at {} does not start an escape: {}", req.remoteAddress(), bad, shown);
    JsonErrors.send(req.response(), 400, "bad_request",
        "the request path is not well formed: a '%' must start an escape like %20 (a '%' itself is %25)");
    return false;
  }

  /** The index of the first '%' not followed by two hex digits, or -1. */
  static int badEscape(String path) {
    for (int i = path.indexOf('%'); i >= 0; i = path.indexOf('%', i + 1)) {
      if (i + 2 >= path.length() || Character.digit(path.charAt(i + 1), 16) < 0 || Character.digit(path.charAt(i + 2), 16) < 0) {
        return i;
      }
    }
    return -1;
  }

  /** Liveness: the process and its event loop answer. Readiness lives at /api/health. */
  private void liveness(RoutingContext ctx) {
    ctx.json(new JsonObject().put("status", "UP"));
  }

  static void error(RoutingContext ctx, int status, String type, String message) {
    JsonErrors.send(ctx, status, type, message);
  }
}
