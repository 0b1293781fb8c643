package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * One chunk of an export's rows, sent to the export's sink: {@code {columns?, rows}}. The first chunk carries the
 * columns ({@code [{name, type}]}, as a gate result names them) and may have no rows (an empty result); the rows are
 * arrays of cells as in a gate result. The sink acknowledges each chunk when it wants the next one.
 */
public record ExportChunk(@OmitWhenNull JsonArray columns, JsonArray rows) {

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static ExportChunk fromJson(JsonObject json) {
    return RecordJson.fromJson(ExportChunk.class, json);
  }
}
