package dev.sqlagent.budget;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.BudgetMessages.Admission;
import dev.sqlagent.contract.BudgetMessages.Admit;
import dev.sqlagent.contract.BudgetMessages.BudgetFact;
import dev.sqlagent.contract.BudgetMessages.Spent;
import dev.sqlagent.contract.BudgetMessages.Usage;
import dev.sqlagent.contract.BudgetMessages.UsageRequest;
import dev.sqlagent.contract.BudgetMessages.Usages;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.users.Budget;
import dev.sqlagent.users.Budgets;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each user's daily budgets ({@link Budgets}, from the users file): admits a question or refuses it naming the budget
 * that is spent ({@link Addresses#BUDGET_ADMIT}), adds each answer's model tokens and cost to its asker's day (from
 * the answers this node publishes), and tells a user, or an admin, what was used ({@link Addresses#BUDGET_USAGE}).
 * The counts live in the state store, so they survive a restart and every instance sharing the store counts
 * together. Tokens and cost are checked before a question starts: a question running when a budget runs out is
 * answered, the next one is refused.
 */
public final class BudgetVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(BudgetVerticle.class);
  /**
   * The longest a question waits for its count. The state store not answering does not stop questions (the query log
   * and run claims only wait too): past this the question goes ahead uncounted, logged and counted in the metrics.
   */
  static final long WAIT_MS = 2_000;

  private final Users users;
  private final Budgets budgets;
  private final StateDatabase state;
  private UsageRepository usage;

  public BudgetVerticle(Users users, StateDatabase state) {
    this.users = users;
    this.budgets = users.budgets();
    this.state = state;
  }

  @Override
  public Future<?> start() {
    usage = new UsageRepository(state.owner());
    var bus = vertx.eventBus();
    return Future.all(
        bus.<JsonObject>localConsumer(Addresses.BUDGET_ADMIT, m -> admit(m, Admit.fromJson(m.body()).user())).completion(),
        bus.<JsonObject>localConsumer(Addresses.BUDGET_REFUND, m -> refund(Admit.fromJson(m.body()).user())).completion(),
        bus.<JsonObject>localConsumer(Addresses.BUDGET_USAGE, m -> usage(m, UsageRequest.fromJson(m.body()))).completion(),
        // Node-local: each answer is counted once, by the node whose agent ran it.
        bus.<JsonObject>localConsumer(Addresses.ANSWERS, m -> answered(m.body())).completion());
  }

  private void admit(Message<JsonObject> msg, User user) {
    if (user == null) {
      msg.reply(Admission.yes().toJson());
      return;
    }
    Map<Budget.Kind, Budgets.Limit> limits = budgets.limitsFor(user.name(), user.groups());
    if (limits.values().stream().noneMatch(Budgets.Limit::limited)) {
      // Nothing to hold back: counted for /api/usage without the question waiting for it.
      msg.reply(Admission.yes().toJson());
      usage.count(user.name(), user.groups(), null, null, null)
          .onSuccess(d -> fact(BudgetFact.USED, Budget.Kind.QUESTIONS, 1))
          .onFailure(err -> LOG.warn("{}'s question not counted: {}", user.name(), err.toString()));
      return;
    }
    boolean nothingAllowed = limits.values().stream().anyMatch(l -> l.value() <= 0);
    Future<Boolean> counted = nothingAllowed ? Future.succeededFuture(false)
        : usage.count(user.name(), user.groups(), value(limits, Budget.Kind.QUESTIONS), value(limits, Budget.Kind.TOKENS),
            value(limits, Budget.Kind.COST_USD)).map(d -> d.isPresent());
    counted.timeout(WAIT_MS, TimeUnit.MILLISECONDS)
        .compose(admitted -> admitted ? Future.succeededFuture(Admission.yes()) : refusal(user, limits))
        .onSuccess(a -> {
          if (a.admitted()) fact(BudgetFact.USED, Budget.Kind.QUESTIONS, 1);
          msg.reply(a.toJson());
        })
        .onFailure(err -> {
          LOG.warn("{}'s question goes ahead unchecked: the state store did not count it ({})", user.name(), err.toString());
          vertx.eventBus().publish(Addresses.BUDGET_FACTS, new BudgetFact(BudgetFact.UNCHECKED, null, 1).toJson());
          msg.reply(Admission.yes().toJson());
        });
  }

  private void refund(User user) {
    if (user == null) return;
    usage.refund(user.name())
        .onFailure(err -> LOG.warn("{}'s question that never started not given back: {}", user.name(), err.toString()));
  }

  /** Which budget refused: the first one the day has reached, as the state store counts it now. */
  private Future<Admission> refusal(User user, Map<Budget.Kind, Budgets.Limit> limits) {
    return usage.today(user.name()).map(day -> {
      for (Spent s : spent(day, limits)) {
        if (s.limit() != null && s.used() >= s.limit()) {
          vertx.eventBus().publish(Addresses.BUDGET_FACTS, new BudgetFact(BudgetFact.REFUSED, s.budget(), 1).toJson());
          LOG.info("{}'s question refused: {} used {} of {}", user.name(), s.budget(), s.used(), s.limit());
          Instant resets = resetsAt(day.day());
          return new Admission(false, s, resets.toString(), Math.max(1, resets.getEpochSecond() - Instant.now().getEpochSecond()));
        }
      }
      // Under every limit again (a new day began between the two statements): admitted, though not counted.
      return Admission.yes();
    });
  }

  private void answered(JsonObject body) {
    Answer a;
    try {
      a = Answer.fromJson(body);
    } catch (IllegalArgumentException notOurs) {
      return;
    }
    long tokens = a.tokens().prompt() + a.tokens().completion();
    double cost = Math.max(0, a.costUsd());
    if (a.user() == null || (tokens <= 0 && cost <= 0)) return;
    usage.addModelUse(a.user(), tokens, cost)
        .onSuccess(v -> {
          fact(BudgetFact.USED, Budget.Kind.TOKENS, tokens);
          fact(BudgetFact.USED, Budget.Kind.COST_USD, cost);
        })
        .onFailure(err -> LOG.warn("run {}: {}'s {} tokens (USD {}) not added to their day: {}", a.runId(), a.user(), tokens,
            cost, err.toString()));
  }

  private void usage(Message<JsonObject> msg, UsageRequest request) {
    User caller = request.caller();
    if (caller == null) {
      msg.fail(BusFailure.NOT_FOUND.code(), "usage is counted per user, and no user is configured (SQLAGENT_USERS or "
          + "SQLAGENT_OIDC_ISSUER)");
      return;
    }
    boolean other = request.all() || (request.user() != null && !request.user().equals(caller.name()));
    if (other && !caller.admin()) {
      msg.fail(BusFailure.FORBIDDEN.code(), "only an admin may see another user's usage; GET /api/usage shows your own");
      return;
    }
    Future<List<Usage>> found;
    if (request.all()) {
      found = usage.todayAll().compose(days -> usage.day().map(today -> everyone(today, days)));
    } else if (other) {
      User known = users.all().stream().filter(u -> u.name().equals(request.user())).findFirst().orElse(null);
      found = usage.today(request.user()).map(day -> List.of(of(day, day.questions() > 0 || known == null ? day.groups()
          : known.groups())));
    } else {
      found = usage.today(caller.name()).map(day -> List.of(of(day, caller.groups())));
    }
    found.onSuccess(list -> msg.reply(new Usages(list).toJson()))
        .onFailure(err -> {
          LOG.warn("usage not read: {}", err.toString());
          msg.fail(BusFailure.UNAVAILABLE.code(), "the state store did not answer; try again");
        });
  }

  /** Every user counted today, and every user of the users file (at zero when they asked nothing yet). */
  private List<Usage> everyone(LocalDate today, List<UsageRepository.Day> days) {
    Map<String, Usage> all = new LinkedHashMap<>();
    for (UsageRepository.Day d : days) all.put(d.user(), of(d, d.groups()));
    for (User u : users.all()) {
      all.putIfAbsent(u.name(), of(new UsageRepository.Day(u.name(), today, 0, 0, 0, u.groups()), u.groups()));
    }
    return all.values().stream().sorted(java.util.Comparator.comparing(Usage::user)).toList();
  }

  private Usage of(UsageRepository.Day day, List<String> groups) {
    return new Usage(day.user(), day.day().toString(), resetsAt(day.day()).toString(),
        spent(day, budgets.limitsFor(day.user(), groups)));
  }

  private static List<Spent> spent(UsageRepository.Day day, Map<Budget.Kind, Budgets.Limit> limits) {
    List<Spent> out = new ArrayList<>();
    for (Budget.Kind kind : Budget.Kind.values()) {
      double used = switch (kind) {
        case QUESTIONS -> day.questions();
        case TOKENS -> day.tokens();
        case COST_USD -> day.costUsd();
      };
      Budgets.Limit l = limits.get(kind);
      out.add(new Spent(kind.wireName(), used, l.limited() ? l.value() : null, l.limited() ? l.from() : null));
    }
    return out;
  }

  private static Double value(Map<Budget.Kind, Budgets.Limit> limits, Budget.Kind kind) {
    Budgets.Limit l = limits.get(kind);
    return l.limited() ? l.value() : null;
  }

  /** The next midnight, UTC: when the day's counts start again. */
  static Instant resetsAt(LocalDate day) {
    return day.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
  }

  private void fact(String kind, Budget.Kind budget, double amount) {
    if (amount > 0) vertx.eventBus().publish(Addresses.BUDGET_FACTS, new BudgetFact(kind, budget.wireName(), amount).toJson());
  }
}
