package dev.sqlagent.web;

import dev.sqlagent.contract.GraphEvent;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.NoInternals;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.LogCapture;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, items 7, 8 and 9 against the running service over real sockets: slow and idle connections are
 * closed, a /ws watcher that never reads is dropped at 1 MiB, browser-borne POSTs are refused, malformed
 * escapes are one WARN line and a JSON 400. The inputs are the corpus {@code hostile/http.jsonl}.
 */
class HostileHttpTest {

  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of("SQLAGENT_HTTP_HEADER_TIMEOUT_MS", "1000",
        "SQLAGENT_HTTP_IDLE_TIMEOUT_MS", "2000", "SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1"));
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
  }

  static void assertNoJavaNames(String body) {
    NoInternals.assertNone(body);
  }

  @Test
  void theHttpCorpusIsAnsweredAsExpected() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("src/test/resources/hostile/http.jsonl"), StandardCharsets.UTF_8);
    assertThat(lines).hasSizeGreaterThan(15);
    for (String line : lines) {
      if (line.isBlank()) continue;
      JsonObject c = new JsonObject(line.replace("${port}", String.valueOf(service.port())));
      HttpRequest<Buffer> req = service.client.request(HttpMethod.valueOf(c.getString("method")), service.port(),
          "127.0.0.1", c.getString("path"));
      JsonObject headers = c.getJsonObject("headers", new JsonObject());
      headers.forEach(h -> req.putHeader(h.getKey(), String.valueOf(h.getValue())));
      HttpResponse<Buffer> r = (c.containsKey("body") ? req.sendBuffer(Buffer.buffer(c.getString("body"))) : req.send())
          .await(60, TimeUnit.SECONDS);
      Object status = c.getValue("status");
      if (status instanceof io.vertx.core.json.JsonArray any) {
        assertThat(any.getList()).as(c.getString("id") + ": " + r.bodyAsString()).contains(r.statusCode());
      } else {
        assertThat(r.statusCode()).as(c.getString("id") + ": " + r.bodyAsString()).isEqualTo(status);
      }
      assertThat(r.getHeader("content-type")).as(c.getString("id")).startsWith("application/json");
      assertNoJavaNames(r.bodyAsString());
      if (c.getString("id").equals("inet-value")) {
        assertThat(r.bodyAsJsonObject().getJsonArray("rows").getJsonArray(0).encode())
            .isEqualTo("[\"10.1.2.3/8\",\"$12.50\",\"(1,1),(0,0)\"]");
      }
    }
  }

  @Test
  void aMalformedEscapeIsOneWarnLineAndAJson400() throws Exception {
    try (LogCapture lines = LogCapture.root()) {
      HttpResponse<Buffer> r = service.client.get(service.port(), "127.0.0.1", "/api/health?a=%zz").send()
          .await(10, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.bodyAsJsonObject().getString("error_type")).isEqualTo("bad_request");
      Thread.sleep(200);
      List<ILoggingEvent> mine = lines.events().stream()
          .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).filter(HostileHttpTest::aboutTheRequest).toList();
      assertThat(mine).hasSize(1);
      assertThat(mine.get(0).getLevel()).isEqualTo(Level.WARN);
      assertThat(mine.get(0).getThrowableProxy()).isNull();
    }
  }

  @Test
  void aMalformedEscapeInThePathIsOneWarnLineAndAJson400() throws Exception {
    // Sent over a raw socket: HTTP clients refuse to send a path with a bad escape.
    for (String path : List.of("/api/runs/%/events", "/api/runs/%zz/events", "/%E0%A4%A/x")) {
      try (LogCapture lines = LogCapture.root(); Socket s = new Socket("127.0.0.1", service.port())) {
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(response).as(path).startsWith("HTTP/1.1 400 ");
        assertThat(response.toLowerCase()).as(path).contains("content-type: application/json");
        JsonObject body = new JsonObject(response.substring(response.indexOf("\r\n\r\n") + 4));
        assertThat(body.getString("error_type")).as(path).isEqualTo("bad_request");
        assertThat(body.getString("message")).as(path).contains("path").contains("%");
        assertNoJavaNames(body.encode());
        Thread.sleep(200);
        List<ILoggingEvent> mine = lines.events().stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).filter(HostileHttpTest::aboutTheRequest).toList();
        assertThat(mine).as(path + ": " + lines.messages()).hasSize(1);
        assertThat(mine.get(0).getLevel()).isEqualTo(Level.WARN);
        assertThat(mine.get(0).getThrowableProxy()).isNull();
        assertThat(mine.get(0).getFormattedMessage()).doesNotContain("\n");
      }
    }
  }

  /** Not the machine's load: Vert.x's blocked-thread warnings come from a busy CI box, not from the request. */
  static boolean aboutTheRequest(ILoggingEvent e) {
    return !e.getLoggerName().endsWith("BlockedThreadChecker");
  }

  /** Reads until the server closes the connection; returns how long that took (ms), or -1 if it stayed open. */
  static long closedWithin(Socket s, long maxMs) throws Exception {
    long t0 = System.currentTimeMillis();
    s.setSoTimeout(200);
    InputStream in = s.getInputStream();
    byte[] buf = new byte[8192];
    while (System.currentTimeMillis() - t0 < maxMs) {
      try {
        if (in.read(buf) < 0) return System.currentTimeMillis() - t0;
      } catch (SocketTimeoutException e) {
        // still open
      } catch (java.net.SocketException e) {
        return System.currentTimeMillis() - t0;
      }
    }
    return -1;
  }

  @Test
  void aConnectionThatSendsNothingIsClosed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", service.port())) {
      assertThat(closedWithin(s, 10_000)).isBetween(0L, 5_000L);
    }
  }

  @Test
  void partialHeadersAreClosed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", service.port())) {
      OutputStream out = s.getOutputStream();
      out.write("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      long t = closedWithin(s, 10_000);
      assertThat(t).isBetween(0L, 5_000L);
    }
  }

  @Test
  void aShortBodyIsClosed() throws Exception {
    try (Socket s = new Socket("127.0.0.1", service.port())) {
      OutputStream out = s.getOutputStream();
      out.write(("POST /api/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"sql\"")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(closedWithin(s, 10_000)).isBetween(0L, 6_000L);
    }
  }

  @Test
  void anIdleKeepAliveConnectionIsClosedButALongAnswerIsNot() throws Exception {
    try (Socket s = new Socket("127.0.0.1", service.port())) {
      OutputStream out = s.getOutputStream();
      // pg_sleep is refused, but a query that takes three seconds (longer than the idle timeout) is not cut.
      String body = "{\"sql\":\"SELECT count(*) FROM generate_series(1, 3000000) g, LATERAL (SELECT g % 7) x\"}";
      out.write(("POST /api/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
          + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      s.setSoTimeout(30_000);
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      while (!got.toString(StandardCharsets.UTF_8).contains("\"ok\"")) {
        int n = in.read(buf);
        assertThat(n).as("the connection was cut while the service was answering").isPositive();
        got.write(buf, 0, n);
      }
      assertThat(got.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 ");
      // Then nothing more comes from the client: the keep-alive connection is closed.
      assertThat(closedWithin(s, 10_000)).isBetween(0L, 6_000L);
    }
  }

  @Test
  void aWatcherThatNeverReadsIsClosedWith1013AtOneMebibyte() throws Exception {
    try (Socket s = new Socket("127.0.0.1", service.port())) {
      s.setReceiveBufferSize(64 * 1024);
      OutputStream out = s.getOutputStream();
      String key = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
      out.write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      s.setSoTimeout(10_000);
      readHead(in);
      sendText(out, "{\"type\":\"watch\"}");
      Thread.sleep(300);
      // 3 MB of events; the client reads none of them.
      String padding = "x".repeat(4_000);
      for (int i = 1; i <= 750; i++) {
        service.vertx.eventBus().publish(Addresses.EVENTS, new GraphEvent("synthetic-unread-01", i, 0, "synthetic",
            GraphEvent.PROGRESS, 1, "generation", new JsonObject().put("delta", padding), null, null).toJson());
        if (i % 25 == 0) Thread.sleep(10);
      }
      Thread.sleep(500);
      // Now read everything that was sent: at most about 1 MiB of frames, then a close frame with 1013.
      long payload = 0;
      int closeCode = -1;
      while (true) {
        int b0 = in.read();
        if (b0 < 0) break;
        int len = in.read() & 0x7f;
        long n = len == 126 ? ((in.read() << 8) | in.read()) : len == 127 ? readLong(in) : len;
        byte[] data = in.readNBytes((int) n);
        int opcode = b0 & 0x0f;
        if (opcode == 0x8) {
          closeCode = ((data[0] & 0xff) << 8) | (data[1] & 0xff);
          break;
        }
        if (opcode == 0x1) payload += n;
      }
      assertThat(closeCode).isEqualTo(1013);
      assertThat(payload).as("bytes sent before the close").isLessThan(1024 * 1024 + 64 * 1024);
    }
  }

  private static long readLong(InputStream in) throws Exception {
    long v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | in.read();
    return v;
  }

  private static void readHead(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.read());
    assertThat(head.toString()).startsWith("HTTP/1.1 101");
  }

  private static void sendText(OutputStream out, String text) throws Exception {
    byte[] p = text.getBytes(StandardCharsets.UTF_8);
    byte[] mask = {1, 2, 3, 4};
    out.write(0x81);
    out.write(0x80 | p.length);
    out.write(mask);
    for (int i = 0; i < p.length; i++) out.write(p[i] ^ mask[i % 4]);
    out.flush();
  }
}
