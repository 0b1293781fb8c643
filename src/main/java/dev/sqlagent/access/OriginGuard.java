package dev.sqlagent.access;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses browser upgrades and SockJS requests coming from another site's page (cross-site WebSocket
 * hijacking). Allowed: the configured origin ({@code SQLAGENT_ALLOWED_ORIGIN}) and the service's own
 * origin — built from the bound host and port, not from the Host header, so DNS rebinding does not pass.
 * A request without an Origin header is not from a browser page and passes. The access guard mounts it on
 * the POST routes of {@code /api}, on {@code /ws}, {@code /eventbus} and {@code /mcp}.
 */
public final class OriginGuard implements Handler<RoutingContext> {

  private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1");
  private static final Set<String> WILDCARD_HOSTS = Set.of("0.0.0.0", "::", "[::]");

  private final String configured;
  private final String host;

  public OriginGuard(AppConfig config) {
    this.configured = config.allowedOrigin().orElse(null);
    this.host = config.httpHost().toLowerCase(Locale.ROOT);
  }

  @Override
  public void handle(RoutingContext ctx) {
    String origin = ctx.request().getHeader("Origin");
    if (origin == null || allowed(origin.toLowerCase(Locale.ROOT).replaceAll("/+$", ""), ctx)) {
      ctx.next();
      return;
    }
    JsonErrors.send(ctx, 403, "forbidden_origin",
        "a page from " + origin + " may not use this service; set SQLAGENT_ALLOWED_ORIGIN to allow it");
  }

  private boolean allowed(String origin, RoutingContext ctx) {
    if (origin.equals(configured)) return true;
    String scheme = ctx.request().isSSL() ? "https" : "http";
    int port = ctx.request().localAddress() == null ? -1 : ctx.request().localAddress().port();
    if (LOOPBACK_NAMES.contains(host)) {
      return same(origin, scheme, "localhost", port) || same(origin, scheme, "127.0.0.1", port)
          || same(origin, scheme, "[::1]", port);
    }
    if (WILDCARD_HOSTS.contains(host)) {
      // Bound everywhere: the own origin is whatever name the browser used to reach this server.
      String hostHeader = ctx.request().getHeader("Host");
      return hostHeader != null && origin.equals(scheme + "://" + hostHeader.toLowerCase(Locale.ROOT));
    }
    return same(origin, scheme, host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host, port);
  }

  /** Browsers leave the default port out of the Origin header. */
  private static boolean same(String origin, String scheme, String host, int port) {
    if (origin.equals(scheme + "://" + host + ":" + port)) return true;
    boolean defaultPort = ("http".equals(scheme) && port == 80) || ("https".equals(scheme) && port == 443);
    return defaultPort && origin.equals(scheme + "://" + host);
  }
}
