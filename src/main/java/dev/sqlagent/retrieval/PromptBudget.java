package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.generation.ChatClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Fits the schema text of the chosen tables into a token budget ({@code SQLAGENT_PROMPT_BUDGET}; tokens are
 * estimated as characters / 4, {@link ChatClient#estimate}). No chosen table is ever dropped: the LEAST
 * relevant tables' column lists are shortened first, one table at a time, until the text fits:
 * <ol>
 *   <li>a table keeps its key columns, foreign-key columns and the columns whose name or comment shares a
 *       word with the question, other than the table's own name (at least one column); the rest are named on one line
 *       ({@code -- … 23 more columns: a, b, c});</li>
 *   <li>if that is not enough, the hidden columns are only counted ({@code -- 23 more columns not shown});</li>
 *   <li>last, the shown columns lose their comments.</li>
 * </ol>
 * Each step goes over every table, least relevant first, before the next step starts. A text still over the
 * budget after all three is returned as it is, flagged {@code overBudget}. The text lists the tables in name order.
 */
public final class PromptBudget {
  private PromptBudget() {}

  /**
   * The schema text and, per table, what is shown of it.
   *
   * @param shown each table with only its shown columns (the samples are read for those), in input order
   * @param shortened how many tables lost columns
   */
  public record Fitted(String schema, List<TableInfo> shown, int tokens, int shortened, boolean overBudget) {}

  private static final Set<String> STOP = Set.of("the", "and", "for", "how", "many", "much", "what", "which", "who",
      "whom", "whose", "was", "were", "are", "is", "per", "with", "from", "that", "this", "these", "those", "have",
      "has", "had", "did", "does", "each", "all", "any", "our", "their", "there", "than", "then", "into", "onto",
      "by", "in", "of", "on", "to", "at", "or", "not", "give", "show", "list", "tell", "me", "we", "us", "you");

  /**
   * @param tables the chosen tables, most relevant first (join tables, added last, are shortened first)
   * @param question the words whose columns stay
   */
  public static Fitted fit(List<TableInfo> tables, String question, int budgetTokens) {
    Set<String> words = words(question);
    int n = tables.size();
    int[] level = new int[n];
    String[] text = new String[n];
    for (int i = 0; i < n; i++) text[i] = SchemaText.ddl(tables.get(i));
    int chars = total(text);
    int shortened = 0;
    for (int step = 1; step <= 3 && ChatClient.estimate(chars) > budgetTokens; step++) {
      for (int i = n - 1; i >= 0 && ChatClient.estimate(chars) > budgetTokens; i--) {
        Set<String> keep = essential(tables.get(i), words);
        if (keep.size() == tables.get(i).columns().size() && step < 3) continue;  // nothing to hide
        String shorter = SchemaText.ddl(tables.get(i), keep, step == 1, step < 3);
        if (shorter.length() >= text[i].length()) continue;
        if (level[i] == 0) shortened++;
        chars += shorter.length() - text[i].length();
        text[i] = shorter;
        level[i] = step;
      }
    }
    List<TableInfo> shown = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      TableInfo t = tables.get(i);
      if (level[i] == 0) {
        shown.add(t);
      } else {
        Set<String> keep = essential(t, words);
        shown.add(new TableInfo(t.name(), t.schema(), t.relname(), t.kind(), t.onSearchPath(), t.comment(), t.note(),
            t.rowCount(), t.columns().stream().filter(c -> keep.contains(c.name())).toList(), t.primaryKey(),
            t.foreignKeys()));
      }
    }
    // The text lists the tables by name, not by relevance: two questions over the same tables then share the whole
    // schema block, which a model server's prompt cache reads only once.
    Integer[] byName = new Integer[n];
    for (int i = 0; i < n; i++) byName[i] = i;
    Arrays.sort(byName, java.util.Comparator.comparing(i -> tables.get(i).name()));
    String schema = String.join("\n", Arrays.stream(byName).map(i -> text[i]).toList());
    int tokens = ChatClient.estimate(schema.length());
    return new Fitted(schema, List.copyOf(shown), tokens, shortened, tokens > budgetTokens);
  }

  /**
   * The columns a shortened table keeps: keys, foreign-key columns, columns the question names; never none.
   * The words of the table's own name do not count ("refunds" in the question keeps no refund_* column: the
   * question named the table, not those columns).
   */
  static Set<String> essential(TableInfo t, Set<String> questionWords) {
    Set<String> words = new HashSet<>(questionWords);
    words.removeAll(words(t.relname()));
    Set<String> keep = new LinkedHashSet<>(t.primaryKey());
    for (TableInfo.ForeignKey fk : t.foreignKeys()) keep.addAll(fk.columns());
    for (TableInfo.Column c : t.columns()) {
      if (mentioned(c, words)) keep.add(c.name());
    }
    if (keep.isEmpty() && !t.columns().isEmpty()) keep.add(t.columns().get(0).name());
    return keep;
  }

  /** Whether a column's name or comment shares a word (or a word's stem) with the question. */
  static boolean mentioned(TableInfo.Column c, Set<String> questionWords) {
    Set<String> own = new HashSet<>(words(c.name().replaceAll("([a-z])([A-Z])", "$1 $2")));
    if (c.comment() != null) own.addAll(words(c.comment()));
    for (String w : own) {
      if (questionWords.contains(w)) return true;
    }
    return false;
  }

  /** Lower-case words of 3 or more letters that are not function words, each with its stem (no plural s). */
  static Set<String> words(String text) {
    Set<String> out = new HashSet<>();
    if (text == null) return out;
    for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+|_")) {
      if (w.length() < 3 || STOP.contains(w)) continue;
      out.add(stem(w));
    }
    return out;
  }

  private static String stem(String w) {
    if (w.endsWith("ies") && w.length() > 4) return w.substring(0, w.length() - 3) + "y";
    if (w.endsWith("ses") || w.endsWith("xes")) return w.substring(0, w.length() - 2);
    if (w.endsWith("s") && !w.endsWith("ss") && w.length() > 3) return w.substring(0, w.length() - 1);
    return w;
  }

  private static int total(String[] text) {
    return Arrays.stream(text).mapToInt(String::length).sum() + Math.max(0, text.length - 1);
  }
}
