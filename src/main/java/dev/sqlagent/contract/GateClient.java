package dev.sqlagent.contract;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * The caller's side of the gate: {@link #execute} ({@code Addresses.EXECUTE}) and {@link #grade}
 * ({@code Addresses.GATE_GRADE}, node-local: the grading mode is reached only inside the process that runs the
 * gate). A refusal is a {@link GateReply} with its error; a failed request (no gate, no reply in time) a
 * {@code BusError}.
 */
public final class GateClient {

  public static final String GATE = "the query gate";

  private final BusClient gate;
  private final BusClient grading;

  /** @param localOnly the gate of this node only (clustered, a run's steps stay on its worker) */
  public GateClient(Vertx vertx, long timeoutMs, boolean localOnly) {
    this.gate = new BusClient(vertx, GATE, timeoutMs, localOnly);
    this.grading = new BusClient(vertx, "the gate's grading mode", timeoutMs, true);
  }

  public GateClient(Vertx vertx, long timeoutMs) {
    this(vertx, timeoutMs, false);
  }

  public Future<GateReply> execute(GateRequest request) {
    return gate.<JsonObject>request(Addresses.EXECUTE, request.toJson()).map(GateReply::fromJson);
  }

  /**
   * An export: the file, written in the request's format as the rows are read, goes to the request's sink chunk by
   * chunk ({@link ExportChunk}); the reply, once the export ended and its last bytes went out, is the gate's reply without rows (its result counts them). {@code waitMs} bounds the whole export.
   */
  public Future<GateReply> export(ExportRequest request, long waitMs) {
    return gate.<JsonObject>request(Addresses.GATE_EXPORT, request.toJson(), waitMs).map(GateReply::fromJson);
  }

  /** Every row of {@code sql}, no cap: the evaluation's grading. */
  public Future<GateReply> grade(String sql) {
    return grading.<JsonObject>request(Addresses.GATE_GRADE, new JsonObject().put("sql", sql)).map(GateReply::fromJson);
  }
}
