package dev.sqlagent.contract;

import dev.sqlagent.contract.RetrievalMessages.Refreshed;
import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.contract.RetrievalMessages.DescribeRequest;
import dev.sqlagent.contract.RetrievalMessages.SampleRequest;
import dev.sqlagent.contract.RetrievalMessages.SchemaRequest;
import dev.sqlagent.contract.RetrievalMessages.TableDdl;
import dev.sqlagent.contract.RetrievalMessages.Tables;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * The caller's side of retrieval: the tables for a question, every table, one table's DDL, a few rows. Fails
 * only with a {@code BusError}: bad request (400), unknown table (404, the message lists the real tables),
 * unavailable (503), each with a message fit to show the caller.
 */
public final class RetrievalClient {

  public static final String RETRIEVAL = "the schema catalogue";

  private final BusClient bus;

  /** @param localOnly retrieval of this node only (clustered, a run's steps stay on its worker) */
  public RetrievalClient(Vertx vertx, long timeoutMs, boolean localOnly) {
    this.bus = new BusClient(vertx, RETRIEVAL, timeoutMs, localOnly);
  }

  public RetrievalClient(Vertx vertx, long timeoutMs) {
    this(vertx, timeoutMs, false);
  }

  /** The tables, schema block, samples block and conventions for a question. */
  public Future<Retrieval> retrieve(Retrieval.Request request) {
    return call(Addresses.RETRIEVE, request.toJson()).map(Retrieval::fromJson);
  }

  /** Every visible table with its note, row count, columns and keys. */
  public Future<Tables> tables(SchemaRequest request) {
    return call(Addresses.SCHEMA, request.toJson()).map(Tables::fromJson);
  }

  /** One table written as CREATE TABLE, with its note and comments. */
  public Future<TableDdl> describe(DescribeRequest request) {
    return call(Addresses.DESCRIBE, request.toJson()).map(TableDdl::fromJson);
  }

  /** The first n rows (1..10) of a table, values clipped. */
  public Future<SampleRows> sample(SampleRequest request) {
    return call(Addresses.SAMPLE, request.toJson()).map(SampleRows::fromJson);
  }

  /**
   * Discover the target again and re-embed what changed: the index's status with {@code elapsed_ms},
   * {@code gate_tables} and {@code catalogue} (the version now held); clustered, every worker's under {@code workers}.
   */
  public Future<Refreshed> refresh(long waitMs) {
    return bus.<JsonObject>request(Addresses.SCHEMA_REFRESH, new JsonObject(), waitMs).map(Refreshed::fromJson);
  }

  /** The index: whether it is built, over how many tables, since when, from which catalogue version. */
  public Future<IndexStatus> status() {
    return call(Addresses.RETRIEVAL_STATUS, new JsonObject()).map(IndexStatus::fromJson);
  }

  /** What the workload teaches (learned joins, suggested notes), read again now. */
  public Future<dev.sqlagent.contract.LearnedMessages.Report> learned() {
    return call(Addresses.LEARNED, new JsonObject()).map(dev.sqlagent.contract.LearnedMessages.Report::fromJson);
  }

  private Future<JsonObject> call(String address, JsonObject body) {
    return bus.request(address, body);
  }
}
