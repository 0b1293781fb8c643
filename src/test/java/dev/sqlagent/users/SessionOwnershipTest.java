package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.LogCapture;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.UsersFiles;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A live session belongs to the user who opened it. Bob, with his own valid token, cannot send into, poll, stream
 * or end a SockJS session of Alice's or the admin's (every transport that names a session), nor use, stream or
 * delete Alice's MCP session: each is a 403, logged; the owner carries on as before.
 */
class SessionOwnershipTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();

  static FakeModelServer model;
  static RunningService service;
  static Path usersFile;
  static LogCapture logs;

  @BeforeAll
  static void start() throws Exception {
    usersFile = UsersFiles.aliceBobAndAdmin(ALICE, BOB, ROOT);
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS customers FROM customers"));
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_USERS", usersFile.toString());
    service = RunningService.start(model, env);
    logs = LogCapture.root();
  }

  @AfterAll
  static void stop() throws Exception {
    if (logs != null) logs.close();
    try {
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static HttpResponse<Buffer> send(HttpRequest<Buffer> req, String token, String body) throws Exception {
    // Each request on a connection of its own: a refusal may close the connection it came on, and a pooled connection
    // reused at that moment fails as closed, whatever the service answered.
    req.bearerTokenAuthentication(token).putHeader("Connection", "close");
    return (body == null ? req.send() : req.putHeader("Content-Type", "text/plain;charset=UTF-8").sendBuffer(Buffer.buffer(body)))
        .await(20, TimeUnit.SECONDS);
  }

  static HttpResponse<Buffer> post(String token, String path, String body) throws Exception {
    return send(service.client.post(service.port(), "127.0.0.1", path), token, body);
  }

  static HttpResponse<Buffer> get(String token, String path) throws Exception {
    return send(service.client.get(service.port(), "127.0.0.1", path), token, null);
  }

  /** A batch of SockJS frames as xhr_send takes it: a JSON array of JSON-encoded strings. */
  static String frames(JsonObject... frames) {
    JsonArray batch = new JsonArray();
    for (JsonObject f : frames) batch.add(f.encode());
    return batch.encode();
  }

  /** The status of a request whose answer may be an endless stream: read its head only, then hang up. */
  static int streamStatus(String method, String token, String path, Map<String, String> headers) throws Exception {
    var builder = java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
        .header("Authorization", "Bearer " + token).method(method, java.net.http.HttpRequest.BodyPublishers.noBody());
    headers.forEach(builder::header);
    var client = java.net.http.HttpClient.newHttpClient();
    var response = client.sendAsync(builder.build(), java.net.http.HttpResponse.BodyHandlers.ofInputStream())
        .get(20, TimeUnit.SECONDS);
    try (InputStream body = response.body()) {
      return response.statusCode();
    }
  }

  @Test
  void anotherUserCannotReachASockJsSessionOverAnyTransport() throws Exception {
    String alices = "/eventbus/1/" + UUID.randomUUID();
    HttpResponse<Buffer> opened = post(ALICE, alices + "/xhr", null);
    assertThat(opened.statusCode()).isEqualTo(200);
    assertThat(opened.bodyAsString()).startsWith("o");
    String register = frames(new JsonObject().put("type", "register").put("address", Addresses.EVENTS + "." + UUID.randomUUID()));

    HttpResponse<Buffer> sent = post(BOB, alices + "/xhr_send", register);
    assertThat(sent.statusCode()).as(sent.bodyAsString()).isEqualTo(403);
    assertThat(sent.bodyAsJsonObject().getString("error_type")).isEqualTo("forbidden");
    assertThat(post(BOB, alices + "/xhr", null).statusCode()).isEqualTo(403);
    assertThat(post(BOB, alices + "/jsonp_send", "d=" + java.net.URLEncoder.encode(register, java.nio.charset.StandardCharsets.UTF_8))
        .statusCode()).isEqualTo(403);
    assertThat(get(BOB, alices + "/jsonp?c=cb").statusCode()).isEqualTo(403);
    assertThat(streamStatus("POST", BOB, alices + "/xhr_streaming", Map.of())).isEqualTo(403);
    assertThat(streamStatus("GET", BOB, alices + "/eventsource", Map.of())).isEqualTo(403);
    assertThat(streamStatus("GET", BOB, alices + "/htmlfile?c=cb", Map.of())).isEqualTo(403);
    assertThat(logs.messages()).anyMatch(m -> m.contains("refused: user bob") && m.contains("SockJS session of user alice"))
        .noneMatch(m -> m.contains(BOB) || m.contains(ALICE));

    // Alice's own session works as before.
    HttpResponse<Buffer> own = post(ALICE, alices + "/xhr_send", register);
    assertThat(own.statusCode()).as(own.bodyAsString()).isEqualTo(204);
  }

  @Test
  void bobCannotRegisterForEveryEventThroughAnAdminsSession() throws Exception {
    String roots = "/eventbus/1/" + UUID.randomUUID();
    assertThat(post(ROOT, roots + "/xhr", null).statusCode()).isEqualTo(200);
    String everything = frames(new JsonObject().put("type", "register").put("address", Addresses.EVENTS));
    HttpResponse<Buffer> sent = post(BOB, roots + "/xhr_send", everything);
    assertThat(sent.statusCode()).as(sent.bodyAsString()).isEqualTo(403);
    assertThat(post(ROOT, roots + "/xhr_send", everything).statusCode()).isEqualTo(204);
  }

  static JsonObject initialize() {
    return new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
        .put("params", new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "test").put("version", "1")));
  }

  static HttpResponse<Buffer> mcp(String token, String session, JsonObject body) throws Exception {
    var req = service.client.post(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(token)
        .putHeader("Accept", "application/json");
    if (session != null) req.putHeader("Mcp-Session-Id", session);
    return req.sendJsonObject(body).await(20, TimeUnit.SECONDS);
  }

  @Test
  void anotherUserCannotUseStreamOrDeleteAnMcpSession() throws Exception {
    HttpResponse<Buffer> init = mcp(ALICE, null, initialize());
    assertThat(init.statusCode()).as(init.bodyAsString()).isEqualTo(200);
    String session = init.getHeader("Mcp-Session-Id");
    assertThat(mcp(ALICE, session, new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/initialized"))
        .statusCode()).isEqualTo(202);
    JsonObject list = new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/list");

    HttpResponse<Buffer> used = mcp(BOB, session, list);
    assertThat(used.statusCode()).as(used.bodyAsString()).isEqualTo(403);
    assertThat(used.bodyAsString()).doesNotContain("\"tools\"");
    assertThat(streamStatus("GET", BOB, "/mcp", Map.of("Accept", "text/event-stream", "Mcp-Session-Id", session)))
        .isEqualTo(403);
    HttpResponse<Buffer> deleted = service.client.delete(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(BOB)
        .putHeader("Mcp-Session-Id", session).send().await(20, TimeUnit.SECONDS);
    assertThat(deleted.statusCode()).isEqualTo(403);
    assertThat(logs.messages()).anyMatch(m -> m.contains("refused: user bob") && m.contains("MCP session of user alice"));

    // Still Alice's, and still open.
    HttpResponse<Buffer> mine = mcp(ALICE, session, list);
    assertThat(mine.statusCode()).as(mine.bodyAsString()).isEqualTo(200);
    assertThat(mine.bodyAsJsonObject().getJsonObject("result").getJsonArray("tools")).isNotEmpty();
    HttpResponse<Buffer> ended = service.client.delete(service.port(), "127.0.0.1", "/mcp").bearerTokenAuthentication(ALICE)
        .putHeader("Mcp-Session-Id", session).send().await(20, TimeUnit.SECONDS);
    assertThat(ended.statusCode()).isEqualTo(200);
  }
}
