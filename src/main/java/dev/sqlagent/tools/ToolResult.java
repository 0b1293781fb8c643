package dev.sqlagent.tools;

import io.vertx.core.json.JsonObject;

/**
 * What a tool returns: a result, or a tool error the caller (a person or a model) can read and act on.
 * Errors are data, never exceptions: {@code {"ok": false, "error_type", "message", ...}}.
 *
 * @param error true for a tool error (MCP's {@code isError})
 * @param data the result, or the structured error
 * @param text the same for a reader: the CREATE TABLE text of describe_table, a table with formatted numbers
 *     (and the SQL) for run_query and ask, the JSON otherwise
 */
public record ToolResult(boolean error, JsonObject data, String text) {

  public static ToolResult ok(JsonObject data) {
    return new ToolResult(false, data, data.encodePrettily());
  }

  public static ToolResult ok(JsonObject data, String text) {
    return new ToolResult(false, data, text);
  }

  /** An error the tool itself found (a bad argument, an unknown table, a service that did not answer). */
  public static ToolResult error(String errorType, String message) {
    return error(new JsonObject().put("ok", false).put("error_type", errorType).put("message", message));
  }

  /** An error already structured by the service that refused (the gate's {@code {ok:false, error_type, ...}}). */
  public static ToolResult error(JsonObject structured) {
    return new ToolResult(true, structured, structured.encodePrettily());
  }

  /** The error type of a tool error, null for a result. */
  public String errorType() {
    return error ? data.getString("error_type") : null;
  }

  public String message() {
    return data.getString("message");
  }
}
