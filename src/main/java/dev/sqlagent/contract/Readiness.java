package dev.sqlagent.contract;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * {@code Addresses.HEALTH_READINESS}'s reply, what {@code GET /api/health} serves: {@code ok} (every gate UP), one
 * field per flag, the facts the checks found (drift, tables, database, read-only proofs, model, query log, verified
 * queries retired, cluster) and every check with its data. A flag a check could not settle is null.
 */
public record Readiness(boolean ok, String status, boolean dbReachable, boolean readOnlyConfirmed,
    boolean stateStoreReachable, boolean queryLogWritable, boolean logRoleCannotRead, boolean schemaIndexBuilt,
    Boolean schemaDrifted, JsonArray schemaDifferences, boolean modelReachable, Integer tables, String database,
    JsonArray readOnlyProofs, JsonArray readOnlyWarnings, String model, JsonObject queryLog, Long verifiedRetired,
    JsonObject cluster, List<Check> checks, String checkedAt) {

  /** One check: UP or DOWN, whether it is a gate (DOWN makes the service unready), and what it found. */
  public record Check(String id, String status, boolean gate, JsonObject data) {}

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static Readiness fromJson(JsonObject j) {
    return RecordJson.fromJson(Readiness.class, j);
  }
}
