package dev.sqlagent.contract;

import io.vertx.core.json.JsonObject;

/**
 * A table chosen for a question, with its cosine similarity to the question, moved by the notes (rounded to 4
 * places in JSON).
 *
 * @param via null when the table was chosen for its similarity; otherwise why it was added anyway, e.g.
 *     {@code join path: artist - artist_credit - release_group} for a table that links two chosen ones
 * @param ranking null when the score is the similarity alone; otherwise how the notes moved it and why, e.g.
 *     {@code -0.12: 2025 is outside its dates (2023-01-01 to 2024-12-31)}
 * @param valueLink null unless the question names one of its stored values, which ranks it above the weaker
 *     similarity picks (or brings it in): e.g. {@code 'pooja patil' = customers.cust_name}
 */
public record ScoredTable(String name, double score, String via, String ranking, String valueLink) {

  public ScoredTable(String name, double score, String via, String ranking) {
    this(name, score, via, ranking, null);
  }

  public ScoredTable(String name, double score) {
    this(name, score, null, null);
  }

  public ScoredTable(String name, double score, String via) {
    this(name, score, via, null);
  }

  /** Whether it was added to join chosen tables rather than chosen for its own similarity. */
  public boolean joinTable() {
    return via != null;
  }

  /** The same table, linked by a stored value the question names. */
  public ScoredTable withValueLink(String why) {
    return new ScoredTable(name, score, via, ranking, why);
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("name", name).put("score", Math.round(score * 10_000) / 10_000.0);
    if (via != null) j.put("via", via);
    if (valueLink != null) j.put("value_link", valueLink);
    return ranking == null ? j : j.put("ranking", ranking);
  }

  public static ScoredTable fromJson(JsonObject j) {
    return new ScoredTable(j.getString("name"), j.getDouble("score", 0.0), j.getString("via"), j.getString("ranking"),
        j.getString("value_link"));
  }
}
