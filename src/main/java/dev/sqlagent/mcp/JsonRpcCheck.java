package dev.sqlagent.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * Reads one POSTed JSON-RPC message before the MCP SDK sees it, so that a malformed one gets a prompt,
 * plain JSON-RPC error instead of a hang, a 202 or a Java exception's text: -32700 when the body is not
 * JSON, -32600 when it is not one JSON-RPC 2.0 message, -32602 when a method's params are not of the
 * shape MCP defines ({@code initialize} needs protocolVersion, capabilities and clientInfo;
 * {@code tools/call} a tool name and an arguments object). Messages it accepts the SDK can deserialize.
 */
final class JsonRpcCheck {
  private JsonRpcCheck() {}

  /** A refusal: the JSON-RPC error code, a plain message, and the request's id when one could be read. */
  record Refusal(int code, String message, Object id) {
    int httpStatus() {
      return code == ErrorCodes.INVALID_PARAMS && id != null ? 200 : 400;
    }

    JsonObject toJson() {
      return new JsonObject().put("jsonrpc", "2.0").put("id", id)
          .put("error", new JsonObject().put("code", code).put("message", message));
    }
  }

  /** Null when the message may go to the SDK. */
  static Refusal check(String body) {
    Object parsed;
    try {
      parsed = Json.decodeValue(body);
    } catch (DecodeException e) {
      return new Refusal(ErrorCodes.PARSE_ERROR, "the body is not valid JSON", null);
    }
    if (parsed instanceof JsonArray) {
      return new Refusal(ErrorCodes.INVALID_REQUEST, "send one JSON-RPC message per request; batches are not accepted", null);
    }
    if (!(parsed instanceof JsonObject msg)) {
      return new Refusal(ErrorCodes.INVALID_REQUEST, "a JSON-RPC message is a JSON object", null);
    }
    Object id = msg.getValue("id");
    boolean hasId = msg.containsKey("id");
    Object readableId = id instanceof String || id instanceof Number ? id : null;
    if (!"2.0".equals(msg.getValue("jsonrpc"))) {
      return new Refusal(ErrorCodes.INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"", readableId);
    }
    if (hasId && readableId == null) {
      return new Refusal(ErrorCodes.INVALID_REQUEST, "\"id\" must be a string or a number", null);
    }
    Object method = msg.getValue("method");
    if (!msg.containsKey("method")) {
      boolean response = hasId && (msg.containsKey("result") || msg.getValue("error") instanceof JsonObject);
      return response ? null : new Refusal(ErrorCodes.INVALID_REQUEST,
          "a message needs a \"method\" (a request or notification) or an id with \"result\" or \"error\"", readableId);
    }
    if (!(method instanceof String m) || m.isBlank()) {
      return new Refusal(ErrorCodes.INVALID_REQUEST, "\"method\" must be a non-empty string", readableId);
    }
    if (msg.containsKey("params") && !(msg.getValue("params") instanceof JsonObject)) {
      return new Refusal(ErrorCodes.INVALID_PARAMS, "\"params\" of " + m + " must be a JSON object", readableId);
    }
    JsonObject params = msg.getJsonObject("params");
    if (McpSchema.METHOD_INITIALIZE.equals(m)) {
      if (params == null || !(params.getValue("protocolVersion") instanceof String)
          || !(params.getValue("capabilities") instanceof JsonObject)
          || !(params.getValue("clientInfo") instanceof JsonObject info) || !(info.getValue("name") instanceof String)
          || !(info.getValue("version") == null || info.getValue("version") instanceof String)) {
        return new Refusal(ErrorCodes.INVALID_PARAMS, "initialize needs params {\"protocolVersion\": string, "
            + "\"capabilities\": object, \"clientInfo\": {\"name\": string, \"version\": string}}", readableId);
      }
      if (!hasId) return new Refusal(ErrorCodes.INVALID_REQUEST, "initialize is a request: it needs an id", null);
    }
    if (McpSchema.METHOD_TOOLS_CALL.equals(m)) {
      if (params == null || !(params.getValue("name") instanceof String)) {
        return new Refusal(ErrorCodes.INVALID_PARAMS, "tools/call needs params {\"name\": string, \"arguments\": object}", readableId);
      }
      if (params.containsKey("arguments") && params.getValue("arguments") != null
          && !(params.getValue("arguments") instanceof JsonObject)) {
        return new Refusal(ErrorCodes.INVALID_PARAMS, "the \"arguments\" of tools/call must be a JSON object of named arguments",
            readableId);
      }
    }
    return null;
  }

  private static final Pattern INTERNALS = Pattern.compile(
      "(\\b[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*\\.[A-Za-z_$][\\w$.]*)|(\\$[A-Z])|Exception\\b|Cannot invoke|\"java\\.|"
          + "`[a-z]+\\.|\\bnull\\b.*\\binvoke|\\bat \\[Source");

  /** An error message fit for a client: the SDK's own text when plain, else a plain one for its code. */
  static String plain(int code, String message) {
    if (message != null && !message.isBlank() && !INTERNALS.matcher(message).find()) return message;
    return switch (code) {
      case ErrorCodes.PARSE_ERROR -> "the body is not valid JSON";
      case ErrorCodes.INVALID_REQUEST -> "not a valid JSON-RPC request";
      case ErrorCodes.METHOD_NOT_FOUND -> "no such method";
      case ErrorCodes.INVALID_PARAMS -> "the params do not fit this method; see tools/list for each tool's arguments";
      default -> "the request could not be handled";
    };
  }
}
