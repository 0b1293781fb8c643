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

  private final BusClient bus;

  public BudgetClient(Vertx vertx) {
    this.bus = new BusClient(vertx, BUDGETS, TIMEOUT_MS, true);
  }

  public Future<Admission> admit(Admit request) {
    return bus.<JsonObject>request(Addresses.BUDGET_ADMIT, request.toJson()).map(Admission::fromJson);
  }

  public Future<Usages> usage(UsageRequest request) {
    return bus.<JsonObject>request(Addresses.BUDGET_USAGE, request.toJson()).map(Usages::fromJson);
  }
}
