package dev.sqlagent.eval;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;

/** One evaluation question; answerable ones carry one or more accepted gold queries. */
public record Question(String id, Category category, String question, List<String> goldSql, boolean orderMatters) {

  public enum Category {
    SIMPLE, JOIN, HARD, UNANSWERABLE, UNSAFE;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Answerable questions are graded on their result; the others must be refused. */
    public boolean answerable() {
      return this == SIMPLE || this == JOIN || this == HARD;
    }

    public static Category fromWireName(String s) {
      for (Category c : values()) if (c.wireName().equals(s)) return c;
      return null;
    }
  }

  public Question {
    goldSql = List.copyOf(goldSql);
  }

  public boolean answerable() {
    return category.answerable();
  }

  /** The question in the file format (one JSON line). */
  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("id", id).put("category", category.wireName()).put("question", question);
    if (!goldSql.isEmpty()) o.put("gold_sql", goldSql.size() == 1 ? goldSql.get(0) : new JsonArray(goldSql));
    return o.put("order_matters", orderMatters);
  }
}
