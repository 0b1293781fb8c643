package dev.sqlagent.contract;

import dev.sqlagent.users.User;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** The budgets' messages: may this user's question start, what has a user used today, and the facts for metrics. */
public final class BudgetMessages {
  private BudgetMessages() {}

  /** {@code Addresses.BUDGET_ADMIT}: may {@code user}'s question start now? Counted as one question when it may. */
  public record Admit(User user) {
    public JsonObject toJson() {
      return new JsonObject().put("user", user == null ? null : user.toJson());
    }

    public static Admit fromJson(JsonObject j) {
      return new Admit(j == null ? null : User.fromJson(j.getJsonObject("user")));
    }
  }

  /**
   * The reply to {@link Admit}: admitted, or refused with the budget that is spent ({@code questions_per_day},
   * {@code tokens_per_day}, {@code cost_usd_per_day}), what was used of it today, its limit, whose budget it is and
   * when it starts again (the next midnight, UTC).
   */
  public record Admission(boolean admitted, Spent refusedBy, String resetsAt, long retryAfterS) {
    public static Admission yes() {
      return new Admission(true, null, null, 0);
    }

    public JsonObject toJson() {
      return new JsonObject().put("admitted", admitted).put("refused_by", refusedBy == null ? null : refusedBy.toJson())
          .put("resets_at", resetsAt).put("retry_after_s", retryAfterS);
    }

    public static Admission fromJson(JsonObject j) {
      return new Admission(j.getBoolean("admitted", true),
          j.getJsonObject("refused_by") == null ? null : Spent.fromJson(j.getJsonObject("refused_by")),
          j.getString("resets_at"), j.getLong("retry_after_s", 0L));
    }
  }

  /** One budget of one user today: what was used, its limit (null: unlimited) and whose budget sets it. */
  public record Spent(String budget, double used, Double limit, String from) {
    public JsonObject toJson() {
      boolean money = budget.startsWith("cost");
      return new JsonObject().put("budget", budget).put("used", money ? (Object) used : (Object) Math.round(used))
          .put("limit", limit == null ? null : money ? (Object) limit : (Object) Math.round(limit)).put("from", from);
    }

    public static Spent fromJson(JsonObject j) {
      return new Spent(j.getString("budget"), j.getDouble("used", 0.0), j.getDouble("limit"), j.getString("from"));
    }
  }

  /** One user's day: each budget's use and limit, and when the day's counts start again. */
  public record Usage(String user, String day, String resetsAt, List<Spent> budgets) {
    public JsonObject toJson() {
      JsonArray b = new JsonArray();
      budgets.forEach(s -> b.add(s.toJson()));
      return new JsonObject().put("user", user).put("day", day).put("resets_at", resetsAt).put("budgets", b);
    }

    public static Usage fromJson(JsonObject j) {
      JsonArray b = j.getJsonArray("budgets", new JsonArray());
      return new Usage(j.getString("user"), j.getString("day"), j.getString("resets_at"),
          b.stream().map(o -> Spent.fromJson((JsonObject) o)).toList());
    }
  }

  /**
   * {@code Addresses.BUDGET_USAGE}: what {@code caller} asks to see: their own day ({@code user} null, not
   * {@code all}), one user's or everyone's (admins only).
   */
  public record UsageRequest(User caller, String user, boolean all) {
    public JsonObject toJson() {
      return new JsonObject().put("caller", caller == null ? null : caller.toJson()).put("user", user).put("all", all);
    }

    public static UsageRequest fromJson(JsonObject j) {
      return new UsageRequest(User.fromJson(j.getJsonObject("caller")), j.getString("user"), j.getBoolean("all", false));
    }
  }

  /** The reply to {@link UsageRequest}: one user's day, or every user's with a count today or in the users file. */
  public record Usages(List<Usage> users) {
    public JsonObject toJson() {
      JsonArray a = new JsonArray();
      users.forEach(u -> a.add(u.toJson()));
      return new JsonObject().put("users", a);
    }

    public static Usages fromJson(JsonObject j) {
      return new Usages(j.getJsonArray("users", new JsonArray()).stream().map(o -> Usage.fromJson((JsonObject) o)).toList());
    }
  }

  /**
   * Published on {@code Addresses.BUDGET_FACTS} for the metrics: {@code refused} (a question refused by
   * {@code budget}) or {@code used} ({@code amount} counted against {@code budget}), or {@code unchecked} (the state
   * store did not answer in time: the question went ahead uncounted).
   */
  public record BudgetFact(String kind, String budget, double amount) {
    public static final String REFUSED = "refused";
    public static final String USED = "used";
    public static final String UNCHECKED = "unchecked";

    public JsonObject toJson() {
      return new JsonObject().put("kind", kind).put("budget", budget).put("amount", amount);
    }

    public static BudgetFact fromJson(JsonObject j) {
      return new BudgetFact(j.getString("kind"), j.getString("budget"), j.getDouble("amount", 0.0));
    }
  }
}
