package dev.sqlagent.generation;

import io.vertx.core.json.JsonObject;

/** TEMPORARY stand-in matching CONTRACTS.md until the generation branch is merged. */
public record ModelReply(String sql, String explanation, String failure, String raw) {
  public static ModelReply parse(String content) {
    try {
      JsonObject j = new JsonObject(content.strip());
      return new ModelReply(j.getString("sql"), j.getString("explanation"), null, content);
    } catch (RuntimeException e) {
      return new ModelReply(null, null, "not JSON", content);
    }
  }
}
