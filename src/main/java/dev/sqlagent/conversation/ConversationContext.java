package dev.sqlagent.conversation;

import dev.sqlagent.generation.ChatClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The earlier turns of a conversation as prompt text, within a token budget. Each turn has three forms, from
 * full (question, SQL, result summary) to short (question and how it ended); the OLDEST turns are shortened
 * first, then dropped, so the turn a follow-up most likely refers to keeps its SQL longest. Turns that ended
 * in a give-up or a refusal say so: their SQL is no foundation to build on.
 */
public final class ConversationContext {

  /** Forms of one turn, longest first. */
  private static final int FULL = 0;
  private static final int NO_VALUES = 1;
  private static final int QUESTION_ONLY = 2;
  private static final int DROPPED = 3;

  private ConversationContext() {}

  /** The text for these turns (oldest first), at most {@code budgetTokens} as estimated; empty when none fit. */
  public static String render(List<Turn> turns, int budgetTokens) {
    return render(turns, budgetTokens, true);
  }

  /**
   * The same; without {@code rows} (the data policy sends the model no result rows) no turn shows its first rows, only
   * its SQL, row count and columns.
   */
  public static String render(List<Turn> turns, int budgetTokens, boolean rows) {
    int[] form = new int[turns.size()];
    if (!rows) java.util.Arrays.fill(form, NO_VALUES);
    String text = text(turns, form);
    for (int level = NO_VALUES; level <= DROPPED && ChatClient.estimate(text.length()) > budgetTokens; level++) {
      for (int i = 0; i < turns.size() && ChatClient.estimate(text.length()) > budgetTokens; i++) {
        form[i] = level;
        text = text(turns, form);
      }
    }
    return text;
  }

  private static String text(List<Turn> turns, int[] form) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < turns.size(); i++) {
      if (form[i] != DROPPED) parts.add(turn(turns.get(i), form[i]));
    }
    if (parts.isEmpty()) return "";
    return "Earlier turns of this conversation, oldest first (the question may refer to them):\n"
        + String.join("\n", parts);
  }

  static String turn(Turn t, int form) {
    StringBuilder b = new StringBuilder("Turn ").append(t.turn());
    if (Turn.GAVE_UP.equals(t.outcome())) b.append(" (GAVE UP: no answer; do not reuse its SQL)");
    if (Turn.REFUSED.equals(t.outcome())) b.append(" (REFUSED: not answerable or not allowed)");
    b.append(": ").append(oneLine(t.question())).append('\n');
    if (form == QUESTION_ONLY) return b.toString().stripTrailing();
    if (t.finalSql() != null && Turn.ANSWERED.equals(t.outcome())) b.append("  SQL: ").append(oneLine(t.finalSql())).append('\n');
    if (Turn.ANSWERED.equals(t.outcome())) {
      JsonObject s = t.summary();
      b.append("  Result: ").append(s.getInteger("row_count", 0)).append(" rows")
          .append(s.getBoolean("truncated", false) ? " (more existed)" : "");
      JsonArray cols = s.getJsonArray("columns", new JsonArray());
      if (!cols.isEmpty()) b.append("; columns ").append(String.join(", ", cols.stream().map(String::valueOf).toList()));
      JsonArray rows = s.getJsonArray("rows", new JsonArray());
      if (form == FULL && !rows.isEmpty()) b.append("; first rows ").append(rows.encode());
      b.append('\n');
    }
    return b.toString().stripTrailing();
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").strip();
  }
}
