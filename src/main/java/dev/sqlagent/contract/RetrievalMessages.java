package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
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
}
