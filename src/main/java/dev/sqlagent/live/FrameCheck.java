package dev.sqlagent.live;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import java.util.Map;

/** What of a bridge frame the bridge itself reads without checking, checked before it does. */
final class FrameCheck {

  static final String INVALID_HEADERS = "invalid_headers";
  static final String HEADERS_RULE = "headers must be a JSON object whose values are strings, numbers or booleans";

  private FrameCheck() {}

  /** Absent, or an object of plain values (the bridge copies each as text into the message's headers). */
  static boolean headersUsable(Object headers) {
    if (headers == null) return true;
    if (!(headers instanceof JsonObject h)) return false;
    for (Map.Entry<String, Object> e : h) {
      Object v = e.getValue();
      if (!(v instanceof String || v instanceof Number || v instanceof Boolean)) return false;
    }
    return true;
  }

  /** An error frame in the bridge's own shape ({@code type: err}), with the reason and what to send instead. */
  static void refuse(SockJSSocket socket, String reason, String message) {
    socket.write(Buffer.buffer(new JsonObject().put("type", "err").put("body", reason).put("message", message).encode()));
  }
}
