package dev.sqlagent.budget;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.BudgetClient;
import dev.sqlagent.contract.BudgetMessages.UsageRequest;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/**
 * {@code GET /api/usage}: what the caller used today of each budget, its limit and when it resets; for an admin every
 * user's ({@code {"users": [...]}}), or one user's with {@code ?user=name}. Another user's is 403 for anyone else.
 */
public final class UsageRoutes {

  private UsageRoutes() {}

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    BudgetClient budgets = new BudgetClient(vertx);
    router.get("/api/usage").handler(ctx -> {
      User caller = Users.of(ctx);
      String user = ctx.queryParams().get("user");
      boolean all = user == null && caller != null && caller.admin();
      budgets.usage(new UsageRequest(caller, user, all))
          .onSuccess(usages -> ctx.json(all ? usages.toJson() : usages.users().get(0).toJson()))
          .onFailure(err -> JsonErrors.send(ctx, err, BudgetClient.BUDGETS));
    });
  }
}
