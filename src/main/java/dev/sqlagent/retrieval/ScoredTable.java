package dev.sqlagent.retrieval;

import io.vertx.core.json.JsonObject;

/** A table chosen for a question, with its cosine similarity to the question (rounded to 4 places in JSON). */
public record ScoredTable(String name, double score) {

  public JsonObject toJson() {
    return new JsonObject().put("name", name).put("score", Math.round(score * 10_000) / 10_000.0);
  }

  public static ScoredTable fromJson(JsonObject j) {
    return new ScoredTable(j.getString("name"), j.getDouble("score", 0.0));
  }
}
