package dev.sqlagent.contract;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * What the agent asks of the verified queries: the closest to a question, and retiring one the gate refused.
 * Not node-local: clustered, the library lives on the one node that holds the singleton duties.
 */
public final class VerifiedClient {

  public static final String VERIFIED = "the verified-query library";

  private final BusClient bus;

  public VerifiedClient(Vertx vertx, long timeoutMs) {
    this.bus = new BusClient(vertx, VERIFIED, timeoutMs);
  }

  public Future<VerifiedMessages.Matches> lookup(VerifiedMessages.Lookup request) {
    return bus.<JsonObject>request(Addresses.VERIFIED_LOOKUP, request.toJson()).map(VerifiedMessages.Matches::fromJson);
  }

  /** Retires it; replied with the entry as it now is. */
  public Future<JsonObject> retire(VerifiedMessages.Retire request) {
    return bus.request(Addresses.VERIFIED_RETIRE, request.toJson());
  }
}
