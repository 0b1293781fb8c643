package dev.sqlagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.TestDatabase;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code sql-agent mcp} as an MCP client launches it: a subprocess speaking JSON-RPC on stdin/stdout, set up
 * on the test database (SQLAGENT_DB_URL and SQLAGENT_HOME point at it, so setup is not run again).
 */
class McpStdioTest {

  static List<String> command() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return List.of(java, "-Xmx512m", "-cp", classpath, "dev.sqlagent.cli.Main", "mcp");
  }

  static FakeModelServer model;

  @BeforeAll
  static void startModel() {
    model = FakeModelServer.start();
    McpToolScenario.script(model);
  }

  @AfterAll
  static void stopModel() {
    model.close();
  }

  static Map<String, String> env() {
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    return TestDatabase.get().env(env);
  }

  @Test
  void theSdkClientUsesEveryToolOverStdio() {
    List<String> cmd = command();
    ServerParameters params = ServerParameters.builder(cmd.get(0)).args(cmd.subList(1, cmd.size())).env(env()).build();
    StdioClientTransport transport = new StdioClientTransport(params, DatabaseMcpServer.jsonMapper());
    ConcurrentLinkedQueue<String> stderr = new ConcurrentLinkedQueue<>();
    transport.setStdErrorHandler(stderr::add);
    McpToolScenario.Notices notices = new McpToolScenario.Notices();
    McpAsyncClient client = notices.client(transport);
    try {
      client.initialize().block(Duration.ofSeconds(120));
      assertThat(client.getServerInfo().name()).isEqualTo("sql-agent");
      assertThat(client.listTools().block(McpToolScenario.TIMEOUT).tools()).extracting(McpSchema.Tool::name)
          .containsExactly("list_tables", "describe_table", "sample_rows", "run_query", "ask", "feedback", "verify", "choose_reading",
            "export");

      var bad = client.callTool(new McpSchema.CallToolRequest("ask", Map.of("question", "x".repeat(2_001))))
          .block(McpToolScenario.TIMEOUT);
      assertThat(bad.isError()).isTrue();
      assertThat(((McpSchema.TextContent) bad.content().get(0)).text()).contains("the limit is 2000");

      new McpToolScenario(client, notices).runAll();
    } finally {
      client.closeGracefully().block(Duration.ofSeconds(30));
    }
    assertThat(String.join("\n", stderr)).contains("MCP server on stdio ready");
  }

  /** Nothing but JSON-RPC on stdout (logs go to stderr), and closing stdin ends the process cleanly. */
  @Test
  void stdoutCarriesOnlyTheProtocolAndClosingStdinEndsTheProcess() throws Exception {
    Path stderr = Files.createTempFile("mcp-stderr", ".log");
    ProcessBuilder pb = new ProcessBuilder(command()).redirectError(stderr.toFile());
    pb.environment().putAll(env());
    Process p = pb.start();
    try {
      OutputStream in = p.getOutputStream();
      send(in, new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
          .put("params", new JsonObject().put("protocolVersion", "2024-11-05").put("capabilities", new JsonObject())
              .put("clientInfo", new JsonObject().put("name", "raw").put("version", "1"))));
      send(in, new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
      send(in, new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/list"));
      send(in, new JsonObject().put("jsonrpc", "2.0").put("id", 3).put("method", "tools/call")
          .put("params", new JsonObject().put("name", "sample_rows").put("arguments", new JsonObject().put("name", "bills").put("n", 0))));
      // ask waits for retrieval's table index: the process is then fully up when stdin closes.
      send(in, new JsonObject().put("jsonrpc", "2.0").put("id", 4).put("method", "tools/call")
          .put("params", new JsonObject().put("name", "ask").put("arguments", new JsonObject().put("question", "How many bills?"))));

      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      List<JsonObject> replies = new ArrayList<>();
      while (replies.size() < 4) {
        String line = out.readLine();
        assertThat(line).as("stdout ended early; stderr:\n%s", Files.readString(stderr)).isNotNull();
        JsonObject message = new JsonObject(line);  // anything that is not JSON fails here
        assertThat(message.getString("jsonrpc")).isEqualTo("2.0");
        if (message.containsKey("id")) replies.add(message);
      }
      replies.sort(java.util.Comparator.comparing(r -> r.getInteger("id")));
      assertThat(replies).extracting(r -> r.getInteger("id")).containsExactly(1, 2, 3, 4);
      assertThat(replies.get(1).getJsonObject("result").getJsonArray("tools")).hasSize(9);
      JsonObject call = replies.get(2).getJsonObject("result");
      assertThat(call.getBoolean("isError")).isTrue();
      assertThat(call.getJsonObject("structuredContent").getString("message")).contains("n must be a whole number from 1 to 10");
      JsonObject answer = replies.get(3).getJsonObject("result");
      assertThat(answer.getBoolean("isError")).isFalse();
      assertThat(answer.getJsonObject("structuredContent").getString("sql")).containsIgnoringCase("FROM bills");

      in.close();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the process ends when stdin closes").isTrue();
      assertThat(p.exitValue()).isZero();
      assertThat(out.readLine()).isNull();
      assertThat(Files.readString(stderr)).contains("stdin closed");
    } finally {
      p.destroyForcibly();
    }
  }

  private static void send(OutputStream in, JsonObject message) throws Exception {
    in.write((message.encode() + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * With no model server named and a GGUF to serve, {@code mcp} serves it from a child process as serve does (its
   * ask tool needs a model), speaks the protocol meanwhile, and ends cleanly when the client closes stdin.
   */
  @Test
  void aLocalModelIsServedForTheAskTool(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    Path gguf = Files.write(tmp.resolve("tiny.gguf"),
        dev.sqlagent.localmodel.GgufFiles.header("llama", 15, 2048, true, new long[] {64, 256}));
    Map<String, String> env = TestDatabase.get().env(Map.of("SQLAGENT_LLM_MODEL_PATH", gguf.toString(),
        "SQLAGENT_HOME", Files.createDirectories(tmp.resolve("home")).toString()));
    ProcessBuilder pb = new ProcessBuilder(command()).redirectError(tmp.resolve("stderr.log").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("SQLAGENT_"));
    pb.environment().putAll(env);
    Process mcp = pb.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      String err = "";
      while (System.nanoTime() < deadline && mcp.isAlive() && !err.contains("MCP server on stdio ready")) {
        Thread.sleep(300);
        err = Files.readString(tmp.resolve("stderr.log"));
      }
      assertThat(err).contains("served by a child process", "MCP server on stdio ready");
      assertThat(tmp.resolve("home").resolve("local-model.log")).exists();
      mcp.getOutputStream().close();
      assertThat(mcp.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(mcp.exitValue()).isZero();
    } finally {
      mcp.destroyForcibly();
    }
  }
}
