package dev.sqlagent.users;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which budget holds for whom, as the users file says: a user's own ({@code budget:} on the user), their groups'
 * (the file's {@code groups:} section, named by the user's {@code groups:} or by a sign-on claim) and the default
 * ({@code default_budget:}) for everyone else.
 *
 * <p>Each limit is taken from the most specific place that sets it: the user's own budget, else their groups', else
 * the default; set nowhere, it is unlimited. Among several groups the most generous limit holds: a group grants an
 * allowance, so being in one more group never takes away what another gave (a catch-all group cannot silently cap
 * everyone in it); to hold one person back, give them a budget of their own.
 */
public record Budgets(Map<String, Budget> ofUser, Map<String, Budget> ofGroup, Budget fallback) {

  public static final Budgets NONE = new Budgets(Map.of(), Map.of(), Budget.NONE);

  public Budgets {
    ofUser = Map.copyOf(ofUser);
    ofGroup = Map.copyOf(ofGroup);
  }

  /** One limit that holds for a user: its value ({@link Budget#UNLIMITED} when none) and the budget it comes from. */
  public record Limit(double value, String from) {
    public boolean limited() {
      return value != Budget.UNLIMITED;
    }
  }

  /** Whether any budget is written at all (otherwise nobody is limited and nothing need be checked first). */
  public boolean any() {
    return !ofUser.isEmpty() || !ofGroup.isEmpty() || !fallback.limits().isEmpty();
  }

  /** The limits that hold for the user named {@code name} in {@code groups} (groups without a budget count for nothing). */
  public Map<Budget.Kind, Limit> limitsFor(String name, List<String> groups) {
    Map<Budget.Kind, Limit> limits = new EnumMap<>(Budget.Kind.class);
    Budget own = ofUser.getOrDefault(name, Budget.NONE);
    for (Budget.Kind kind : Budget.Kind.values()) {
      Optional<Double> mine = own.limit(kind);
      if (mine.isPresent()) {
        limits.put(kind, new Limit(mine.get(), "user " + name));
        continue;
      }
      Limit best = null;
      for (String group : groups == null ? List.<String>of() : groups) {
        Budget b = ofGroup.get(group);
        Optional<Double> v = b == null ? Optional.empty() : b.limit(kind);
        if (v.isPresent() && (best == null || v.get() > best.value())) best = new Limit(v.get(), "group " + group);
      }
      if (best == null) {
        best = fallback.limit(kind).map(v -> new Limit(v, "default")).orElse(new Limit(Budget.UNLIMITED, null));
      }
      limits.put(kind, best);
    }
    return limits;
  }
}
