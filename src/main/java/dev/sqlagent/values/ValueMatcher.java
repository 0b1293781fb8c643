package dev.sqlagent.values;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the phrases of a question that name stored values. Longest phrases first, each word used once: a run
 * of up to four words that equals a whole value (case and spaces aside), then single words that are one word
 * of a value, allowing an edit in words of 5 or more letters and two from 9. Neighbouring words whose values
 * lie in the same table make one phrase ('Penelope Guiness' → first_name, last_name). Words of the schema's
 * own names and common question words are not looked up.
 */
public final class ValueMatcher {

  /** Most phrases offered per question, and most stored forms per phrase. */
  static final int MAX_MATCHES = 8;
  static final int MAX_PER_PHRASE = 3;
  private static final int LONGEST_PHRASE = 4;
  /** Most exact hits read for one question (over all its phrases). */
  private static final int MAX_EXACT_HITS = 200;

  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}'&.-]*[\\p{L}\\p{N}]|[\\p{L}\\p{N}]");
  private static final Set<String> STOP = Set.of("the", "and", "for", "how", "many", "much", "what", "which", "who",
      "whom", "whose", "was", "were", "are", "is", "per", "with", "from", "that", "this", "these", "those", "have",
      "has", "had", "did", "does", "each", "all", "any", "our", "their", "there", "than", "then", "into", "onto",
      "by", "in", "of", "on", "to", "at", "or", "not", "give", "show", "list", "tell", "me", "we", "us", "you",
      "total", "number", "count", "average", "sum", "most", "least", "top", "last", "first", "year", "month", "day",
      "week", "when", "where", "between", "over", "under", "more", "less", "name", "names", "value", "values");

  private ValueMatcher() {}

  private record Word(String text, String folded, int start, int end) {}

  private record Found(int from, int to, List<ValueIndex.Hit> hits) {}

  /**
   * @param tables only values of these relations (the ones offered to the model); null: any
   * @param schemaWords lower-case words of table and column names, never looked up as values
   */
  public static List<ValueMatch> match(ValueIndex index, String question, Set<String> tables, Set<String> schemaWords) {
    List<Word> words = new ArrayList<>();
    Matcher m = WORD.matcher(question);
    while (m.find()) words.add(new Word(m.group(), m.group().toLowerCase(Locale.ROOT), m.start(), m.end()));
    boolean[] used = new boolean[words.size()];
    List<Found> found = new ArrayList<>();
    // Every candidate phrase at once, then the longest that matched first, each word used once.
    Map<String, List<ValueIndex.Hit>> byPhrase = new HashMap<>();
    List<int[]> spans = new ArrayList<>();
    for (int len = Math.min(LONGEST_PHRASE, words.size()); len >= 1; len--) {
      for (int i = 0; i + len <= words.size(); i++) {
        boolean lookedUp = len == 1 ? !skip(words.get(i).folded(), schemaWords)
            : !(skip(words.get(i).folded(), schemaWords) && skip(words.get(i + len - 1).folded(), schemaWords));
        if (!lookedUp) continue;
        spans.add(new int[] {i, len});
        byPhrase.putIfAbsent(phrase(question, words, i, len), new ArrayList<>());
      }
    }
    for (ValueIndex.Hit h : index.exact(byPhrase.keySet(), tables, MAX_EXACT_HITS)) {
      List<ValueIndex.Hit> hits = byPhrase.get(ValueIndex.fold(h.value()));
      if (hits != null && hits.size() < MAX_PER_PHRASE) hits.add(h);
    }
    for (int[] span : spans) {
      List<ValueIndex.Hit> hits = byPhrase.get(phrase(question, words, span[0], span[1]));
      if (hits.isEmpty() || anyUsed(used, span[0], span[1])) continue;
      found.add(new Found(span[0], span[0] + span[1] - 1, hits));
      for (int j = span[0]; j < span[0] + span[1]; j++) used[j] = true;
    }
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i).folded();
      if (used[i] || skip(w, schemaWords) || w.length() < 4) continue;
      int edits = w.length() >= 9 ? 2 : w.length() >= 5 ? 1 : 0;
      List<ValueIndex.Hit> hits = index.fuzzyWord(w, edits, tables, 1);
      if (hits.isEmpty()) continue;
      found.add(new Found(i, i, hits));
      used[i] = true;
    }
    found.sort((a, b) -> Integer.compare(a.from(), b.from()));
    return phrases(question, words, found);
  }

  /** Neighbouring single hits in the same table, on different columns, read as one phrase. */
  private static List<ValueMatch> phrases(String question, List<Word> words, List<Found> found) {
    List<ValueMatch> out = new ArrayList<>();
    int i = 0;
    while (i < found.size() && out.size() < MAX_MATCHES) {
      Found f = found.get(i);
      List<ValueMatch.Stored> stored = new ArrayList<>();
      f.hits().forEach(h -> stored.add(new ValueMatch.Stored(h.table(), h.column(), h.value())));
      int to = f.to();
      int j = i + 1;
      while (f.hits().size() == 1 && j < found.size() && joins(found.get(j), to, stored)) {
        ValueIndex.Hit h = found.get(j).hits().get(0);
        stored.add(new ValueMatch.Stored(h.table(), h.column(), h.value()));
        to = found.get(j).to();
        j++;
      }
      out.add(new ValueMatch(question.substring(words.get(f.from()).start(), words.get(to).end()), stored));
      i = j;
    }
    return out;
  }

  /** Whether a single hit right after the phrase lies in the phrase's table, on a column it does not use yet. */
  private static boolean joins(Found next, int to, List<ValueMatch.Stored> stored) {
    if (next.from() != to + 1 || next.hits().size() != 1) return false;
    ValueIndex.Hit h = next.hits().get(0);
    if (!h.table().equals(stored.get(0).table())) return false;
    for (ValueMatch.Stored s : stored) if (s.column().equals(h.column())) return false;
    return true;
  }

  private static String phrase(String question, List<Word> words, int from, int len) {
    return ValueIndex.fold(question.substring(words.get(from).start(), words.get(from + len - 1).end()));
  }

  private static boolean anyUsed(boolean[] used, int from, int len) {
    for (int i = from; i < from + len; i++) if (used[i]) return true;
    return false;
  }

  private static boolean skip(String folded, Set<String> schemaWords) {
    return STOP.contains(folded) || schemaWords.contains(folded) || folded.chars().allMatch(Character::isDigit);
  }
}
