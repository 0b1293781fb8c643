package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** What the agent sends the verified queries: a lookup by question, and the retirement of one the gate refused. */
public final class VerifiedMessages {
  private VerifiedMessages() {}

  /** {@code Addresses.VERIFIED_LOOKUP}: {@code {question}}. */
  public record Lookup(String question) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Lookup fromJson(JsonObject j) {
      return RecordJson.fromJson(Lookup.class, j);
    }
  }

  /**
   * {@code Addresses.VERIFIED_LOOKUP}'s reply.
   *
   * @param candidates active verified queries compared
   * @param matches the closest, best first: {@code [{verified_id, question, sql, ..., score, same_values}]}
   * @param direct the match close enough to answer with, or null
   */
  public record Matches(double threshold, int candidates, JsonArray matches, JsonObject direct,
      @OmitWhenNull Long elapsedMs) {
    public Matches {
      matches = matches == null ? new JsonArray() : matches;
    }

    /** The matches, best first, as the agent reads them. */
    public List<Match> ranked() {
      return matches.stream().map(m -> Match.fromJson((JsonObject) m)).toList();
    }

    /** The match close enough to answer with, or null. */
    public Match directMatch() {
      return direct == null ? null : Match.fromJson(direct);
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Matches fromJson(JsonObject j) {
      return RecordJson.fromJson(Matches.class, j);
    }
  }

  /**
   * One verified query as a lookup ranks it, as the agent reads it: its id, question and SQL, its similarity with the
   * question (0-1) and whether the two name the same values (the entry on the wire carries the rest of the entry too).
   */
  public record Match(long verifiedId, String question, String sql, double score, boolean sameValues) {
    public static Match fromJson(JsonObject j) {
      return new Match(j.getLong("verified_id"), j.getString("question"), j.getString("sql"), j.getDouble("score", 0.0),
          j.getBoolean("same_values", false));
    }
  }

  /** {@code Addresses.VERIFIED_RETIRE}: {@code {verified_id, reason}}: the gate refused it while answering with it. */
  public record Retire(long verifiedId, String reason) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Retire fromJson(JsonObject j) {
      return RecordJson.fromJson(Retire.class, j);
    }
  }
}
