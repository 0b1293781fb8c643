package dev.sqlagent.users;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What a user, a group or everyone else may spend in a day (UTC), as the users file writes it:
 * {@code budget: {questions_per_day: 50, tokens_per_day: 200000, cost_usd_per_day: 2.0}}. A limit not written is
 * not set here (a less specific budget may set it); {@code unlimited} lifts one that a less specific budget sets.
 */
public record Budget(Map<Kind, Double> limits) {

  /** The kinds of limit, by the name the file, the refusals and {@code /api/usage} give them. */
  public enum Kind {
    QUESTIONS("questions_per_day", "questions"),
    TOKENS("tokens_per_day", "model tokens"),
    COST_USD("cost_usd_per_day", "model cost in USD");

    private final String wireName;
    private final String words;

    Kind(String wireName, String words) {
      this.wireName = wireName;
      this.words = words;
    }

    public String wireName() {
      return wireName;
    }

    /** What it counts, for messages. */
    public String words() {
      return words;
    }
  }

  /** A limit lifted: {@code unlimited} in the file. */
  public static final double UNLIMITED = Double.POSITIVE_INFINITY;
  public static final Budget NONE = new Budget(Map.of());

  public Budget {
    EnumMap<Kind, Double> copy = new EnumMap<>(Kind.class);
    copy.putAll(limits);
    limits = Collections.unmodifiableMap(copy);
  }

  /** The limit this budget sets for {@code kind} ({@link #UNLIMITED} when it lifts it); empty when it sets none. */
  public Optional<Double> limit(Kind kind) {
    return Optional.ofNullable(limits.get(kind));
  }

  /**
   * Reads a budget mapping of the users file.
   *
   * @throws IllegalArgumentException naming {@code at} and what to write instead
   */
  static Budget parse(Object value, String at) {
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(at + ": budget must be a mapping like {questions_per_day: 50, tokens_per_day: 200000, "
          + "cost_usd_per_day: 2.0}");
    }
    EnumMap<Kind, Double> limits = new EnumMap<>(Kind.class);
    for (Map.Entry<?, ?> e : map.entrySet()) {
      Kind kind = null;
      for (Kind k : Kind.values()) if (k.wireName.equals(String.valueOf(e.getKey()))) kind = k;
      if (kind == null) {
        throw new IllegalArgumentException(at + ": unknown budget \"" + e.getKey() + "\"; known: questions_per_day, "
            + "tokens_per_day, cost_usd_per_day");
      }
      Object v = e.getValue();
      if (v instanceof String s && s.strip().toLowerCase(Locale.ROOT).equals("unlimited")) {
        limits.put(kind, UNLIMITED);
        continue;
      }
      boolean whole = v instanceof Integer || v instanceof Long;
      if (!(v instanceof Number n) || n.doubleValue() < 0 || Double.isNaN(n.doubleValue()) || Double.isInfinite(n.doubleValue())
          || (kind != Kind.COST_USD && !whole)) {
        throw new IllegalArgumentException(at + ": " + kind.wireName + " must be " + (kind == Kind.COST_USD
            ? "a number of US dollars, 0 or more" : "a whole number, 0 or more") + ", or unlimited");
      }
      limits.put(kind, n.doubleValue());
    }
    return new Budget(limits);
  }
}
