package dev.sqlagent.values;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the phrases of a question that name stored values. Longest phrases first, each word used once: a run
 * of up to four words that equals a whole value (case and spaces aside), else is within the fuzzy bounds of a
 * whole value as one phrase ('suresh kulkarny' → 'Suresh Kulkarni'), before any shorter run; then single words
 * that are one word of a value. The fuzzy bounds: an edit in a phrase or word of 5 or more letters, two from 9,
 * the first two letters as written. Neighbouring words whose values lie in the same table make one phrase
 * ('Penelope Guiness' → first_name, last_name). Words of the schema's own names and common question words are
 * not looked up.
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

  /** Words {@code from} to {@code to} stand for these values; {@code whole}: each hit is the whole value. */
  private record Found(int from, int to, List<ValueIndex.Hit> hits, boolean whole) {}

  /**
   * @param tables only values of these relations (the ones offered to the model); null: any
   * @param schemaWords lower-case words of table and column names, never looked up as values
   */
  public static List<ValueMatch> match(ValueIndex index, String question, Set<String> tables, Set<String> schemaWords) {
    return match(index.lookups(), question, tables, schemaWords);
  }

  /**
   * The lookups of a question that need no tables, made before the tables are chosen (alongside the question's
   * embedding): every phrase the question could look up whole, and the single words it will likely look up
   * fuzzily, over all tables. {@link Prepared#match} then gives exactly what {@link #match(ValueIndex, String,
   * Set, Set)} gives for the tables chosen, looking up there what was not made here. BLOCKING (Lucene): on a
   * worker.
   *
   * @param schemaWordsOfAnyTable words of the names of every table and column (see {@code schemaWords} of
   *     {@link #match}): not looked up fuzzily here, as the tables that name them are usually among those chosen
   */
  public static Prepared prepare(ValueIndex index, String question, Set<String> schemaWordsOfAnyTable) {
    List<Word> words = words(question);
    Set<String> phrases = new HashSet<>();
    for (int len = Math.min(LONGEST_PHRASE, words.size()); len >= 1; len--) {
      for (int i = 0; i + len <= words.size(); i++) {
        // what match looks up with no schema words at all: a superset of what it looks up with any
        if (len == 1 ? !skip(words.get(i).folded(), Set.of())
            : !(skip(words.get(i).folded(), Set.of()) && skip(words.get(i + len - 1).folded(), Set.of()))) {
          phrases.add(phrase(question, words, i, len));
        }
      }
    }
    ValueIndex.Ranked exact = index.exactRanked(phrases, Prepared.EXACT_DEPTH);
    // The words of a phrase stored whole somewhere are usually used by it, and then not looked up fuzzily.
    Set<String> stored = new HashSet<>();
    for (int i = 0; i < exact.size(); i++) stored.add(ValueIndex.fold(exact.get(i).value()));
    boolean[] covered = new boolean[words.size()];
    for (int len = Math.min(LONGEST_PHRASE, words.size()); len >= 1; len--) {
      for (int i = 0; i + len <= words.size(); i++) {
        if (stored.contains(phrase(question, words, i, len))) java.util.Arrays.fill(covered, i, i + len, true);
      }
    }
    Map<String, Integer> fuzzyPhrases = new HashMap<>();
    for (int len = Math.min(LONGEST_PHRASE, words.size()); len >= 2; len--) {
      for (int i = 0; i + len <= words.size(); i++) {
        if (anyUsed(covered, i, len) || !fuzzyPhrase(words, i, len, schemaWordsOfAnyTable)) continue;
        String p = phrase(question, words, i, len);
        fuzzyPhrases.putIfAbsent(p, edits(p));
      }
    }
    Map<String, Integer> fuzzy = new HashMap<>();
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i).folded();
      if (!covered[i] && !skip(w, schemaWordsOfAnyTable) && w.length() >= 4) fuzzy.putIfAbsent(w, edits(w));
    }
    return new Prepared(index, question, phrases, exact, fuzzy, fuzzyPhrases);
  }

  /** {@link #prepare(ValueIndex, String, Set)} knowing no schema words. */
  public static Prepared prepare(ValueIndex index, String question) {
    return prepare(index, question, Set.of());
  }

  /**
   * A question's lookups done over all tables, answering for any set of tables (see {@link #prepare}). Used by one
   * thread at a time (made on one worker, matched on another after it).
   */
  public static final class Prepared implements ValueIndex.Lookups {
    /** Fuzzy hits kept per word, best first: enough that the best in the offered tables is nearly always among them. */
    static final int FUZZY_DEPTH = 32;
    /** Exact hits kept for the whole question; more, and each lookup is done again with its tables. */
    static final int EXACT_DEPTH = 4_096;

    private final ValueIndex index;
    private final String question;
    private final Set<String> phrases;
    private final ValueIndex.Ranked exact;
    private final Map<String, ValueIndex.Ranked> fuzzy = new HashMap<>();
    private final Map<String, Integer> fuzzyEdits;
    private final Map<String, ValueIndex.Ranked> fuzzyPhrases = new HashMap<>();
    private final Map<String, Integer> fuzzyPhraseEdits;

    private Prepared(ValueIndex index, String question, Set<String> phrases, ValueIndex.Ranked exact,
        Map<String, Integer> fuzzyEdits, Map<String, Integer> fuzzyPhraseEdits) {
      this.index = index;
      this.question = question;
      this.phrases = phrases;
      this.exact = exact;
      this.fuzzyEdits = fuzzyEdits;
      this.fuzzyPhraseEdits = fuzzyPhraseEdits;
      fuzzyEdits.forEach((w, e) -> fuzzy.put(w, index.fuzzyRanked(w, e, FUZZY_DEPTH)));
      fuzzyPhraseEdits.forEach((p, e) -> fuzzyPhrases.put(p, index.fuzzyPhraseRanked(p, e, FUZZY_DEPTH)));
    }

    public String question() {
      return question;
    }

    ValueIndex index() {
      return index;
    }

    /** The question's matches in these tables (null: any), as {@link ValueMatcher#match} finds them. */
    public List<ValueMatch> match(Set<String> tables, Set<String> schemaWords) {
      return ValueMatcher.match(this, question, tables, schemaWords);
    }

    @Override
    public List<ValueIndex.Hit> exact(Collection<String> foldedPhrases, Set<String> tables, int max) {
      if (!exact.complete() || !phrases.containsAll(foldedPhrases)) return index.exact(foldedPhrases, tables, max);
      Set<String> wanted = foldedPhrases instanceof Set<String> set ? set : new HashSet<>(foldedPhrases);
      List<ValueIndex.Hit> out = new ArrayList<>();
      for (int i = 0; i < exact.size() && out.size() < max; i++) {
        ValueIndex.Hit h = exact.get(i);
        if ((tables == null || tables.contains(h.table())) && wanted.contains(ValueIndex.fold(h.value()))) out.add(h);
      }
      return out;
    }

    @Override
    public List<ValueIndex.Hit> fuzzyWord(String word, int edits, Set<String> tables, int max) {
      ValueIndex.Ranked ranked = fuzzy.get(word);
      if (ranked == null || fuzzyEdits.get(word) != edits) return index.fuzzyWord(word, edits, tables, max);
      List<ValueIndex.Hit> out = kept(ranked, tables, max);
      return out != null ? out : index.fuzzyWord(word, edits, tables, max);
    }

    @Override
    public List<ValueIndex.Hit> fuzzyPhrase(String foldedPhrase, int edits, Set<String> tables, int max) {
      ValueIndex.Ranked ranked = fuzzyPhrases.get(foldedPhrase);
      if (ranked == null || fuzzyPhraseEdits.get(foldedPhrase) != edits) {
        return index.fuzzyPhrase(foldedPhrase, edits, tables, max);
      }
      List<ValueIndex.Hit> out = kept(ranked, tables, max);
      return out != null ? out : index.fuzzyPhrase(foldedPhrase, edits, tables, max);
    }

    /** The first {@code max} kept hits in these tables; null when they may lie among those not kept. */
    private static List<ValueIndex.Hit> kept(ValueIndex.Ranked ranked, Set<String> tables, int max) {
      List<ValueIndex.Hit> out = new ArrayList<>();
      for (int i = 0; i < ranked.size(); i++) {
        ValueIndex.Hit h = ranked.get(i);
        if (tables == null || tables.contains(h.table())) out.add(h);
        if (out.size() >= max) return out;
      }
      // fewer than max among the kept hits: the rest are among those not kept, unless every hit was kept
      return ranked.complete() ? out : null;
    }
  }

  private static List<ValueMatch> match(ValueIndex.Lookups index, String question, Set<String> tables,
      Set<String> schemaWords) {
    List<Word> words = words(question);
    return phrases(question, words, found(index, question, words, tables, schemaWords));
  }

  /**
   * The stored values the question's phrases name, in every table (the lookups made over all tables,
   * {@link #prepare}): only the phrases that are a whole value, as written or within the fuzzy bounds, each with
   * at most {@link #MAX_PER_PHRASE} values, in the question's order. A word that is only one word of a value
   * links nothing. {@code schemaWords}: words of every table's and column's names.
   */
  public static List<ValueMatch> wholeValues(Prepared prepared, Set<String> schemaWords) {
    String question = prepared.question();
    List<Word> words = words(question);
    List<ValueMatch> out = new ArrayList<>();
    for (Found f : found(prepared, question, words, null, schemaWords)) {
      if (!f.whole()) continue;
      List<ValueMatch.Stored> stored = new ArrayList<>();
      f.hits().forEach(h -> stored.add(new ValueMatch.Stored(h.table(), h.column(), h.value())));
      out.add(new ValueMatch(question.substring(words.get(f.from()).start(), words.get(f.to()).end()), stored));
    }
    return out;
  }

  /** Every phrase that names stored values, each word in one phrase at most, in the question's order. */
  private static List<Found> found(ValueIndex.Lookups index, String question, List<Word> words, Set<String> tables,
      Set<String> schemaWords) {
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
    for (int s = 0; s < spans.size(); s++) {
      int[] span = spans.get(s);
      List<ValueIndex.Hit> hits = byPhrase.get(phrase(question, words, span[0], span[1]));
      if (!hits.isEmpty() && !anyUsed(used, span[0], span[1])) {
        found.add(new Found(span[0], span[0] + span[1] - 1, hits, true));
        java.util.Arrays.fill(used, span[0], span[0] + span[1], true);
      }
      // Before any shorter phrase: the phrases of this length that are a whole value within the fuzzy bounds.
      int len = span[1];
      if (len >= 2 && (s + 1 == spans.size() || spans.get(s + 1)[1] != len)) {
        for (int i = 0; i + len <= words.size(); i++) {
          if (anyUsed(used, i, len) || !fuzzyPhrase(words, i, len, schemaWords)) continue;
          String p = phrase(question, words, i, len);
          List<ValueIndex.Hit> near = index.fuzzyPhrase(p, edits(p), tables, MAX_PER_PHRASE);
          if (near.isEmpty()) continue;
          found.add(new Found(i, i + len - 1, near, true));
          java.util.Arrays.fill(used, i, i + len, true);
        }
      }
    }
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i).folded();
      if (used[i] || skip(w, schemaWords) || w.length() < 4) continue;
      int edits = edits(w);
      List<ValueIndex.Hit> hits = index.fuzzyWord(w, edits, tables, 1);
      if (hits.isEmpty()) continue;
      // a value of one word, and this word within its bounds, is the whole value
      found.add(new Found(i, i, hits, ValueIndex.fold(hits.get(0).value()).indexOf(' ') < 0));
      used[i] = true;
    }
    found.sort((a, b) -> Integer.compare(a.from(), b.from()));
    return found;
  }

  /**
   * Whether words {@code from} .. {@code from + len - 1} are looked up fuzzily as one phrase: neither end a
   * question or schema word, and long enough for an edit.
   */
  private static boolean fuzzyPhrase(List<Word> words, int from, int len, Set<String> schemaWords) {
    return !skip(words.get(from).folded(), schemaWords) && !skip(words.get(from + len - 1).folded(), schemaWords)
        && words.get(from + len - 1).end() - words.get(from).start() >= 5;
  }

  private static List<Word> words(String question) {
    List<Word> words = new ArrayList<>();
    Matcher m = WORD.matcher(question);
    while (m.find()) words.add(new Word(m.group(), m.group().toLowerCase(Locale.ROOT), m.start(), m.end()));
    return words;
  }

  /** Edits a word may differ by: one from 5 letters, two from 9. */
  private static int edits(String folded) {
    return ValueIndex.edits(folded);
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
