package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/**
 * A streaming run's model text as it comes, coalesced ({@code Addresses.generationDeltas(runId)}); {@code reset}: the
 * text so far is void (the call is being retried) and what follows starts again.
 */
public record GenerationDelta(String runId, String text, @OmitWhenNull Boolean reset) {

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static GenerationDelta fromJson(JsonObject json) {
    return RecordJson.fromJson(GenerationDelta.class, json);
  }
}
