package dev.sqlagent.conversation;

import dev.sqlagent.contract.Clarification;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;

/**
 * One question of a conversation as stored: what was asked, the final SQL, how it ended and a short summary of
 * the result (never the rows beyond that summary).
 *
 * @param outcome {@code answered}, {@code gave_up} or {@code refused}
 * @param verifiedId the verified query that answered it, when one did
 * @param clarification the readings it asked back with ({@code needs_clarification}), or null
 * @param editedFrom for SQL a person chose (an edit, or a reading picked), the run it came from; else null
 * @param chosenReading for a reading picked, its number; else null
 */
public record Turn(int turn, String runId, String question, String finalSql, String outcome, String answer,
    JsonObject summary, Long verifiedId, String askedAt, Clarification clarification, String editedFrom,
    Integer chosenReading) {

  public static final String ANSWERED = "answered";
  public static final String GAVE_UP = "gave_up";
  public static final String REFUSED = "refused";

  static Turn fromRow(Row r) {
    Object summary = r.getValue("summary");
    return new Turn(r.getInteger("turn"), r.getString("run_id"), r.getString("question"), r.getString("final_sql"),
        r.getString("outcome"), r.getString("answer"),
        summary instanceof JsonObject j ? j : new JsonObject(), r.getLong("verified_id"),
        String.valueOf(r.getOffsetDateTime("asked_at")),
        r.getValue("readings") instanceof JsonObject c ? Clarification.fromJson(c) : null,
        r.getString("edited_from"), r.getInteger("chosen_reading"));
  }

  /** A turn whose SQL a person chose: an edited answer's ({@code edited}) or a reading picked ({@code clarified}). */
  public String chosenBy() {
    return editedFrom == null ? null : chosenReading == null ? "edited" : "clarified";
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("turn", turn).put("run_id", runId).put("question", question).put("sql", finalSql)
        .put("outcome", outcome).put("answer", answer).put("summary", summary).put("verified_id", verifiedId)
        .put("asked_at", askedAt);
    if (clarification != null) j.put("clarification", clarification.toJson());
    if (editedFrom != null) j.put("edited_from", editedFrom).put("chosen_by", chosenBy());
    if (chosenReading != null) j.put("chosen_reading", chosenReading);
    return j;
  }

  public static Turn fromJson(JsonObject j) {
    return new Turn(j.getInteger("turn", 0), j.getString("run_id"), j.getString("question"), j.getString("sql"),
        j.getString("outcome", ANSWERED), j.getString("answer"), j.getJsonObject("summary", new JsonObject()),
        j.getLong("verified_id"), j.getString("asked_at"),
        j.getValue("clarification") instanceof JsonObject c ? Clarification.fromJson(c) : null,
        j.getString("edited_from"), j.getInteger("chosen_reading"));
  }
}
