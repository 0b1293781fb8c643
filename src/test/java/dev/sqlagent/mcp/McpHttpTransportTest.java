package dev.sqlagent.mcp;

import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.config.AppConfig;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.display.StepLine;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Streamable HTTP transport at {@code /mcp} of the running service, driven by the SDK's own client and
 * by plain HTTP requests (what curl or a client that takes only JSON would send).
 */
class McpHttpTransportTest {

  static RunningService service;
  static FakeModelServer model;
  static Vertx vertx;
  static MainVerticle main;
  static WebClient web;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    McpToolScenario.script(model);
    service = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    vertx = service.vertx;
    main = service.main;
    web = service.client;
  }

  @AfterAll
  static void stop() throws Exception {
    awaitRetrievalIndex(vertx);
    service.close();
    model.close();
  }
  /**
   * Waits for retrieval's background table index (RETRIEVE waits for it) before Vert.x closes: a JVM that
   * exits while ONNX is still loading the embedding model can die in native code.
   */
  static void awaitRetrievalIndex(Vertx vertx) {
    try {
      new RetrievalClient(vertx, 180_000).retrieve(new Retrieval.Request("bills", false)).await(200, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Best effort: the close below goes ahead either way.
    }
  }


  static McpSyncClient sdkClient(int port, HttpRequest.Builder request) {
    var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).endpoint("/mcp")
        .requestBuilder(request).build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
    client.initialize();
    return client;
  }

  @Test
  void theSdkClientListsTheNineToolsAndGetsToolErrorsForBadArguments() {
    McpSyncClient client = sdkClient(main.httpPort(), HttpRequest.newBuilder());
    try {
      assertThat(client.getServerInfo().name()).isEqualTo("sql-agent");
      var tools = client.listTools().tools();
      assertThat(tools).extracting(McpSchema.Tool::name)
          .containsExactly("list_tables", "describe_table", "sample_rows", "run_query", "ask", "feedback", "verify", "choose_reading",
            "export");
      assertThat(tools).allSatisfy(t -> {
        assertThat(t.description()).isNotBlank();
        // Rating and verifying write the service's own store, never the database.
        assertThat(t.annotations().readOnlyHint()).isEqualTo(!List.of("feedback", "verify").contains(t.name()));
      });

      var bad = client.callTool(new McpSchema.CallToolRequest("sample_rows", Map.of("name", "bills", "n", 50)));
      assertThat(bad.isError()).isTrue();
      assertThat(((McpSchema.TextContent) bad.content().get(0)).text()).contains("n must be a whole number from 1 to 10");
      assertThat(((Map<?, ?>) bad.structuredContent()).get("error_type")).isEqualTo("bad_argument");

      var noSql = client.callTool(new McpSchema.CallToolRequest("run_query", Map.of()));
      assertThat(noSql.isError()).isTrue();
      // The server is still there after every refusal.
      assertThat(client.listTools().tools()).hasSize(9);
    } finally {
      client.closeGracefully();
    }
  }

  @Test
  void everyToolAnswersOverHttpAndTheGateHolds() throws Exception {
    McpToolScenario.Notices notices = new McpToolScenario.Notices();
    McpAsyncClient client = notices.client(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + main.httpPort())
        .endpoint("/mcp").build());
    McpToolScenario scenario = new McpToolScenario(client, notices);
    try {
      client.initialize().block(McpToolScenario.TIMEOUT);
      scenario.runAll();
    } finally {
      client.closeGracefully().block(McpToolScenario.TIMEOUT);
    }
    // Every step the run published, and nothing else, reached the client: its events (without the model's
    // streamed tokens) worded as the progress messages were.
    var events = new AgentClient(vertx, 10_000).events(RunRequest.events(scenario.lastRunId, 0, null))
        .await(10, TimeUnit.SECONDS).events();
    assertThat(scenario.lastRunSteps).containsExactlyElementsOf(events.stream()
        // explain_sql comes after the answer, so after the tool's result: not one of the call's steps.
        .filter(e -> !e.status().equals(GraphEvent.PROGRESS) && !e.node().equals("explain_sql")).map(StepLine::of).toList());
  }

  @Test
  void aClientThatTakesOnlyJsonGetsPlainJsonReplies() throws Exception {
    var init = post(null, initialize()).await(10, TimeUnit.SECONDS);
    assertThat(init.statusCode()).isEqualTo(200);
    assertThat(init.getHeader("content-type")).startsWith("application/json");
    String session = init.getHeader("Mcp-Session-Id");
    assertThat(session).isNotBlank();
    assertThat(init.bodyAsJsonObject().getJsonObject("result").getJsonObject("serverInfo").getString("name"))
        .isEqualTo("sql-agent");

    var initialized = post(session, new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/initialized"))
        .await(10, TimeUnit.SECONDS);
    assertThat(initialized.statusCode()).isEqualTo(202);

    var list = post(session, new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/list"))
        .await(10, TimeUnit.SECONDS);
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(list.bodyAsJsonObject().getLong("id")).isEqualTo(2L);
    assertThat(list.bodyAsJsonObject().getJsonObject("result").getJsonArray("tools")).hasSize(9);

    var call = post(session, new JsonObject().put("jsonrpc", "2.0").put("id", 3).put("method", "tools/call")
        .put("params", new JsonObject().put("name", "describe_table").put("arguments", new JsonObject())))
        .await(10, TimeUnit.SECONDS);
    JsonObject result = call.bodyAsJsonObject().getJsonObject("result");
    assertThat(result.getBoolean("isError")).isTrue();
    assertThat(result.getJsonObject("structuredContent").getString("error_type")).isEqualTo("bad_argument");

    var deleted = web.delete(main.httpPort(), "127.0.0.1", "/mcp").putHeader("Mcp-Session-Id", session)
        .send().await(10, TimeUnit.SECONDS);
    assertThat(deleted.statusCode()).isEqualTo(200);
    var gone = post(session, new JsonObject().put("jsonrpc", "2.0").put("id", 4).put("method", "tools/list"))
        .await(10, TimeUnit.SECONDS);
    assertThat(gone.statusCode()).isEqualTo(404);
    assertThat(gone.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("initialize again");
  }

  @Test
  void requestsOutsideASessionAreStructuredJsonRpcErrors() throws Exception {
    var noSession = post(null, new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "tools/list"))
        .await(10, TimeUnit.SECONDS);
    assertThat(noSession.statusCode()).isEqualTo(400);
    assertThat(noSession.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("Mcp-Session-Id");

    var notJson = web.post(main.httpPort(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .sendBuffer(Buffer.buffer("DROP TABLE bills")).await(10, TimeUnit.SECONDS);
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(notJson.bodyAsJsonObject().getJsonObject("error").getInteger("code")).isEqualTo(-32700);

    var put = web.put(main.httpPort(), "127.0.0.1", "/mcp").send().await(10, TimeUnit.SECONDS);
    assertThat(put.statusCode()).isEqualTo(405);
    assertThat(put.getHeader("Allow")).isEqualTo("GET, POST, DELETE");
  }

  @Test
  void aPageFromAnotherOriginIsRefused() throws Exception {
    var foreign = web.post(main.httpPort(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .putHeader("Origin", "https://evil.example").sendJsonObject(initialize()).await(10, TimeUnit.SECONDS);
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(foreign.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden_origin");
    // Another page on this machine is another site too (SQLAGENT_ALLOWED_ORIGIN admits one: OneAccessPolicyTest).
    var otherLocal = web.post(main.httpPort(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .putHeader("Origin", "http://localhost:3000").sendJsonObject(initialize()).await(10, TimeUnit.SECONDS);
    assertThat(otherLocal.statusCode()).isEqualTo(403);
    var own = web.post(main.httpPort(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .putHeader("Origin", "http://localhost:" + main.httpPort()).sendJsonObject(initialize()).await(10, TimeUnit.SECONDS);
    assertThat(own.statusCode()).isEqualTo(200);
  }

  @Test
  void getOpensTheSessionsEventStream() throws Exception {
    String session = post(null, initialize()).await(10, TimeUnit.SECONDS).getHeader("Mcp-Session-Id");
    // The JDK's client: its response body is a stream read when we ask, so the first chunk cannot pass unseen.
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    var response = client.sendAsync(HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + main.httpPort() + "/mcp"))
            .header("Accept", "text/event-stream").header("Mcp-Session-Id", session).GET().build(),
        java.net.http.HttpResponse.BodyHandlers.ofLines()).get(10, TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
    try (var lines = response.body()) {
      String first = java.util.concurrent.CompletableFuture.supplyAsync(() -> lines.findFirst().orElse(""))
          .get(10, TimeUnit.SECONDS);
      assertThat(first).startsWith(": stream open");
    }
  }

  /** Mounted behind a bearer check (as the service does when SQLAGENT_API_TOKEN is set), every call needs it. */
  @Test
  void mountedBehindABearerCheckItNeedsTheToken() throws Exception {
    Router router = Router.router(vertx);
    router.route("/mcp*").handler(ctx -> {
      if ("Bearer s3cret".equals(ctx.request().getHeader("Authorization"))) {
        ctx.next();
      } else {
        ctx.response().setStatusCode(401).end();
      }
    });
    HttpServer[] server = new HttpServer[1];
    vertx.deployVerticle(new VerticleBase() {
      @Override
      public Future<?> start() {
        McpRoutes.mount(router, vertx, AppConfig.load(Map.of()));
        return vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").onSuccess(s -> server[0] = s);
      }
    }).await(10, TimeUnit.SECONDS);
    int port = server[0].actualPort();

    var refused = web.post(port, "127.0.0.1", "/mcp").putHeader("Accept", "application/json")
        .sendJsonObject(initialize()).await(10, TimeUnit.SECONDS);
    assertThat(refused.statusCode()).isEqualTo(401);

    McpSyncClient client = sdkClient(port, HttpRequest.newBuilder().header("Authorization", "Bearer s3cret"));
    try {
      assertThat(client.listTools().tools()).hasSize(9);
    } finally {
      client.closeGracefully();
    }
  }

  static JsonObject initialize() {
    return new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
        .put("params", new JsonObject().put("protocolVersion", "2025-06-18")
            .put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "test").put("version", "1")));
  }

  static Future<HttpResponse<Buffer>> post(String session, JsonObject body) {
    var req = web.post(main.httpPort(), "127.0.0.1", "/mcp").putHeader("Accept", "application/json");
    if (session != null) req.putHeader("Mcp-Session-Id", session);
    return req.sendJsonObject(body);
  }
}
