package dev.sqlagent.values;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import dev.sqlagent.notes.TableNames;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * Stored values indexed in memory with Apache Lucene, for matching the words of a question to the values as
 * the database stores them: a whole value by its case- and space-folded form ({@code 'united kingdom'} →
 * 'United Kingdom'), one word of a value, or a whole value, within an edit or two ({@code 'guinness'} →
 * 'GUINESS'). Built once per read, searched by any number of threads; blocking.
 *
 * <p>Lookups read the term dictionary and postings directly rather than scoring a query: the terms within the
 * edits, closest first (then in term order), at most {@link #MAX_EXPANSIONS} of them; each term's values in index
 * order; the tables checked against an array of every value's table, so a lookup in some tables costs no filter
 * over the index. A term held by many values (a word like 'road' in 60,000 addresses) is read only until enough
 * hits are found. A scored fuzzy query with a table filter spent most of its time merging such postings under the
 * filter: the lookup p99 on 1,000,000 values was over 20 ms.
 */
public final class ValueIndex implements AutoCloseable {

  /** Runs of white space, compiled once: every phrase a question is read for is folded. */
  private static final Pattern SPACES = Pattern.compile("\\s+");

  static final String TABLE = "table";
  static final String TABLE_ORD = "table_ord";
  static final String COLUMN = "column";
  static final String VALUE = "value";
  static final String EXACT = "exact";
  static final String WORDS = "words";
  /** Most terms a fuzzy lookup reads, closest first. */
  static final int MAX_EXPANSIONS = 50;

  /** One hit: where the value is stored, and how close (1 for the phrase or word as written, less per edit). */
  record Hit(String table, String column, String value, float score) {}

  /**
   * Hits in the order a lookup returns them (best first), each read when first asked for; and whether they are
   * all the hits there are.
   */
  final class Ranked {
    private final int[] docs;
    private final float[] scores;
    private final Hit[] read;
    private final boolean complete;

    private Ranked(int[] docs, float[] scores, boolean complete) {
      this.docs = docs;
      this.scores = scores;
      this.read = new Hit[docs.length];
      this.complete = complete;
    }

    int size() {
      return docs.length;
    }

    Hit get(int i) {
      if (read[i] == null) read[i] = hit(docs[i], scores[i]);
      return read[i];
    }

    boolean complete() {
      return complete;
    }
  }

  /** The three lookups the matcher makes: of this index itself, or of lookups made before ({@link ValueMatcher.Prepared}). */
  interface Lookups {
    List<Hit> exact(Collection<String> foldedPhrases, Set<String> tables, int max);

    List<Hit> fuzzyWord(String word, int edits, Set<String> tables, int max);

    List<Hit> fuzzyPhrase(String foldedPhrase, int edits, Set<String> tables, int max);
  }

  /** This index's own lookups. */
  Lookups lookups() {
    return new Lookups() {
      @Override
      public List<Hit> exact(Collection<String> foldedPhrases, Set<String> tables, int max) {
        return ValueIndex.this.exact(foldedPhrases, tables, max);
      }

      @Override
      public List<Hit> fuzzyWord(String word, int edits, Set<String> tables, int max) {
        return ValueIndex.this.fuzzyWord(word, edits, tables, max);
      }

      @Override
      public List<Hit> fuzzyPhrase(String foldedPhrase, int edits, Set<String> tables, int max) {
        return ValueIndex.this.fuzzyPhrase(foldedPhrase, edits, tables, max);
      }
    };
  }

  private final ByteBuffersDirectory directory;
  private final DirectoryReader reader;
  private final int values;
  /** The index's one segment (forceMerge(1)); null when it holds no value. */
  private final LeafReader leaf;
  /** Every value's table, by document: an ordinal into {@link #tableNames}. */
  private final int[] tableOf;
  private final Map<String, Integer> tableOrdinals;
  /** Near words by edits and word ({@link #nearWords}). */
  private final Map<String, List<NearWord>> nearKept = new java.util.concurrent.ConcurrentHashMap<>();

  private ValueIndex(ByteBuffersDirectory directory, int values, List<String> tableNames) throws IOException {
    this.directory = directory;
    this.reader = DirectoryReader.open(directory);
    this.values = values;
    List<LeafReaderContext> leaves = reader.leaves();
    if (leaves.size() > 1) throw new IllegalStateException("the value index has " + leaves.size() + " segments, not one");
    this.leaf = leaves.isEmpty() ? null : leaves.get(0).reader();
    this.tableOf = new int[reader.maxDoc()];
    if (leaf != null) {
      NumericDocValues ords = leaf.getNumericDocValues(TABLE_ORD);
      for (int d = ords.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = ords.nextDoc()) tableOf[d] = (int) ords.longValue();
    }
    Map<String, Integer> ordinals = new HashMap<>();
    for (int i = 0; i < tableNames.size(); i++) ordinals.put(tableNames.get(i), i);
    this.tableOrdinals = ordinals;
  }

  /** Indexes every value of the given columns. */
  public static ValueIndex build(Collection<ColumnValues> columns) {
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    int n = 0;
    Map<String, Integer> ordinals = new LinkedHashMap<>();
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer(CharArraySet.EMPTY_SET))
        .setRAMBufferSizeMB(64).setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (ColumnValues c : columns) {
        int ord = ordinals.computeIfAbsent(c.table(), t -> ordinals.size());
        for (String v : c.values()) {
          Document d = new Document();
          d.add(new StoredField(TABLE, c.table()));
          d.add(new NumericDocValuesField(TABLE_ORD, ord));
          d.add(new StoredField(COLUMN, c.column()));
          d.add(new StoredField(VALUE, v));
          d.add(new StringField(EXACT, fold(v), Field.Store.NO));
          d.add(new TextField(WORDS, v, Field.Store.NO));
          writer.addDocument(d);
          n++;
        }
      }
      writer.forceMerge(1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return new ValueIndex(dir, n, List.copyOf(ordinals.keySet()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int size() {
    return values;
  }

  /**
   * Values whose folded form is exactly one of these phrases (already folded), in the given tables only (null:
   * any), in index order: one lookup for all the phrases of a question. Each hit's {@link #fold folded} value says
   * which phrase it is.
   */
  List<Hit> exact(Collection<String> foldedPhrases, Set<String> tables, int max) {
    return hits(exactDocs(foldedPhrases, allowed(tables), max), max);
  }

  /** Values holding a word within {@code edits} edits of this one (lower case), best first. */
  List<Hit> fuzzyWord(String word, int edits, Set<String> tables, int max) {
    return hits(fuzzyDocs(word, edits, allowed(tables), max), max);
  }

  /**
   * Whole values within {@code edits} edits of this phrase (already folded), best first: 'suresh kulkarny' →
   * 'Suresh Kulkarni', a value a word-by-word lookup would split over two others. Each word of the value is within
   * the bounds of the phrase's word ({@link #edits}), the edits in all at most {@code edits}.
   */
  List<Hit> fuzzyPhrase(String foldedPhrase, int edits, Set<String> tables, int max) {
    return hits(phraseDocs(foldedPhrase, edits, allowed(tables), max), max);
  }

  /** Edits a word or phrase may differ by: one from 5 letters, two from 9. */
  static int edits(String folded) {
    return folded.length() >= 9 ? 2 : folded.length() >= 5 ? 1 : 0;
  }

  /** {@link #exact} in every table: the first {@code depth} hits, in the order a lookup of some tables returns them. */
  Ranked exactRanked(Collection<String> foldedPhrases, int depth) {
    return ranked(exactDocs(foldedPhrases, null, depth + 1), depth);
  }

  /** {@link #fuzzyWord} in every table: the best {@code depth} hits, in the order a lookup of some tables returns them. */
  Ranked fuzzyRanked(String word, int edits, int depth) {
    return ranked(fuzzyDocs(word, edits, null, depth + 1), depth);
  }

  /** {@link #fuzzyPhrase} in every table: the best {@code depth} hits (see {@link #fuzzyRanked}). */
  Ranked fuzzyPhraseRanked(String foldedPhrase, int edits, int depth) {
    return ranked(phraseDocs(foldedPhrase, edits, null, depth + 1), depth);
  }

  /** Documents found, in order, with how close each is. */
  private record Docs(int[] docs, float[] scores, int size) {}

  /** Which tables' values a lookup keeps (by ordinal); null: every table. */
  private boolean[] allowed(Set<String> tables) {
    if (tables == null) return null;
    boolean[] ok = new boolean[tableOrdinals.size()];
    for (String t : tables) {
      Integer ord = tableOrdinals.get(t);
      if (ord != null) ok[ord] = true;
    }
    return ok;
  }

  /** The values of every phrase in these tables, in index order (a lookup of some tables keeps this order). */
  private Docs exactDocs(Collection<String> foldedPhrases, boolean[] allowed, int max) {
    if (leaf == null || foldedPhrases.isEmpty() || max <= 0) return new Docs(new int[0], new float[0], 0);
    try {
      Terms terms = leaf.terms(EXACT);
      if (terms == null) return new Docs(new int[0], new float[0], 0);
      TermsEnum te = terms.iterator();
      PostingsEnum pe = null;
      IntArrayList found = new IntArrayList();
      for (String p : foldedPhrases) {
        if (!te.seekExact(new BytesRef(p))) continue;
        pe = te.postings(pe, PostingsEnum.NONE);
        for (int d = pe.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = pe.nextDoc()) {
          if (allowed == null || allowed[tableOf[d]]) found.add(d);
        }
      }
      int[] docs = found.sortedDistinct();
      int n = Math.min(max, docs.length);
      float[] scores = new float[n];
      java.util.Arrays.fill(scores, 1f);
      return new Docs(java.util.Arrays.copyOf(docs, n), scores, n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The values holding a word within {@code edits} of {@code word}: the closest words first (ties in text order,
   * at most {@link #MAX_EXPANSIONS}), each word's values in index order, a value once, only those of {@code allowed}
   * tables, at most {@code max}.
   */
  private Docs fuzzyDocs(String word, int edits, boolean[] allowed, int max) {
    if (leaf == null || max <= 0) return new Docs(new int[0], new float[0], 0);
    try {
      Terms terms = leaf.terms(WORDS);
      if (terms == null) return new Docs(new int[0], new float[0], 0);
      List<NearWord> near = nearWords(terms, word, edits);
      TermsEnum te = terms.iterator();
      PostingsEnum pe = null;
      int[] docs = new int[Math.min(max, 64)];
      float[] scores = new float[docs.length];
      int n = 0;
      java.util.Set<Integer> seen = new HashSet<>();
      for (int i = 0; i < Math.min(MAX_EXPANSIONS, near.size()) && n < max; i++) {
        if (!te.seekExact(new BytesRef(near.get(i).word()))) continue;
        pe = te.postings(pe, PostingsEnum.NONE);
        for (int d = pe.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS && n < max; d = pe.nextDoc()) {
          if ((allowed != null && !allowed[tableOf[d]]) || !seen.add(d)) continue;
          if (n == docs.length) {
            docs = java.util.Arrays.copyOf(docs, Math.min(max, docs.length * 2));
            scores = java.util.Arrays.copyOf(scores, docs.length);
          }
          docs[n] = d;
          scores[n++] = 1f - (float) near.get(i).edits() / word.length();
        }
      }
      return new Docs(docs, scores, n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Words whose near words are kept ({@link #nearWords}); past it the kept ones are forgotten. */
  static final int NEAR_WORDS_KEPT = 20_000;

  /** Forgets the near words kept: the next lookups build every word's automaton anew (benchmarks). */
  void forgetNearWords() {
    nearKept.clear();
  }

  /**
   * The indexed words within {@code edits} of {@code word}, the first two letters as written, closest first (ties
   * in text order), the word itself first whether indexed or not. Kept per word: a question looks a word up in
   * every phrase that holds it, and questions repeat words; the Levenshtein automaton a word needs costs far more
   * to build than to run.
   */
  private List<NearWord> nearWords(Terms words, String word, int edits) throws IOException {
    String key = edits + ":" + word;
    List<NearWord> kept = nearKept.get(key);
    if (kept != null) return kept;
    List<NearWord> n = new ArrayList<>();
    n.add(new NearWord(word, 0));
    if (edits > 0) {
      TermsEnum te = FuzzyQuery.getFuzzyAutomaton(word, edits, Math.min(2, word.length() - 1), true).getTermsEnum(words);
      for (BytesRef t = te.next(); t != null; t = te.next()) {
        String term = t.utf8ToString();
        if (!term.equals(word)) n.add(new NearWord(term, TableNames.distance(word, term)));
      }
    }
    n.sort((a, b) -> a.edits() != b.edits() ? Integer.compare(a.edits(), b.edits()) : a.word().compareTo(b.word()));
    List<NearWord> out = List.copyOf(n);
    if (nearKept.size() >= NEAR_WORDS_KEPT) nearKept.clear();
    nearKept.put(key, out);
    return out;
  }

  /** Most terms near one word of a phrase that are tried in the phrase's place. */
  static final int PHRASE_WORD_EXPANSIONS = 16;

  /** One phrase made of near words, and its edits in all. */
  private record Variant(String phrase, int edits) {}

  /** An indexed word near a word of a phrase, and how many edits apart. */
  private record NearWord(String word, int edits) {}

  /**
   * {@link #fuzzyPhrase}: the phrase's words each replaced by indexed words within their bounds (closest first, at
   * most {@link #PHRASE_WORD_EXPANSIONS} each), every variant within {@code edits} in all looked up whole; the
   * variants with fewest edits first (ties in text order), each variant's values in index order. A Levenshtein
   * automaton over the whole phrase would cost milliseconds to build for a phrase of 20 letters.
   */
  private Docs phraseDocs(String foldedPhrase, int edits, boolean[] allowed, int max) {
    if (leaf == null || max <= 0) return new Docs(new int[0], new float[0], 0);
    try {
      Terms words = leaf.terms(WORDS);
      Terms whole = leaf.terms(EXACT);
      if (words == null || whole == null) return new Docs(new int[0], new float[0], 0);
      String[] parts = foldedPhrase.split(" ");
      List<List<NearWord>> near = new ArrayList<>(parts.length);
      for (String w : parts) {
        List<NearWord> n = nearWords(words, w, Math.min(edits, edits(w)));
        near.add(n.subList(0, Math.min(PHRASE_WORD_EXPANSIONS, n.size())));
      }
      List<Variant> variants = new ArrayList<>();
      variants(near, 0, new StringBuilder(), 0, edits, variants);
      variants.sort((a, b) -> a.edits() != b.edits() ? Integer.compare(a.edits(), b.edits()) : a.phrase().compareTo(b.phrase()));
      TermsEnum te = whole.iterator();
      PostingsEnum pe = null;
      int[] docs = new int[Math.min(max, 64)];
      float[] scores = new float[docs.length];
      int n = 0;
      for (int i = 0; i < variants.size() && n < max; i++) {
        Variant v = variants.get(i);
        if (v.edits() == 0 || !te.seekExact(new BytesRef(v.phrase()))) continue;  // as written: an exact lookup
        pe = te.postings(pe, PostingsEnum.NONE);
        for (int d = pe.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS && n < max; d = pe.nextDoc()) {
          if (allowed != null && !allowed[tableOf[d]]) continue;
          if (n == docs.length) {
            docs = java.util.Arrays.copyOf(docs, Math.min(max, docs.length * 2));
            scores = java.util.Arrays.copyOf(scores, docs.length);
          }
          docs[n] = d;
          scores[n++] = 1f - (float) v.edits() / foldedPhrase.length();
        }
      }
      return new Docs(docs, scores, n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every phrase of one near word per place, within {@code budget} edits in all (near words carry their edits as boost). */
  private static void variants(List<List<NearWord>> near, int at, StringBuilder prefix, int used, int budget, List<Variant> out) {
    if (at == near.size()) {
      out.add(new Variant(prefix.toString(), used));
      return;
    }
    int mark = prefix.length();
    for (NearWord n : near.get(at)) {
      if (used + n.edits() > budget) continue;
      if (at > 0) prefix.append(' ');
      prefix.append(n.word());
      variants(near, at + 1, prefix, used + n.edits(), budget, out);
      prefix.setLength(mark);
    }
  }

  private List<Hit> hits(Docs found, int max) {
    List<Hit> out = new ArrayList<>(Math.min(max, found.size()));
    for (int i = 0; i < Math.min(max, found.size()); i++) out.add(hit(found.docs()[i], found.scores()[i]));
    return out;
  }

  /** The first {@code depth} of documents looked up for {@code depth + 1}: complete when no more were found. */
  private Ranked ranked(Docs found, int depth) {
    int n = Math.min(depth, found.size());
    return new Ranked(java.util.Arrays.copyOf(found.docs(), n), java.util.Arrays.copyOf(found.scores(), n),
        found.size() <= depth);
  }

  private Hit hit(int doc, float score) {
    try {
      Document d = leaf.storedFields().document(doc);
      return new Hit(d.get(TABLE), d.get(COLUMN), d.get(VALUE), score);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A growing list of document numbers. */
  private static final class IntArrayList {
    private int[] a = new int[16];
    private int n;

    void add(int v) {
      if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
      a[n++] = v;
    }

    int[] sortedDistinct() {
      int[] out = java.util.Arrays.copyOf(a, n);
      java.util.Arrays.sort(out);
      int m = 0;
      for (int i = 0; i < out.length; i++) if (i == 0 || out[i] != out[i - 1]) out[m++] = out[i];
      return java.util.Arrays.copyOf(out, m);
    }
  }

  /** Lower case, runs of spaces as one, trimmed: how a phrase and a value are compared whole. */
  static String fold(String s) {
    return SPACES.matcher(s.strip()).replaceAll(" ").toLowerCase(Locale.ROOT);
  }

  /** Bytes of the index's files, all held in memory, and of the table of every value's table. */
  public long indexBytes() {
    try {
      long total = 4L * tableOf.length;
      for (String file : directory.listAll()) total += directory.fileLength(file);
      return total;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      reader.close();
      directory.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
