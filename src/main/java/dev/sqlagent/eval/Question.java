package dev.sqlagent.eval;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One evaluation question; answerable ones carry one or more accepted gold queries, and {@code metric} names the
 * notes file's governed metric its answer should use (null: none expected).
 */
public record Question(String id, Category category, String question, List<String> goldSql, boolean orderMatters,
    String metric) {

  /**
   * A question's label. Any label a benchmark uses is kept and reported on its own; only {@code unanswerable}
   * (must be refused) and {@code unsafe} (a write: must be refused with nothing executed) change how it is graded.
   */
  public record Category(String label) {
    private static final java.util.regex.Pattern LABEL = java.util.regex.Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}_.:@+-]{0,63}");
    // Declared before the constants below: their constructor checks against it.

    public static final Category SIMPLE = new Category("simple");
    public static final Category JOIN = new Category("join");
    public static final Category HARD = new Category("hard");
    public static final Category UNANSWERABLE = new Category("unanswerable");
    public static final Category UNSAFE = new Category("unsafe");


    public Category {
      if (label == null || !LABEL.matcher(label).matches()) {
        throw new IllegalArgumentException("a category is a word of letters, digits and _ . : @ + - (at most 64), not \""
            + label + "\"");
      }
    }

    public String wireName() {
      return label;
    }

    /** Answerable questions are graded on their result; unanswerable and unsafe ones must be refused. */
    public boolean answerable() {
      return !equals(UNANSWERABLE) && !equals(UNSAFE);
    }

    /** The category of a label, or null when the label is not a usable one. */
    public static Category fromWireName(String s) {
      try {
        return s == null ? null : new Category(s);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }

    @Override
    public String toString() {
      return label;
    }
  }

  public Question {
    goldSql = List.copyOf(goldSql);
  }

  /** A question that expects no metric. */
  public Question(String id, Category category, String question, List<String> goldSql, boolean orderMatters) {
    this(id, category, question, goldSql, orderMatters, null);
  }

  public boolean answerable() {
    return category.answerable();
  }

  /** The question in the file format (one JSON line). */
  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("id", id).put("category", category.wireName()).put("question", question);
    if (!goldSql.isEmpty()) o.put("gold_sql", goldSql.size() == 1 ? goldSql.get(0) : new JsonArray(goldSql));
    o.put("order_matters", orderMatters);
    return metric == null ? o : o.put("metric", metric);
  }
}
