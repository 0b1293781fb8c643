package dev.sqlagent.access;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.network.TrustedProxies;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses browser upgrades and SockJS requests coming from another site's page (cross-site WebSocket
 * hijacking). Allowed: the configured origin ({@code SQLAGENT_ALLOWED_ORIGIN}) and the service's own
 * origin — built from the bound host and port, not from the Host header, so DNS rebinding does not pass.
 * Behind a trusted proxy ({@code SQLAGENT_TRUSTED_PROXIES}) the own origin is also the scheme and host the proxy
 * says the browser asked for ({@code Forwarded} or {@code X-Forwarded-Proto} / {@code -Host}); from any other peer
 * those headers change nothing. A request without an Origin header is not from a browser page and passes. The access guard mounts it on
 * the POST routes of {@code /api}, on {@code /ws}, {@code /eventbus} and {@code /mcp}.
 */
public final class OriginGuard implements Handler<RoutingContext> {

  private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1");
  private static final Set<String> WILDCARD_HOSTS = Set.of("0.0.0.0", "::", "[::]");

  private final String configured;
  private final String host;
  private final TrustedProxies proxies;

  public OriginGuard(AppConfig config) {
    this.configured = config.allowedOrigin().orElse(null);
    this.host = config.httpHost().toLowerCase(Locale.ROOT);
    this.proxies = config.trustedProxies();
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
    TrustedProxies.Origin forwarded = proxies.forwardedOrigin(ctx.request().remoteAddress(), ctx.request().headers());
    if (forwarded != null) {
      String s = forwarded.proto() != null ? forwarded.proto() : scheme;
      String h = forwarded.host();
      // Browsers leave the default port out of the Origin header; a proxy may leave it in.
      if (s.equals("https") && h.endsWith(":443") || s.equals("http") && h.endsWith(":80")) h = h.substring(0, h.lastIndexOf(':'));
      if (origin.equals(s + "://" + h)) return true;
    }
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
