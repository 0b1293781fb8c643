package dev.sqlagent.access;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.users.OidcVerifier;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * With a sign-on, {@code /mcp} is an OAuth protected resource as the MCP authorization spec describes it: its metadata
 * (RFC 9728) at {@code /.well-known/oauth-protected-resource/mcp} (and at the root form, which some clients try
 * first) names the sign-on's issuer as its authorization server, and a 401 from {@code /mcp} points to that metadata
 * in {@code WWW-Authenticate}. An MCP client then finds the issuer, signs its user in there and comes back with a
 * bearer token, verified like any other (issuer, audience, expiry).
 *
 * <p>The resource's URL is {@code SQLAGENT_PUBLIC_URL} + {@code /mcp}. Unset, it is the scheme and host the request
 * came to: what a trusted proxy says the client asked for, else the request's own {@code Host}, accepted only when
 * it is a plain host and port (anything else falls back to the address the service listens on). That is the URL the
 * client used, which is what it checks the metadata's resource against; the audience a token must carry stays the
 * configured one, never a value taken from a request.
 */
public final class ProtectedResource {

  public static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";
  /** The MCP endpoint (the mcp package's route; named here too because that package depends on this one). */
  public static final String MCP_PATH = "/mcp";

  private static final Pattern AUTHORITY = Pattern.compile(
      "(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\\[[0-9A-Fa-f:.]{2,45}\\])(?::[0-9]{1,5})?");

  private final OidcVerifier oidc;
  private final Optional<String> publicUrl;
  private final TrustedProxies proxies;

  public ProtectedResource(AppConfig config, OidcVerifier oidc) {
    this.oidc = oidc;
    this.publicUrl = config.publicUrl();
    this.proxies = config.trustedProxies();
  }

  /** Serves the metadata; nothing without a sign-on (those paths are then 404 like any unknown one). */
  public static void mount(Router router, AppConfig config, OidcVerifier oidc) {
    if (oidc == null) return;
    ProtectedResource resource = new ProtectedResource(config, oidc);
    router.get(WELL_KNOWN + MCP_PATH).handler(resource::metadata);
    router.get(WELL_KNOWN).handler(resource::metadata);
  }

  /** Whether a 401 on this request's path points to the metadata. */
  static boolean covers(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    return path.equals(MCP_PATH) || path.startsWith(MCP_PATH + "/");
  }

  /**
   * The {@code WWW-Authenticate} value of a 401 from {@code /mcp}: where the metadata is, and for a token that was
   * presented and refused, {@code error="invalid_token"}.
   */
  String challenge(RoutingContext ctx, boolean tokenRefused) {
    return "Bearer realm=\"sql-agent\"" + (tokenRefused ? ", error=\"invalid_token\"" : "")
        + ", resource_metadata=\"" + base(ctx) + WELL_KNOWN + MCP_PATH + "\"";
  }

  private void metadata(RoutingContext ctx) {
    JsonArray scopes = new JsonArray();
    Arrays.stream(oidc.settings().scopes().split("\\s+")).filter(s -> !s.isEmpty()).forEach(scopes::add);
    // A public document: browser-based MCP clients read it from their own origin. Derived from the request, so no cache keeps it.
    ctx.response().putHeader("Access-Control-Allow-Origin", "*").putHeader("Cache-Control", "no-store");
    ctx.json(new JsonObject().put("resource", base(ctx) + MCP_PATH)
        .put("authorization_servers", new JsonArray().add(oidc.settings().issuer()))
        .put("bearer_methods_supported", new JsonArray().add("header"))
        .put("scopes_supported", scopes)
        .put("resource_name", "sql-agent"));
  }

  /** The service's URL as its clients reach it, without a trailing slash (see the class comment). */
  String base(RoutingContext ctx) {
    if (publicUrl.isPresent()) return publicUrl.get();
    String scheme = ctx.request().isSSL() ? "https" : "http";
    TrustedProxies.Origin forwarded = proxies.forwardedOrigin(ctx.request().remoteAddress(), ctx.request().headers());
    if (forwarded != null && AUTHORITY.matcher(forwarded.host()).matches()) {
      return (forwarded.proto() == null ? scheme : forwarded.proto()) + "://" + forwarded.host();
    }
    HostAndPort asked = ctx.request().authority();
    if (asked != null) {
      String authority = hostPort(asked.host(), asked.port());
      if (AUTHORITY.matcher(authority).matches()) return scheme + "://" + authority.toLowerCase(Locale.ROOT);
    }
    var local = ctx.request().localAddress();
    return scheme + "://" + hostPort(local.hostAddress(), local.port());
  }

  private static String hostPort(String host, int port) {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return port > 0 ? h + ":" + port : h;
  }
}
