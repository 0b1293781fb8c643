package dev.sqlagent.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small OpenID Connect issuer on loopback for tests: the discovery document, a key set the test changes (key
 * rotation), tokens signed in the test with generated RSA keys, and for the page's sign-in an authorize endpoint
 * that signs the configured person in at once and redirects back with a code, and a token endpoint that gives the
 * tokens only for the PKCE verifier that matches the code's challenge. For MCP clients also dynamic client
 * registration (RFC 7591: public clients, redirect URIs checked exactly) and resource indicators (RFC 8707): a
 * {@code resource} named at the authorize endpoint must be named again at the token endpoint and becomes the
 * token's audience, as an issuer that honours them does.
 */
public final class OidcServer implements AutoCloseable {

  public static final String CLIENT_ID = "sql-agent-page";
  public static final String AUDIENCE = "sql-agent";

  /** A signing key and its key id. */
  public record Key(String kid, KeyPair pair) {
    public JsonObject jwk() {
      RSAPublicKey pub = (RSAPublicKey) pair.getPublic();
      return new JsonObject().put("kty", "RSA").put("use", "sig").put("alg", "RS256").put("kid", kid)
          .put("n", b64(unsigned(pub.getModulus()))).put("e", b64(unsigned(pub.getPublicExponent())));
    }
  }

  /** What the token endpoint was asked, and whether the verifier matched. */
  public record TokenRequest(String code, String verifier, boolean verifierMatched) {}

  /** A client registered at the registration endpoint: its id and the redirect URIs it may use. */
  public record Registration(String clientId, List<String> redirectUris) {}

  private final HttpServer server;
  private final List<JsonObject> published = new CopyOnWriteArrayList<>();
  private final AtomicInteger jwksFetches = new AtomicInteger();
  private final AtomicInteger discoveryFetches = new AtomicInteger();
  private final Map<String, JsonObject> codes = new ConcurrentHashMap<>();
  public final List<TokenRequest> tokenRequests = new CopyOnWriteArrayList<>();
  public final List<String> authorizeRequests = new CopyOnWriteArrayList<>();
  public final List<Registration> registrations = new CopyOnWriteArrayList<>();
  private final Map<String, Registration> clients = new ConcurrentHashMap<>();
  private volatile Key signingKey;
  private volatile JsonObject signInClaims = new JsonObject();
  private volatile long tokenLifetimeSeconds = 300;

  private OidcServer(HttpServer server) {
    this.server = server;
  }

  /** Starts on a free loopback port (blocking; from a test thread). */
  public static OidcServer start(Vertx vertx) throws Exception {
    Router router = Router.router(vertx);
    OidcServer[] self = new OidcServer[1];
    router.get("/realms/test/.well-known/openid-configuration").handler(ctx -> self[0].discovery(ctx));
    router.get("/jwks").handler(ctx -> {
      self[0].jwksFetches.incrementAndGet();
      ctx.json(new JsonObject().put("keys", new JsonArray(List.copyOf(self[0].published))));
    });
    router.get("/authorize").handler(ctx -> self[0].authorize(ctx));
    router.post("/token").handler(BodyHandler.create(false).setBodyLimit(16_384)).handler(ctx -> self[0].token(ctx));
    router.post("/register").handler(BodyHandler.create(false).setBodyLimit(16_384)).handler(ctx -> self[0].register(ctx));
    HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
    self[0] = new OidcServer(server);
    return self[0];
  }

  public int port() {
    return server.actualPort();
  }

  public String issuer() {
    return "http://127.0.0.1:" + port() + "/realms/test";
  }

  /** The service's settings for this issuer ({@code claims} as SQLAGENT_OIDC_CLAIMS, or null for the default). */
  public Map<String, String> env(String claims) {
    Map<String, String> env = new java.util.HashMap<>(Map.of("SQLAGENT_OIDC_ISSUER", issuer(), "SQLAGENT_OIDC_AUDIENCE", AUDIENCE,
        "SQLAGENT_OIDC_CLIENT_ID", CLIENT_ID, "SQLAGENT_OIDC_KEYS_REFETCH_S", "2"));
    if (claims != null) env.put("SQLAGENT_OIDC_CLAIMS", claims);
    return env;
  }

  public static Key newKey(String kid) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return new Key(kid, g.generateKeyPair());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The key set served from now on. */
  public OidcServer publish(Key... keys) {
    published.clear();
    for (Key k : keys) published.add(k.jwk());
    return this;
  }

  public int jwksFetches() {
    return jwksFetches.get();
  }

  public int discoveryFetches() {
    return discoveryFetches.get();
  }

  /** Claims valid for five minutes: this issuer, the service's audience, the user's name and any extra ones. */
  public JsonObject claims(String user) {
    long now = System.currentTimeMillis() / 1000;
    return new JsonObject().put("iss", issuer()).put("aud", AUDIENCE).put("sub", UUID.randomUUID().toString())
        .put("preferred_username", user).put("iat", now).put("exp", now + 300);
  }

  /** A compact JWS (RS256) of these claims with this key. */
  public static String sign(Key key, JsonObject claims) {
    JsonObject header = new JsonObject().put("alg", "RS256").put("typ", "JWT");
    if (key.kid() != null) header.put("kid", key.kid());
    String input = b64(header.encode().getBytes(StandardCharsets.UTF_8)) + "." + b64(claims.encode().getBytes(StandardCharsets.UTF_8));
    try {
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initSign(key.pair().getPrivate());
      s.update(input.getBytes(StandardCharsets.US_ASCII));
      return input + "." + b64(s.sign());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Who the authorize endpoint signs in (the claims of the tokens it then gives) and with which key. */
  /**
   * The tokens the token endpoint issues from now on expire this many seconds after they are issued (300 unless set;
   * below zero for one already expired, which a service still accepts within its clock skew).
   */
  public OidcServer tokenLifetime(long seconds) {
    this.tokenLifetimeSeconds = seconds;
    return this;
  }

  public OidcServer signInAs(Key key, JsonObject claims) {
    this.signingKey = key;
    this.signInClaims = claims.copy();
    return this;
  }

  private void discovery(RoutingContext ctx) {
    discoveryFetches.incrementAndGet();
    String base = "http://127.0.0.1:" + port();
    ctx.json(new JsonObject().put("issuer", issuer()).put("jwks_uri", base + "/jwks")
        .put("authorization_endpoint", base + "/authorize").put("token_endpoint", base + "/token")
        .put("registration_endpoint", base + "/register")
        .put("response_types_supported", new JsonArray().add("code"))
        .put("grant_types_supported", new JsonArray().add("authorization_code"))
        .put("subject_types_supported", new JsonArray().add("public"))
        .put("id_token_signing_alg_values_supported", new JsonArray().add("RS256"))
        .put("token_endpoint_auth_methods_supported", new JsonArray().add("none"))
        .put("code_challenge_methods_supported", new JsonArray().add("S256")));
  }

  /** A client registered in advance (as an administrator does at an issuer without dynamic registration). */
  public OidcServer preRegister(String clientId, String redirectUri) {
    clients.put(clientId, new Registration(clientId, List.of(redirectUri)));
    return this;
  }

  /** RFC 7591: a public client (no secret) with the redirect URIs it names; they must be http(s) URLs. */
  private void register(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (RuntimeException e) {
      body = null;
    }
    JsonArray uris = body == null ? null : body.getJsonArray("redirect_uris");
    if (uris == null || uris.isEmpty() || uris.stream().anyMatch(u -> !(u instanceof String x) || !x.matches("https?://.+"))) {
      ctx.response().setStatusCode(400).putHeader("content-type", "application/json")
          .end(new JsonObject().put("error", "invalid_redirect_uri").encode());
      return;
    }
    Registration r = new Registration("client-" + UUID.randomUUID(), uris.stream().map(String::valueOf).toList());
    clients.put(r.clientId(), r);
    registrations.add(r);
    ctx.response().setStatusCode(201).putHeader("content-type", "application/json").end(new JsonObject()
        .put("client_id", r.clientId()).put("client_id_issued_at", System.currentTimeMillis() / 1000)
        .put("redirect_uris", new JsonArray(r.redirectUris())).put("token_endpoint_auth_method", "none")
        .put("grant_types", new JsonArray().add("authorization_code")).put("response_types", new JsonArray().add("code"))
        .put("client_name", body.getString("client_name", "")).encode());
  }

  /** The page's client may use any redirect URI; a registered one only those it registered. */
  private boolean mayUse(String clientId, String redirect) {
    if (CLIENT_ID.equals(clientId)) return true;
    Registration r = clientId == null ? null : clients.get(clientId);
    return r != null && r.redirectUris().contains(redirect);
  }

  private void authorize(RoutingContext ctx) {
    authorizeRequests.add(ctx.request().uri());
    String redirect = ctx.request().getParam("redirect_uri");
    String challenge = ctx.request().getParam("code_challenge");
    String client = ctx.request().getParam("client_id");
    if (redirect == null || !mayUse(client, redirect) || challenge == null
        || !"S256".equals(ctx.request().getParam("code_challenge_method")) || !"code".equals(ctx.request().getParam("response_type"))) {
      ctx.response().setStatusCode(400).end("bad authorization request");
      return;
    }
    String code = UUID.randomUUID().toString();
    JsonObject grant = new JsonObject().put("challenge", challenge).put("redirect_uri", redirect).put("client_id", client);
    String resource = ctx.request().getParam("resource");
    if (resource != null) grant.put("resource", resource);
    codes.put(code, grant);
    String state = ctx.request().getParam("state");
    ctx.redirect(redirect + (redirect.contains("?") ? "&" : "?") + "code=" + code
        + (state == null ? "" : "&state=" + java.net.URLEncoder.encode(state, StandardCharsets.UTF_8)));
  }

  private void token(RoutingContext ctx) {
    ctx.response().putHeader("Access-Control-Allow-Origin", "*").putHeader("Cache-Control", "no-store");
    String code = ctx.request().getFormAttribute("code");
    String verifier = ctx.request().getFormAttribute("code_verifier");
    JsonObject grant = code == null ? null : codes.remove(code);
    boolean matched = grant != null && verifier != null && b64(sha256(verifier)).equals(grant.getString("challenge"))
        && grant.getString("redirect_uri").equals(ctx.request().getFormAttribute("redirect_uri"))
        && "authorization_code".equals(ctx.request().getFormAttribute("grant_type"))
        && grant.getString("client_id").equals(ctx.request().getFormAttribute("client_id"))
        && java.util.Objects.equals(grant.getString("resource"), ctx.request().getFormAttribute("resource"));
    tokenRequests.add(new TokenRequest(code, verifier, matched));
    if (!matched) {
      ctx.response().setStatusCode(400).putHeader("content-type", "application/json")
          .end(new JsonObject().put("error", "invalid_grant").encode());
      return;
    }
    JsonObject claims = signInClaims.copy();
    if (grant.getString("resource") != null) claims.put("aud", grant.getString("resource"));
    long now = System.currentTimeMillis() / 1000;
    long lifetime = tokenLifetimeSeconds;
    claims.put("iat", now).put("exp", now + lifetime);
    String token = sign(signingKey, claims);
    ctx.json(new JsonObject().put("access_token", token).put("token_type", "Bearer").put("expires_in", Math.max(0, lifetime))
        .put("id_token", token));
  }

  static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.US_ASCII));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static byte[] unsigned(BigInteger n) {
    byte[] b = n.toByteArray();
    return b.length > 1 && b[0] == 0 ? java.util.Arrays.copyOfRange(b, 1, b.length) : b;
  }

  @Override
  public void close() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }
}
