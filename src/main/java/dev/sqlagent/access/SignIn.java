package dev.sqlagent.access;

import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.OidcVerifier;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /auth/config}: what the page needs to sign in, open to everyone (it holds no secret): with a sign-on
 * and a public client ({@code SQLAGENT_OIDC_CLIENT_ID}), the issuer's authorization and token endpoints, the client
 * id and the scopes, for the authorization-code flow with PKCE the page runs itself; otherwise
 * {@code {"oidc": false}} and the page asks for a token as before.
 */
public final class SignIn {

  public static final String PATH = "/auth/config";

  private SignIn() {}

  public static void mount(Router router, OidcVerifier oidc) {
    router.get(PATH).handler(ctx -> config(ctx, oidc));
  }

  private static void config(RoutingContext ctx, OidcVerifier oidc) {
    ctx.response().putHeader("Cache-Control", "no-store");
    if (oidc == null || oidc.settings().clientId() == null) {
      ctx.json(new JsonObject().put("oidc", false));
      return;
    }
    // Discovered at start; when the issuer was not reachable then, it is asked again now (never more often than
    // the key refetch interval).
    (oidc.endpoints() != null ? io.vertx.core.Future.<Void>succeededFuture() : oidc.start()).onComplete(ar -> {
      OidcVerifier.Endpoints e = oidc.endpoints();
      if (e == null || e.authorization() == null || e.token() == null) {
        ctx.response().putHeader("Retry-After", String.valueOf(AccessGuard.RETRY_AFTER_SECONDS));
        JsonErrors.send(ctx, 503, "sign_on_unavailable", "the sign-on at " + oidc.settings().issuer()
            + " could not be reached to read its endpoints; try again shortly");
        return;
      }
      ctx.json(new JsonObject().put("oidc", true).put("issuer", oidc.settings().issuer())
          .put("client_id", oidc.settings().clientId()).put("scopes", oidc.settings().scopes())
          .put("authorization_endpoint", e.authorization()).put("token_endpoint", e.token()));
    });
  }
}
