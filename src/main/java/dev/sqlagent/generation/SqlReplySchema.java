package dev.sqlagent.generation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * The SQL reply object as a JSON schema, sent as {@code response_format: {type: json_schema, json_schema}} (the form
 * OpenAI, llama.cpp's server, vLLM and Ollama accept; llama.cpp turns it into a grammar, so even a small model can only
 * write that object): {"sql": string|null, "explanation": string} and optionally up to three "readings". A server that
 * refuses the field is asked again without it, and the reply is then read leniently ({@link ModelReply#parse}).
 */
final class SqlReplySchema {
  private SqlReplySchema() {}

  /**
   * Most tokens of one SQL reply: a statement, a sentence and three readings fit in far fewer; a small model that
   * repeats itself stops here instead of filling the context until the call's deadline.
   */
  static final int MAX_TOKENS = 1024;

  /**
   * Longest explanation the schema lets a model write: a small model held to the object explains on, repeating itself,
   * until the token limit cuts the object off; bounded, the grammar closes the string and the object.
   */
  static final int EXPLANATION_CHARS = 400;

  private static final JsonObject SCHEMA = new JsonObject()
      .put("type", "object")
      .put("properties", new JsonObject()
          .put("sql", new JsonObject().put("type", new JsonArray().add("string").add("null")))
          .put("explanation", new JsonObject().put("type", "string").put("maxLength", EXPLANATION_CHARS))
          .put("readings", new JsonObject().put("type", "array").put("maxItems", 3).put("items", new JsonObject()
              .put("type", "object")
              .put("properties", new JsonObject()
                  .put("sql", new JsonObject().put("type", "string"))
                  .put("description", new JsonObject().put("type", "string")))
              .put("required", new JsonArray().add("sql").add("description"))
              .put("additionalProperties", false))))
      .put("required", new JsonArray().add("sql").add("explanation"))
      .put("additionalProperties", false);

  /** The request's response_format field (a fresh copy each time). */
  static JsonObject responseFormat() {
    return new JsonObject().put("type", "json_schema")
        .put("json_schema", new JsonObject().put("name", "sql_reply").put("schema", SCHEMA.copy()));
  }

  // What servers say when they do not take a JSON-schema response_format (an unknown field, an unsupported type).
  private static final Pattern REFUSED = Pattern.compile("(?i)response_format|json_schema|grammar|structured output");

  /** Whether a rejected request's message says the response_format was the cause. */
  static boolean refusedBy(String message) {
    return message != null && REFUSED.matcher(message).find();
  }
}
