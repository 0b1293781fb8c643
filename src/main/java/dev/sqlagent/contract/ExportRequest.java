package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/**
 * An export for the gate ({@code Addresses.GATE_EXPORT}): {@code {sql, lift_cap, max_rows, max_bytes, db_role?,
 * see_sensitive, sink, format?}}.
 *
 * @param sql the statement to export, through every check of the gate
 * @param liftCap the statement is an answer's SQL whose result the interactive row cap cut: the LIMIT that cap put
 *     (or lowered) is taken off first, and the export's own cap applies
 * @param maxRows most rows sent ({@code SQLAGENT_EXPORT_MAX_ROWS}); one more makes the export truncated
 * @param maxBytes most bytes of cells sent, counted as JSON ({@code SQLAGENT_EXPORT_MAX_BYTES})
 * @param dbRole the asking user's database role, null for the gate's own
 * @param seeSensitive the asking user may see the notes file's sensitive columns unmasked (else they are masked)
 * @param sink the address the chunks of rows go to ({@link ExportChunk}), each sent once the previous one was
 *     acknowledged; a failed acknowledgement stops the export
 * @param settings the asking user's row settings ({@code {name: value}}, {@link GateRequest#settings()}), null for none
 * @param format the file's format ({@code csv} or {@code xlsx}; null: csv), which the gate writes as it reads the rows
 */
public record ExportRequest(String sql, boolean liftCap, int maxRows, long maxBytes, @OmitWhenNull String dbRole,
    boolean seeSensitive, String sink, @OmitWhenNull JsonObject settings, @OmitWhenNull String format) {

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  /** Throws IllegalArgumentException for a request of the wrong shape. */
  public static ExportRequest fromJson(Object body) {
    if (!(body instanceof JsonObject json)) throw new IllegalArgumentException("the request must be a JSON object");
    ExportRequest r = RecordJson.fromJson(ExportRequest.class, json);
    if (r.sql() == null || r.sink() == null) throw new IllegalArgumentException("\"sql\" and \"sink\" are required");
    if (r.maxRows() < 1 || r.maxBytes() < 1) throw new IllegalArgumentException("\"max_rows\" and \"max_bytes\" must be positive");
    return r;
  }
}
