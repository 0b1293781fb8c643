package dev.sqlagent.catalogue;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/**
 * One snapshot of a process's catalogue: its version, when it was read, how many tables, the fingerprint of its
 * shape. Published on {@code Addresses.CATALOGUE_CHANGED} with the {@code node} that read it (another node whose
 * fingerprint differs reads again); without a node, the {@code catalogue} of retrieval's status and refresh reply.
 * The one bus message that lives beside its producer rather than in {@code contract}: the contract depends on the
 * catalogue's {@link TableInfo}, so the catalogue cannot depend on the contract.
 */
public record CatalogueVersion(long version, String readAt, int tables, long fingerprint, @OmitWhenNull String node) {

  /** The same snapshot, announced by {@code node}. */
  public CatalogueVersion from(String node) {
    return new CatalogueVersion(version, readAt, tables, fingerprint, node);
  }

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static CatalogueVersion fromJson(JsonObject j) {
    return j == null ? null : RecordJson.fromJson(CatalogueVersion.class, j);
  }
}
