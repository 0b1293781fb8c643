package dev.sqlagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.FreePorts;
import dev.sqlagent.testing.OidcServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An MCP client signs its user in with the company's sign-on, as the MCP authorization spec describes: the official
 * TypeScript SDK's client (pinned in src/test/node/mcp-signin, installed with {@code npm ci} into target/) is given
 * nothing but the {@code /mcp} URL. The 401 names the protected-resource metadata, that names the test issuer, the
 * client registers there (or uses a pre-registered id), goes through the authorization endpoint with PKCE and the
 * resource indicator, exchanges the code and retries with the token. The issuer honours the resource indicator (the
 * token's audience is the {@code /mcp} URL), which the service is configured to accept. The tools then run as the
 * signed-in user: a database role from the token, whose row-level security policy shows only that region's rows, and
 * the run's owner is that user.
 */
class McpSignInTest {

  static final String CLAIMS = "name=preferred_username,display_name=name,role=db_role";
  static final String VISITS = "SELECT site, region FROM field_visits ORDER BY id";
  static final String REDIRECT = "http://127.0.0.1:33418/callback";
  static final Path CLIENT_SOURCE = Path.of("src/test/node/mcp-signin");
  static final Path CLIENT = Path.of("target/mcp-signin");

  static final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static final String database = "mcpauth_" + suffix;
  static final String agent = "mcpauth_agent_" + suffix;
  static final String east = "mcpauth_east_" + suffix;
  static final String west = "mcpauth_west_" + suffix;
  static final String agentPassword = GrantScript.generatePassword();

  static Vertx idpVertx;
  static OidcServer idp;
  static final OidcServer.Key key = OidcServer.newKey("k-" + UUID.randomUUID());
  static FakeModelServer model;
  static Databases dbs;
  static RunningService service;
  static int port;

  @BeforeAll
  static void start() throws Exception {
    installClient();
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
      s.execute("CREATE ROLE " + agent + " LOGIN PASSWORD '" + agentPassword + "'");
      s.execute("CREATE ROLE " + east + " NOLOGIN");
      s.execute("CREATE ROLE " + west + " NOLOGIN");
      s.execute("GRANT " + east + ", " + west + " TO " + agent);
    }
    try (Connection c = TestDatabase.get().adminConnection(database); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "REVOKE ALL ON DATABASE " + database + " FROM PUBLIC",
          "GRANT CONNECT ON DATABASE " + database + " TO " + agent,
          "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
          "CREATE TABLE field_visits (id int PRIMARY KEY, site text NOT NULL, region text NOT NULL)",
          "COMMENT ON TABLE field_visits IS 'Visits to sites, one region each'",
          "INSERT INTO field_visits VALUES (1, 'Harbour Depot', 'east'), (2, 'Canyon Yard', 'west'), (3, 'Lighthouse Point', 'east')",
          "ALTER TABLE field_visits ENABLE ROW LEVEL SECURITY",
          "CREATE POLICY east_visits ON field_visits FOR SELECT TO " + east + " USING (region = 'east')",
          "CREATE POLICY west_visits ON field_visits FOR SELECT TO " + west + " USING (region = 'west')",
          "GRANT USAGE ON SCHEMA public TO " + agent + ", " + east + ", " + west,
          "GRANT SELECT ON field_visits TO " + agent + ", " + east + ", " + west,
          "ANALYZE field_visits")) {
        s.execute(sql);
      }
    }
    idpVertx = Vertx.vertx();
    idp = OidcServer.start(idpVertx).publish(key);
    // The person the issuer signs in: Mia, whose token names the east region's database role.
    idp.signInAs(key, idp.claims("mia").put("name", "Mia East").put("db_role", east));
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql(VISITS));
    port = FreePorts.next();
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.putAll(idp.env(CLAIMS));
    env.put("SQLAGENT_DB_URL", agentUrl().withSecret());
    env.put("SQLAGENT_HTTP_PORT", String.valueOf(port));
    // The issuer puts the resource indicator in the token's audience: the service accepts its /mcp URL.
    env.put("SQLAGENT_OIDC_AUDIENCE", OidcServer.AUDIENCE + "," + mcpUrl());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    AppConfig config = AppConfig.load(env);
    dbs = Databases.open(config);
    service = RunningService.start(config, dbs.target(), dbs.state());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (dbs != null) dbs.close();
      if (model != null) model.close();
      if (idp != null) idp.close();
      if (idpVertx != null) idpVertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        for (String r : List.of(agent, east, west)) s.execute("DROP ROLE IF EXISTS " + r);
      }
    }
  }

  static PgUrl agentUrl() {
    return TestDatabase.get().adminUrl().withDatabase(database).withUser(agent, agentPassword);
  }

  static String mcpUrl() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  /** The SDK at the version the lock file pins, installed once into target/ (npm ci: exactly the locked tree). */
  static void installClient() throws Exception {
    Files.createDirectories(CLIENT);
    boolean fresh = !Files.exists(CLIENT.resolve("package-lock.json"))
        || Files.mismatch(CLIENT_SOURCE.resolve("package-lock.json"), CLIENT.resolve("package-lock.json")) != -1
        || !Files.exists(CLIENT.resolve("node_modules/@modelcontextprotocol/sdk/package.json"));
    for (String f : List.of("package.json", "package-lock.json", "signin.mjs")) {
      Files.copy(CLIENT_SOURCE.resolve(f), CLIENT.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
    if (!fresh) return;
    Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error").directory(CLIENT.toFile())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("npm ci finished").isTrue();
    assertThat(p.exitValue()).as("npm ci in " + CLIENT + ":\n" + out).isZero();
  }

  /** Runs the SDK client against /mcp with these tool calls; its lines, each a JSON object. */
  static List<JsonObject> runClient(JsonArray calls, String preRegisteredClient) throws Exception {
    List<String> command = new ArrayList<>(List.of("node", "signin.mjs", mcpUrl(), calls.encode()));
    if (preRegisteredClient != null) command.add(preRegisteredClient);
    Process p = new ProcessBuilder(command).directory(CLIENT.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("the client finished").isTrue();
    assertThat(p.exitValue()).as("the client's output:\n" + out).isZero();
    List<JsonObject> lines = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (!line.isBlank()) lines.add(new JsonObject(line));
    }
    return lines;
  }

  static List<String> events(List<JsonObject> lines) {
    return lines.stream().map(l -> l.getString("event")).toList();
  }

  static JsonObject call(List<JsonObject> lines, String tool) {
    return lines.stream().filter(l -> "call".equals(l.getString("event")) && tool.equals(l.getString("name"))).findFirst()
        .orElseThrow(() -> new AssertionError("no result of " + tool + " in " + lines));
  }

  static List<String> regions(JsonArray rows) {
    return rows.stream().map(r -> r instanceof JsonArray a ? a.getString(1) : ((JsonObject) r).getString("region")).distinct().toList();
  }

  @Test
  void theSdkClientSignsInThroughTheIssuerAndActsAsItsUser() throws Exception {
    int registered = idp.registrations.size();
    List<JsonObject> lines = runClient(new JsonArray()
        .add(new JsonArray().add("run_query").add(new JsonObject().put("sql", VISITS)))
        .add(new JsonArray().add("ask").add(new JsonObject().put("question", "Which sites were visited?"))), null);
    assertThat(events(lines)).as(lines.toString())
        .containsSubsequence("client", "authorize", "unauthorized", "tokens", "connected", "tools", "call", "call")
        .doesNotContain("failed");
    // It registered itself (RFC 7591) with its callback, and asked the issuer for a token for this /mcp: the resource
    // it read from the metadata the 401 pointed to.
    assertThat(idp.registrations).hasSize(registered + 1);
    assertThat(idp.registrations.get(registered).redirectUris()).containsExactly(REDIRECT);
    String authorize = lines.stream().filter(l -> "authorize".equals(l.getString("event"))).findFirst().orElseThrow().getString("url");
    assertThat(URLDecoder.decode(authorize, StandardCharsets.UTF_8)).contains("resource=" + mcpUrl())
        .contains("code_challenge_method=S256").contains("client_id=" + idp.registrations.get(registered).clientId());
    assertThat(idp.tokenRequests.get(idp.tokenRequests.size() - 1).verifierMatched()).isTrue();
    assertThat(lines.stream().filter(l -> "tools".equals(l.getString("event"))).findFirst().orElseThrow()
        .getJsonArray("names").getList()).contains("run_query", "ask", "list_tables");
    // The tools run as Mia: her token's database role sees the east region's rows only.
    JsonObject query = call(lines, "run_query");
    assertThat(query.getBoolean("is_error")).as(query.encode()).isFalse();
    assertThat(regions(query.getJsonObject("result").getJsonArray("rows"))).as(query.encode()).containsExactly("east");
    JsonObject ask = call(lines, "ask");
    assertThat(ask.getBoolean("is_error")).as(ask.encode()).isFalse();
    assertThat(ask.getJsonObject("result").getString("user")).as(ask.encode()).isEqualTo("mia");
    assertThat(regions(ask.getJsonObject("result").getJsonArray("rows"))).as(ask.encode()).containsExactly("east");
    assertThat(ask.encode()).doesNotContain("Canyon Yard");
  }

  @Test
  void aPreRegisteredClientSignsInWithoutRegistering() throws Exception {
    idp.preRegister("sql-agent-mcp", REDIRECT);
    int registered = idp.registrations.size();
    List<JsonObject> lines = runClient(new JsonArray()
        .add(new JsonArray().add("run_query").add(new JsonObject().put("sql", VISITS))), "sql-agent-mcp");
    assertThat(events(lines)).as(lines.toString()).containsSubsequence("authorize", "unauthorized", "tokens", "connected", "call")
        .doesNotContain("failed");
    assertThat(idp.registrations).hasSize(registered);
    assertThat(regions(call(lines, "run_query").getJsonObject("result").getJsonArray("rows"))).containsExactly("east");
  }

  @Test
  void a401FromMcpPointsToTheMetadataWhichNamesTheIssuer() throws Exception {
    String metadataUrl = "http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/mcp";
    HttpResponse<Buffer> none = service.client.post(port, "127.0.0.1", "/mcp").putHeader("Content-Type", "application/json")
        .putHeader("Accept", "application/json, text/event-stream").sendBuffer(Buffer.buffer("{}")).await(30, TimeUnit.SECONDS);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.getHeader("WWW-Authenticate")).startsWith("Bearer ").contains("resource_metadata=\"" + metadataUrl + "\"")
        .doesNotContain("error=");
    // A token that is refused: the same pointer, and why.
    String wrongAudience = OidcServer.sign(key, idp.claims("mia").put("aud", "another-app"));
    HttpResponse<Buffer> bad = service.client.post(port, "127.0.0.1", "/mcp").bearerTokenAuthentication(wrongAudience)
        .putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer("{}")).await(30, TimeUnit.SECONDS);
    assertThat(bad.statusCode()).isEqualTo(401);
    assertThat(bad.getHeader("WWW-Authenticate")).contains("error=\"invalid_token\"").contains("resource_metadata=\"" + metadataUrl + "\"");
    assertThat(bad.bodyAsJsonObject().getString("reason")).isEqualTo("wrong_audience");
    // The API's 401 is the API's: no MCP metadata there.
    HttpResponse<Buffer> api = service.client.get(port, "127.0.0.1", "/api/access").send().await(30, TimeUnit.SECONDS);
    assertThat(api.statusCode()).isEqualTo(401);
    assertThat(api.getHeader("WWW-Authenticate")).doesNotContain("resource_metadata");
    for (String path : List.of("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource")) {
      HttpResponse<Buffer> m = service.client.get(port, "127.0.0.1", path).send().await(30, TimeUnit.SECONDS);
      assertThat(m.statusCode()).as(path).isEqualTo(200);
      JsonObject doc = m.bodyAsJsonObject();
      assertThat(doc.getString("resource")).as(path).isEqualTo(mcpUrl());
      assertThat(doc.getJsonArray("authorization_servers").getList()).containsExactly(idp.issuer());
      assertThat(doc.getJsonArray("bearer_methods_supported").getList()).containsExactly("header");
      assertThat(doc.getJsonArray("scopes_supported").getList()).containsExactly("openid", "profile");
    }
  }

  /**
   * Without SQLAGENT_PUBLIC_URL the resource is the host the client asked for; a Host that is not a plain host and
   * port is not echoed (the service's own address stands in), and forwarded headers from a peer that is not a trusted
   * proxy change nothing.
   */
  @Test
  void theResourceIsTheHostAskedForAndNothingElse() throws Exception {
    assertThat(metadataVia("agent.example:8443", "")).contains("\"resource\":\"http://agent.example:8443/mcp\"");
    // Refused before it is read (400), or read and not trusted: never echoed into the metadata or a header.
    assertThat(metadataVia("agent.example\", x=\"y", "")).startsWith("HTTP/1.1 400").doesNotContain("agent.example");
    assertThat(metadataVia("agent.example;x=(y)", "")).contains("\"resource\":\"http://127.0.0.1:" + port + "/mcp\"")
        .doesNotContain("agent.example");
    assertThat(metadataVia("agent.example", "X-Forwarded-Host: evil.example\r\nX-Forwarded-Proto: https\r\n"))
        .contains("\"resource\":\"http://agent.example/mcp\"");
    String challenge = rawRequest("POST /mcp HTTP/1.1\r\nHost: agent.example:8443\r\nContent-Type: application/json\r\n"
        + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
    assertThat(challenge).startsWith("HTTP/1.1 401")
        .contains("resource_metadata=\"http://agent.example:8443/.well-known/oauth-protected-resource/mcp\"");
  }

  static String metadataVia(String host, String extraHeaders) throws Exception {
    String reply = rawRequest("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + host + "\r\n" + extraHeaders
        + "Connection: close\r\n\r\n");
    return reply;
  }

  static String rawRequest(String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      return all.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
