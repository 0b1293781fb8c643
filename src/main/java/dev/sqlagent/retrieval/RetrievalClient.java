package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.TableInfo;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Typed calls onto the retrieval addresses, for the agent, the HTTP edge and the MCP tools. A failure is a
 * {@code ReplyException} whose code is 400 (bad argument), 404 (unknown table; the message lists the real
 * tables) or 503 (database or model unavailable), and whose message is fit to show the caller.
 */
public final class RetrievalClient {

  private final Vertx vertx;

  public RetrievalClient(Vertx vertx) {
    this.vertx = vertx;
  }

  /** The tables, schema block, samples block and conventions for a question. */
  public Future<Retrieval> retrieve(String question, boolean widen) {
    return request(Addresses.RETRIEVE, new Retrieval.Request(question, widen).toJson()).map(Retrieval::fromJson);
  }

  /** Every visible table with its note, row count, columns and keys. */
  public Future<List<TableInfo>> tables() {
    return request(Addresses.SCHEMA, new JsonObject())
        .map(j -> j.getJsonArray("tables").stream().map(o -> TableInfo.fromJson((JsonObject) o)).toList());
  }

  /** One table written as CREATE TABLE, with its note and comments. */
  public Future<String> describe(String name) {
    return request(Addresses.DESCRIBE, new JsonObject().put("name", name)).map(j -> j.getString("ddl"));
  }

  /** The first n rows (1..10) of a table, values clipped to 40 characters. */
  public Future<SampleRows> sample(String name, int n) {
    return request(Addresses.SAMPLE, new JsonObject().put("name", name).put("n", n)).map(SampleRows::fromJson);
  }

  private Future<JsonObject> request(String address, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(address, body).map(m -> m.body());
  }
}
