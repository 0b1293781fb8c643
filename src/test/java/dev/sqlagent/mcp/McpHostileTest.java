package dev.sqlagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.NoInternals;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, items 2 and 3: every malformed MCP message in the corpus {@code hostile/mcp.jsonl} with an id
 * gets exactly one JSON-RPC response, promptly, with the expected code and a message that names no Java
 * class; the server keeps answering well-formed requests afterwards.
 */
class McpHostileTest {

  static RunningService service;
  static String session;

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of("SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1", "SQLAGENT_ANSWER_SUMMARY", "plain"));
    HttpResponse<Buffer> init = post(null, "json", McpHttpTransportTest.initialize().encode());
    assertThat(init.statusCode()).as(init.bodyAsString()).isEqualTo(200);
    session = init.getHeader("Mcp-Session-Id");
    post(session, "json", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  }

  @AfterAll
  static void stop() throws Exception {
    McpHttpTransportTest.awaitRetrievalIndex(service.vertx);
    service.close();
  }

  static HttpResponse<Buffer> post(String session, String accept, String body) throws Exception {
    var req = service.client.post(service.port(), "127.0.0.1", "/mcp").putHeader("Content-Type", "application/json")
        .putHeader("Accept", accept.equals("sse") ? "application/json, text/event-stream" : "application/json");
    if (session != null) req.putHeader("Mcp-Session-Id", session);
    return req.sendBuffer(Buffer.buffer(body)).await(15, TimeUnit.SECONDS);
  }

  /** The JSON-RPC messages of a response: one JSON body, or the data of each SSE event. */
  static List<JsonObject> messages(HttpResponse<Buffer> r) {
    List<JsonObject> out = new ArrayList<>();
    String body = r.bodyAsString();
    if (body == null || body.isBlank()) return out;
    String type = String.valueOf(r.getHeader("content-type"));
    if (type.startsWith("text/event-stream")) {
      for (String line : body.split("\n")) {
        if (line.startsWith("data: ")) out.add(new JsonObject(line.substring(6)));
      }
    } else {
      out.add(new JsonObject(body));
    }
    return out;
  }

  @Test
  void everyMessageInTheCorpusGetsExactlyOnePlainAnswer() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("src/test/resources/hostile/mcp.jsonl"), StandardCharsets.UTF_8);
    assertThat(lines).hasSizeGreaterThan(40);
    for (String line : lines) {
      if (line.isBlank()) continue;
      JsonObject c = new JsonObject(line);
      String label = c.getString("id");
      long t0 = System.nanoTime();
      HttpResponse<Buffer> r = post(c.getBoolean("session") ? session : null, c.getString("accept"), c.getString("body"));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(ms).as(label + " answered in ms").isLessThan(10_000);
      NoInternals.assertNone(r.bodyAsString());
      List<JsonObject> answers = messages(r);
      Object sentId = null;
      try {
        Object parsed = Json.decodeValue(c.getString("body"));
        if (parsed instanceof JsonObject o) sentId = o.getValue("id");
      } catch (RuntimeException notJson) {
        sentId = null;
      }
      Object idOfSent = sentId;
      List<JsonObject> responses = answers.stream().filter(m -> m.containsKey("result") || m.containsKey("error")).toList();
      assertThat(responses).as(label + ": " + r.statusCode() + " " + r.bodyAsString()).hasSize(1);
      JsonObject answer = responses.get(0);
      Object expected = c.getValue("code");
      if ("result".equals(expected)) {
        assertThat(answer.containsKey("result")).as(label + ": " + answer.encode()).isTrue();
      } else if (expected instanceof Number code) {
        assertThat(answer.getJsonObject("error")).as(label + ": " + answer.encode()).isNotNull();
        assertThat(answer.getJsonObject("error").getInteger("code")).as(label + ": " + answer.encode())
            .isEqualTo(code.intValue());
        assertThat(answer.getJsonObject("error").getString("message")).as(label).isNotBlank();
      }
      if (idOfSent instanceof String || idOfSent instanceof Number) {
        assertThat(String.valueOf(answer.getValue("id"))).as(label).isEqualTo(String.valueOf(idOfSent));
      }
    }
    // Still serving.
    HttpResponse<Buffer> list = post(session, "json", "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"tools/list\"}");
    assertThat(new JsonObject(list.bodyAsString()).getJsonObject("result").getJsonArray("tools")).hasSize(9);
  }
}
