package dev.sqlagent.export;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code POST /api/query/export} over a plain socket whose reader the test paces: it reads the response's head, then
 * the body only when and as fast as the test says (a client that never reads, or reads slowly). The receive buffer is
 * small, so the service meets a full socket soon.
 */
final class RawExport implements AutoCloseable {

  private final Socket socket;
  private final InputStream in;
  final int status;
  final Map<String, String> headers = new LinkedHashMap<>();
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  /** Whether the body ended as HTTP ends it (the last chunk), rather than by a closed or reset connection. */
  boolean complete;
  /** Why the body ended early, when it did. */
  String cut;

  private RawExport(Socket socket) throws IOException {
    this.socket = socket;
    this.in = socket.getInputStream();
    String statusLine = line();
    status = Integer.parseInt(statusLine.split(" ")[1]);
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
    }
  }

  static RawExport post(int port, String token, String sql, String format) throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(16 * 1024);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(120_000);
    byte[] json = new JsonObject().put("sql", sql).put("format", format).encode().getBytes(StandardCharsets.UTF_8);
    String head = "POST /api/query/export HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
        + "Content-Length: " + json.length + "\r\n\r\n";
    OutputStream out = socket.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(json);
    out.flush();
    return new RawExport(socket);
  }

  /** Reads up to {@code bytes} more of the body (chunked or with a length); false once it ended. */
  boolean read(long bytes) throws IOException {
    long goal = body.size() + bytes;
    try {
      while (body.size() < goal && !complete) {
        if (headers.containsKey("content-length")) {
          int n = Integer.parseInt(headers.get("content-length"));
          body.write(in.readNBytes(n));
          complete = true;
          break;
        }
        String size = line();
        int n = Integer.parseInt(size.split(";")[0].trim(), 16);
        if (n == 0) {
          line();
          complete = true;
          break;
        }
        byte[] chunk = in.readNBytes(n);
        body.write(chunk);
        if (chunk.length < n) throw new IOException("the connection closed inside a chunk");
        line();
      }
    } catch (IOException | RuntimeException e) {
      cut = String.valueOf(e.getMessage());
      return false;
    }
    return !complete;
  }

  /** The rest of the body, as fast as it comes. */
  RawExport readAll() throws IOException {
    while (read(1 << 20)) {
      // on to the end
    }
    return this;
  }

  String text() {
    return body.toString(StandardCharsets.UTF_8);
  }

  int bytesRead() {
    return body.size();
  }

  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (c != '\r') line.write(c);
    }
    if (c == -1 && line.size() == 0) throw new IOException("the connection closed");
    return line.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
