package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import dev.sqlagent.catalogue.CatalogueVersion;
import dev.sqlagent.contract.StateMessages.Rechecked;
import dev.sqlagent.catalogue.TableInfo;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The retrieval service's catalogue addresses besides {@code RETRIEVE} ({@link Retrieval}): every table
 * ({@code SCHEMA}), one table as CREATE TABLE ({@code DESCRIBE}), a few rows ({@code SAMPLE}, {@link SampleRows}).
 * {@code dbRole} is the asking user's database role, whose grants decide what is seen (null: the service's own).
 */
public final class RetrievalMessages {
  private RetrievalMessages() {}

  /** {@code Addresses.SCHEMA}: {@code {db_role?}}. */
  public record SchemaRequest(@OmitWhenNull String dbRole) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }
  }

  /**
   * {@code Addresses.SCHEMA}'s reply: the database's name and every visible table with its note, row count,
   * columns and keys.
   */
  public record Tables(String database, List<TableInfo> tables) {
    public JsonObject toJson() {
      return new JsonObject().put("database", database)
          .put("tables", new JsonArray(tables.stream().map(TableInfo::toJson).toList()));
    }

    public static Tables fromJson(JsonObject j) {
      return new Tables(j.getString("database"),
          j.getJsonArray("tables").stream().map(o -> TableInfo.fromJson((JsonObject) o)).toList());
    }
  }

  /** {@code Addresses.DESCRIBE}: {@code {name, db_role?}}. */
  public record DescribeRequest(String name, @OmitWhenNull String dbRole) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }
  }

  /** {@code Addresses.DESCRIBE}'s reply: the table as CREATE TABLE, with its note and comments. */
  public record TableDdl(String name, String ddl) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static TableDdl fromJson(JsonObject j) {
      return RecordJson.fromJson(TableDdl.class, j);
    }
  }

  /** {@code Addresses.SAMPLE}: {@code {name, n, db_role?}}: the first n rows (1..10). */
  public record SampleRequest(String name, int n, @OmitWhenNull String dbRole) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }
  }

  /**
   * {@code Addresses.RETRIEVAL_STATUS}'s reply, and what retrieval publishes on {@code Addresses.RETRIEVAL_BUILT}
   * each time its index is (re)built: whether the index is built, over how many tables, since when (ISO-8601, null
   * before the first build), the stored values' state, the catalogue version it was built from and the last
   * build's timings.
   */
  public record IndexStatus(boolean built, int tables, String builtAt, JsonObject storedValues,
      CatalogueVersion catalogue, @OmitWhenNull JsonObject lastBuild) {
    public IndexStatus withCatalogue(CatalogueVersion now) {
      return new IndexStatus(built, tables, builtAt, storedValues, now, lastBuild);
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static IndexStatus fromJson(JsonObject j) {
      return RecordJson.fromJson(IndexStatus.class, j);
    }
  }

  /**
   * {@code Addresses.SCHEMA_REFRESH}'s (and {@code schemaRefreshOn(node)}'s) reply: the index status after the
   * refresh, its {@code catalogue} the version now held, {@code gate_tables} the tables the gate now knows and
   * {@code elapsed_ms}, in one flat object. Clustered, the edge adds each worker's own reply under {@code workers}
   * ({@link WorkerRefresh}); the HTTP route adds the re-check of the verified queries under {@code verified}.
   */
  public record Refreshed(IndexStatus status, int gateTables, long elapsedMs, List<WorkerRefresh> workers,
      Rechecked verified) {
    public Refreshed(IndexStatus status, int gateTables, long elapsedMs) {
      this(status, gateTables, elapsedMs, null, null);
    }

    /** The edge's reply in cluster mode: the first worker's, with every worker's and the time the whole took. */
    public Refreshed ofWorkers(List<WorkerRefresh> each, long elapsed) {
      return new Refreshed(status, gateTables, elapsed, each, verified);
    }

    public Refreshed withVerified(Rechecked checked) {
      return new Refreshed(status, gateTables, elapsedMs, workers, checked);
    }

    public JsonObject toJson() {
      JsonObject j = status.toJson().put("gate_tables", gateTables).put("elapsed_ms", elapsedMs);
      if (workers != null) j.put("workers", new JsonArray(workers.stream().map(WorkerRefresh::toJson).toList()));
      if (verified != null) j.put("verified", verified.toJson());
      return j;
    }

    public static Refreshed fromJson(JsonObject j) {
      JsonArray each = j.getValue("workers") instanceof JsonArray a ? a : null;
      return new Refreshed(IndexStatus.fromJson(j), j.getInteger("gate_tables", 0), j.getLong("elapsed_ms", 0L),
          each == null ? null : each.stream().map(o -> WorkerRefresh.fromJson((JsonObject) o)).toList(),
          j.getJsonObject("verified") == null ? null : Rechecked.fromJson(j.getJsonObject("verified")));
    }
  }

  /** One worker's part of a cluster-wide refresh: {@code {node, ok}} and its own reply, or {@code error}. */
  public record WorkerRefresh(String node, boolean ok, Refreshed reply, String error) {
    public JsonObject toJson() {
      JsonObject j = new JsonObject().put("node", node).put("ok", ok);
      if (reply != null) j.mergeIn(reply.toJson());
      return error == null ? j : j.put("error", error);
    }

    public static WorkerRefresh fromJson(JsonObject j) {
      boolean ok = j.getBoolean("ok", false);
      return new WorkerRefresh(j.getString("node"), ok, ok ? Refreshed.fromJson(j) : null, j.getString("error"));
    }
  }
}
