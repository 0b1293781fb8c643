package dev.sqlagent.generation;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Incremental Server-Sent Events parser: bytes in (split anywhere, even inside a UTF-8 character), the
 * data of each complete event out. Lines end in LF, CR or CRLF (one line break, never two); multi-line
 * data is joined with LF; comment lines and fields other than data are ignored.
 */
final class SseParser {

  static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

  private final Consumer<String> onData;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private boolean lastWasCr;
  private boolean sawAnyData;

  SseParser(Consumer<String> onData) {
    this.onData = onData;
  }

  void feed(byte[] bytes) {
    for (byte b : bytes) {
      if (b == '\n' && lastWasCr) {
        lastWasCr = false; // the LF of a CRLF
        continue;
      }
      lastWasCr = b == '\r';
      if (b == '\n' || b == '\r') {
        endLine();
      } else {
        if (line.size() >= MAX_LINE_BYTES) throw new IllegalStateException("an event-stream line is longer than " + MAX_LINE_BYTES + " bytes");
        line.write(b);
      }
    }
  }

  /** The stream ended: a last event without its blank line still counts. */
  void finish() {
    if (line.size() > 0) endLine();
    dispatch();
  }

  /** Whether any data line was seen (the body really was an event stream). */
  boolean sawAnyData() {
    return sawAnyData;
  }

  private void endLine() {
    String l = line.toString(StandardCharsets.UTF_8);
    line.reset();
    if (l.isEmpty()) {
      dispatch();
      return;
    }
    if (l.startsWith(":")) return;
    int colon = l.indexOf(':');
    String field = colon < 0 ? l : l.substring(0, colon);
    String value = colon < 0 ? "" : l.substring(colon + 1);
    if (value.startsWith(" ")) value = value.substring(1);
    if (field.equals("data")) {
      if (hasData) data.append('\n');
      data.append(value);
      hasData = true;
      sawAnyData = true;
    }
  }

  private void dispatch() {
    if (!hasData) return;
    String d = data.toString();
    data.setLength(0);
    hasData = false;
    onData.accept(d);
  }
}
