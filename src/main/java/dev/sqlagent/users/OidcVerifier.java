package dev.sqlagent.users;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.NoSuchKeyIdException;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SignatureException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies bearer tokens the company's sign-on issued (OpenID Connect): the issuer's keys come from its discovery
 * document's {@code jwks_uri}, fetched with the non-blocking web client (never on a blocked thread, never while a
 * request waits on the event loop). A token whose key id is not among the keys fetches them again — at most once per
 * {@link OidcSettings#keysRefetchSeconds()}, requests meanwhile sharing the one fetch — so a rotated key is picked up
 * and a flood of forged key ids costs one fetch. The signature is checked by {@code vertx-auth-jwt}; issuer,
 * audience, expiry and not-before (with the clock skew) are checked here so every refusal says exactly why.
 * Confined to the event loop of the verticle that made it.
 */
public final class OidcVerifier {

  private static final Logger LOG = LoggerFactory.getLogger(OidcVerifier.class);
  private static final int FETCH_TIMEOUT_MS = 10_000;

  /** A token refused, with the HTTP status, a short machine-readable reason and the sentence for the person. */
  public static final class Refused extends RuntimeException {
    private final int status;
    private final String reason;

    public Refused(int status, String reason, String message) {
      super(message, null, false, false);
      this.status = status;
      this.reason = reason;
    }

    public int status() {
      return status;
    }

    public String reason() {
      return reason;
    }
  }

  /** What the issuer's discovery document says the page and this verifier need. */
  public record Endpoints(String authorization, String token, String jwks) {}

  private final Vertx vertx;
  private final OidcSettings settings;
  private final WebClient web;
  private Endpoints endpoints;
  private JWTAuth keys;
  private Set<String> keyIds = Set.of();
  private long lastFetchMs = Long.MIN_VALUE / 2;
  private Future<Void> fetching;
  private String lastProblem = "its keys have not been fetched yet";

  public OidcVerifier(Vertx vertx, OidcSettings settings) {
    this.vertx = vertx;
    this.settings = settings;
    this.web = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(FETCH_TIMEOUT_MS).setFollowRedirects(true)
        .setUserAgent("sql-agent"));
  }

  public OidcSettings settings() {
    return settings;
  }

  /** Reads the discovery document and the keys; a failure is logged and retried when a token needs them. */
  public Future<Void> start() {
    return fetchKeys(false).recover(e -> Future.succeededFuture());
  }

  /** The issuer's endpoints once discovered, else null. */
  public Endpoints endpoints() {
    return endpoints;
  }

  /** Whether a presented bearer token has a JWT's shape (three dot-separated parts); users-file tokens do not. */
  public static boolean looksLikeJwt(String token) {
    if (token == null) return false;
    int first = token.indexOf('.');
    int second = first < 0 ? -1 : token.indexOf('.', first + 1);
    return first > 0 && second > first + 1 && token.indexOf('.', second + 1) < 0;
  }

  /**
   * A verified token: its user, and the moment it stops being accepted (its {@code exp} plus the clock skew allowed),
   * when a connection it opened is closed.
   */
  public record Verified(User user, Instant acceptedUntil) {}

  /** The user this token names and until when, or a failed future with {@link Refused}. */
  public Future<Verified> verify(String token) {
    JsonObject header;
    try {
      header = header(token);
      times(token);
    } catch (Refused r) {
      return Future.failedFuture(r);
    }
    String alg = header.getString("alg", "");
    if (alg.equalsIgnoreCase("none") || alg.startsWith("HS")) {
      return Future.failedFuture(new Refused(401, "unsupported_algorithm", "the token is signed with " + alg
          + "; only the issuer's public-key signatures (RS, PS, ES) are accepted"));
    }
    String kid = header.getValue("kid") instanceof String k ? k : null;
    boolean known = keys != null && (kid == null || keyIds.contains(kid));
    Future<Void> ready = known ? Future.succeededFuture() : fetchKeys(keys != null).recover(e -> Future.succeededFuture());
    return ready.compose(v -> {
      if (keys == null) {
        return Future.failedFuture(new Refused(503, "identity_provider_unavailable", "the sign-on's keys could not be "
            + "fetched from " + settings.issuer() + " (" + lastProblem + "); try again shortly"));
      }
      Future<io.vertx.ext.auth.User> signed;
      try {
        signed = keys.authenticate(new TokenCredentials(token));
      } catch (RuntimeException e) {
        signed = Future.failedFuture(e);
      }
      return signed.transform(ar -> {
        if (ar.failed()) return Future.failedFuture(signatureRefusal(ar.cause(), kid));
        JsonObject claims = ar.result().attributes().getJsonObject("accessToken", new JsonObject());
        try {
          User user = check(claims);
          long exp = ((Number) claims.getValue("exp")).longValue();
          return Future.succeededFuture(new Verified(user, Instant.ofEpochSecond(exp + settings.clockSkewSeconds())));
        } catch (Refused r) {
          return Future.failedFuture(r);
        }
      });
    });
  }

  private Refused signatureRefusal(Throwable cause, String kid) {
    if (cause instanceof NoSuchKeyIdException) {
      return new Refused(401, "unknown_key", "the token is signed with a key the issuer does not publish"
          + (kid == null ? "" : " (key id " + clip(kid) + ")"));
    }
    if (cause instanceof SignatureException) {
      return new Refused(401, "bad_signature", "the token's signature does not verify with the issuer's key");
    }
    return new Refused(401, "malformed", "the token could not be read as a signed JWT (" + clip(String.valueOf(cause.getMessage())) + ")");
  }

  /** Issuer, audience, time, then the claims' user: each refusal names what is wrong. */
  User check(JsonObject claims) {
    String iss = claims.getValue("iss") instanceof String s ? s : null;
    if (iss == null || !trimSlash(iss).equals(trimSlash(settings.issuer()))) {
      throw new Refused(401, "wrong_issuer", "the token was issued by " + (iss == null ? "no one (no iss claim)" : clip(iss))
          + ", not by " + settings.issuer());
    }
    List<String> aud = new ArrayList<>();
    Object a = claims.getValue("aud");
    if (a instanceof String s) aud.add(s);
    if (a instanceof JsonArray arr) arr.forEach(x -> aud.add(String.valueOf(x)));
    if (aud.stream().noneMatch(settings.audiences()::contains)) {
      throw new Refused(401, "wrong_audience", "the token is for " + (aud.isEmpty() ? "no audience" : "audience "
          + clip(String.join(", ", aud))) + "; this service accepts " + String.join(", ", settings.audiences()));
    }
    long now = System.currentTimeMillis() / 1000;
    long skew = settings.clockSkewSeconds();
    if (!(claims.getValue("exp") instanceof Number exp)) {
      throw new Refused(401, "no_expiry", "the token has no expiry (exp); the service accepts only tokens that expire");
    }
    if (now - skew >= exp.longValue()) {
      throw new Refused(401, "expired", "the token expired at " + Instant.ofEpochSecond(exp.longValue()) + " ("
          + (now - exp.longValue()) + " s ago; clock skew allowed " + skew + " s): sign in again");
    }
    if (claims.getValue("nbf") instanceof Number nbf && nbf.longValue() > now + skew) {
      throw new Refused(401, "not_yet_valid", "the token is not valid before " + Instant.ofEpochSecond(nbf.longValue())
          + " (clock skew allowed " + skew + " s)");
    }
    try {
      return settings.user(claims);
    } catch (IllegalArgumentException e) {
      throw new Refused(401, "unusable_claims", e.getMessage());
    }
  }

  /**
   * The keys, fetched now unless they are there ({@code again} false) or were fetched within the refetch interval
   * ({@code again} true: a token named a key id not among them). One fetch at a time; callers share it.
   */
  private Future<Void> fetchKeys(boolean again) {
    if (fetching != null) return fetching;
    long now = System.currentTimeMillis();
    if (keys != null && !again) return Future.succeededFuture();
    if (now - lastFetchMs < settings.keysRefetchSeconds() * 1000L) return Future.succeededFuture();
    lastFetchMs = now;
    Future<Endpoints> discovered = endpoints != null ? Future.succeededFuture(endpoints) : discover();
    Future<Void> f = discovered.compose(e -> getJson(e.jwks(), "the key set")).compose(jwks -> {
      JsonArray list = jwks.getValue("keys") instanceof JsonArray k ? k : null;
      if (list == null) return Future.failedFuture(new IllegalStateException("the key set at " + endpoints.jwks() + " has no \"keys\" list"));
      List<JsonObject> usable = new ArrayList<>();
      Set<String> ids = new HashSet<>();
      for (Object o : list) {
        if (!(o instanceof JsonObject jwk)) continue;
        String kty = jwk.getString("kty", "");
        if (!(kty.equals("RSA") || kty.equals("EC") || kty.equals("OKP")) || "enc".equals(jwk.getString("use"))) continue;
        usable.add(jwk);
        if (jwk.getValue("kid") instanceof String id) ids.add(id);
      }
      if (usable.isEmpty()) return Future.failedFuture(new IllegalStateException("the key set at " + endpoints.jwks() + " has no signing key"));
      // The JWT options check the signature only; issuer, audience and time are checked in check() with their reasons.
      keys = JWTAuth.create(vertx, new JWTAuthOptions().setJwks(usable).setJWTOptions(new JWTOptions().setIgnoreExpiration(true)));
      keyIds = Set.copyOf(ids);
      lastProblem = null;
      LOG.info("sign-on keys of {}: {} (key ids {})", settings.issuer(), usable.size(), ids);
      return Future.<Void>succeededFuture();
    });
    fetching = f;
    return f.onComplete(ar -> {
      fetching = null;
      if (ar.failed()) {
        lastProblem = String.valueOf(ar.cause().getMessage());
        LOG.warn("the sign-on's keys could not be fetched from {}: {}", settings.issuer(), lastProblem);
      }
    });
  }

  private Future<Endpoints> discover() {
    return getJson(settings.discoveryUrl(), "the discovery document").compose(doc -> {
      String iss = doc.getString("issuer");
      if (iss == null || !trimSlash(iss).equals(trimSlash(settings.issuer()))) {
        return Future.failedFuture(new IllegalStateException("the discovery document at " + settings.discoveryUrl()
            + " names the issuer " + iss + ", not " + settings.issuer() + " (SQLAGENT_OIDC_ISSUER must be the issuer exactly)"));
      }
      String jwks = doc.getString("jwks_uri");
      if (jwks == null) return Future.failedFuture(new IllegalStateException("the discovery document has no jwks_uri"));
      endpoints = new Endpoints(doc.getString("authorization_endpoint"), doc.getString("token_endpoint"), jwks);
      return Future.succeededFuture(endpoints);
    });
  }

  private Future<JsonObject> getJson(String url, String what) {
    return web.getAbs(url).timeout(FETCH_TIMEOUT_MS).putHeader("Accept", "application/json").send()
        .recover(e -> Future.failedFuture(new IllegalStateException(what + " at " + url + " could not be read: " + e.getMessage())))
        .compose((HttpResponse<Buffer> r) -> {
          if (r.statusCode() != 200) {
            return Future.failedFuture(new IllegalStateException(what + " at " + url + " answered HTTP " + r.statusCode()));
          }
          try {
            return Future.succeededFuture(r.bodyAsJsonObject());
          } catch (DecodeException | ClassCastException e) {
            return Future.failedFuture(new IllegalStateException(what + " at " + url + " is not a JSON object"));
          }
        });
  }

  /** The origins the page's sign-in talks to (the token endpoint), for the page's Content-Security-Policy. */
  public String connectSources() {
    Endpoints e = endpoints;
    if (e == null || e.token() == null) return "";
    try {
      URI u = URI.create(e.token());
      return u.getScheme() + "://" + u.getRawAuthority();
    } catch (IllegalArgumentException ex) {
      return "";
    }
  }

  private static JsonObject header(String token) {
    if (!looksLikeJwt(token)) throw new Refused(401, "malformed", "the bearer token is not a JWT (three dot-separated parts)");
    try {
      byte[] bytes = Base64.getUrlDecoder().decode(token.substring(0, token.indexOf('.')));
      return new JsonObject(new String(bytes, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | DecodeException | ClassCastException e) {
      throw new Refused(401, "malformed", "the token's header is not base64url-encoded JSON");
    }
  }

  /** The time claims, when present, must be numbers (the signature check reads them too). */
  private static void times(String token) {
    JsonObject payload;
    try {
      int a = token.indexOf('.');
      byte[] bytes = Base64.getUrlDecoder().decode(token.substring(a + 1, token.indexOf('.', a + 1)));
      payload = new JsonObject(new String(bytes, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | DecodeException | ClassCastException e) {
      throw new Refused(401, "malformed", "the token's claims are not base64url-encoded JSON");
    }
    for (String claim : List.of("exp", "iat", "nbf")) {
      if (payload.containsKey(claim) && !(payload.getValue(claim) instanceof Number)) {
        throw new Refused(401, "malformed", "the token's " + claim + " claim is not a number of seconds");
      }
    }
  }

  private static String trimSlash(String s) {
    return s.replaceAll("/+$", "");
  }

  /** A value from the token as a message quotes it: short, printable. */
  private static String clip(String s) {
    String p = s.replaceAll("[^\\x20-\\x7E]", "?");
    return p.length() > 80 ? p.substring(0, 80) + "…" : p;
  }
}
