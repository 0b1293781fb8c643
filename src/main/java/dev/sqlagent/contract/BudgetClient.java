package dev.sqlagent.contract;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.contract.BudgetMessages.Admission;
import dev.sqlagent.contract.BudgetMessages.Admit;
import dev.sqlagent.contract.BudgetMessages.UsageRequest;
import dev.sqlagent.contract.BudgetMessages.Usages;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * The caller's side of the budgets: node-local (each node checks against the shared state store itself). Fails only
 * with a {@code BusError}.
 */
public final class BudgetClient {

  public static final String BUDGETS = "the budgets";
  /** Longer than the budgets' own wait on the state store, so their answer (admitted unchecked) comes first. */
  static final long TIMEOUT_MS = 5_000;

  private final Vertx vertx;
  private final BusClient bus;

  public BudgetClient(Vertx vertx) {
    this.vertx = vertx;
    this.bus = new BusClient(vertx, BUDGETS, TIMEOUT_MS, true);
  }

  public Future<Admission> admit(Admit request) {
    return bus.<JsonObject>request(Addresses.BUDGET_ADMIT, request.toJson()).map(Admission::fromJson);
  }

  /** A question {@link #admit} counted never started: its count is given back (nothing is replied). */
  public void refund(Admit request) {
    vertx.eventBus().send(Addresses.BUDGET_REFUND, request.toJson(),
        new io.vertx.core.eventbus.DeliveryOptions().setLocalOnly(true));
  }

  public Future<Usages> usage(UsageRequest request) {
    return bus.<JsonObject>request(Addresses.BUDGET_USAGE, request.toJson()).map(Usages::fromJson);
  }
}
