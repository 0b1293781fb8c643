package dev.sqlagent.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.users.OidcVerifier;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SQLAGENT_PUBLIC_URL names the MCP resource whatever host a request came to (a path prefix included, as behind a
 * proxy that serves the service under one), in the metadata and in the 401's pointer to it; a value that is not such a
 * URL stops the start with the key's name. The guard and the metadata on a router of their own, as the HTTP verticle
 * mounts them; the issuer is never asked (no token is verified here).
 */
class ProtectedResourceTest {

  static final String ISSUER = "https://login.example.com/realms/acme";

  Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  static AppConfig config(String publicUrl) {
    Map<String, String> env = new HashMap<>(Map.of("SQLAGENT_OIDC_ISSUER", ISSUER, "SQLAGENT_OIDC_AUDIENCE", "sql-agent",
        "SQLAGENT_OIDC_SCOPES", "openid sql-agent"));
    if (publicUrl != null) env.put("SQLAGENT_PUBLIC_URL", publicUrl);
    return AppConfig.load(env);
  }

  int serve(AppConfig config) throws Exception {
    Router router = Router.router(vertx);
    OidcVerifier oidc = config.oidc().map(o -> new OidcVerifier(vertx, o)).orElse(null);
    AccessGuard.mount(router, vertx, config, oidc);
    ProtectedResource.mount(router, config, oidc);
    router.route("/mcp").handler(ctx -> ctx.response().end("reached"));
    HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
    return server.actualPort();
  }

  @Test
  void thePublicUrlNamesTheResourceWhateverTheHost() throws Exception {
    int port = serve(config("https://intranet.example.com/sql-agent/"));
    WebClient web = WebClient.create(vertx);
    HttpResponse<Buffer> m = web.get(port, "127.0.0.1", "/.well-known/oauth-protected-resource/mcp").send().await(30, TimeUnit.SECONDS);
    assertThat(m.statusCode()).isEqualTo(200);
    JsonObject doc = m.bodyAsJsonObject();
    assertThat(doc.getString("resource")).isEqualTo("https://intranet.example.com/sql-agent/mcp");
    assertThat(doc.getJsonArray("authorization_servers").getList()).containsExactly(ISSUER);
    assertThat(doc.getJsonArray("scopes_supported").getList()).containsExactly("openid", "sql-agent");
    assertThat(m.getHeader("Cache-Control")).isEqualTo("no-store");
    HttpResponse<Buffer> denied = web.post(port, "127.0.0.1", "/mcp").putHeader("Content-Type", "application/json")
        .sendBuffer(Buffer.buffer("{}")).await(30, TimeUnit.SECONDS);
    assertThat(denied.statusCode()).isEqualTo(401);
    assertThat(denied.getHeader("WWW-Authenticate"))
        .isEqualTo("Bearer realm=\"sql-agent\", resource_metadata=\"https://intranet.example.com/sql-agent/.well-known/oauth-protected-resource/mcp\"");
    // A users-file-style token that is not known: refused as an invalid token, with the same pointer.
    HttpResponse<Buffer> unknown = web.post(port, "127.0.0.1", "/mcp").bearerTokenAuthentication("not-a-jwt")
        .putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer("{}")).await(30, TimeUnit.SECONDS);
    assertThat(unknown.getHeader("WWW-Authenticate")).contains("error=\"invalid_token\"")
        .contains("resource_metadata=\"https://intranet.example.com/sql-agent/.well-known/oauth-protected-resource/mcp\"");
  }

  @Test
  void withoutASignOnThereIsNoMetadataAndNoPointer() throws Exception {
    int port = serve(AppConfig.load(Map.of("SQLAGENT_API_TOKEN", "t0ken", "SQLAGENT_PUBLIC_URL", "https://agent.example.com")));
    WebClient web = WebClient.create(vertx);
    assertThat(web.get(port, "127.0.0.1", "/.well-known/oauth-protected-resource/mcp").send().await(30, TimeUnit.SECONDS)
        .statusCode()).isEqualTo(404);
    HttpResponse<Buffer> denied = web.post(port, "127.0.0.1", "/mcp").sendBuffer(Buffer.buffer("{}")).await(30, TimeUnit.SECONDS);
    assertThat(denied.statusCode()).isEqualTo(401);
    assertThat(denied.getHeader("WWW-Authenticate")).isEqualTo("Bearer realm=\"sql-agent\"");
  }

  @Test
  void aPublicUrlThatIsNotOneStopsTheStart() {
    for (String bad : new String[] {"agent.example.com", "ftp://agent.example.com", "https://agent.example.com/?a=b",
        "https://agent.example.com/#top", "https://user@agent.example.com"}) {
      assertThatThrownBy(() -> config(bad)).as(bad).isInstanceOf(ConfigException.class)
          .hasMessageContaining("SQLAGENT_PUBLIC_URL=" + bad);
    }
    assertThat(config("https://agent.example.com:8443").publicUrl()).contains("https://agent.example.com:8443");
  }
}
