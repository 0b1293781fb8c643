package dev.sqlagent.contract;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A question the agent asks back: it has several readings whose results differ, and no reading has a majority.
 * Each reading is one SQL that ran through the gate, with a one-line description in plain words, its row count and a
 * few of its rows that the other readings do not have.
 *
 * @param reason {@code split_vote} (the candidates' results split with no majority) or {@code model_readings} (the
 *     model said the question has several readings)
 * @param readings 2 or 3 readings, the most voted first
 */
public record Clarification(String reason, List<Reading> readings) {

  public static final String SPLIT_VOTE = "split_vote";
  public static final String MODEL_READINGS = "model_readings";

  public Clarification {
    readings = readings == null ? List.of() : List.copyOf(readings);
  }

  /**
   * One reading.
   *
   * @param reading its number, from 1, as a client names it when it chooses
   * @param description what the reading takes the question to mean, in one line
   * @param sql the SQL as it ran (bounded by the gate)
   * @param rowCount the rows its result has
   * @param columns {@code [{name, type}]} of its result
   * @param sample at most {@link #SAMPLE_ROWS} rows, those the other readings lack first
   * @param votes how many candidates gave this result
   * @param votePick the vote would have answered with this reading
   */
  public record Reading(int reading, String description, String sql, int rowCount, JsonArray columns, JsonArray sample,
      int votes, boolean votePick) {

    public static final int SAMPLE_ROWS = 3;
  }

  /** The reading numbered {@code n} (from 1), or null. */
  public Reading reading(int n) {
    return n >= 1 && n <= readings.size() ? readings.get(n - 1) : null;
  }

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static Clarification fromJson(JsonObject j) {
    return RecordJson.fromJson(Clarification.class, j);
  }
}
