package dev.sqlagent.values;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * Stored values indexed in memory with Apache Lucene, for matching the words of a question to the values as
 * the database stores them: a whole value by its case- and space-folded form ({@code 'united kingdom'} →
 * 'United Kingdom'), one word of a value by a fuzzy term query, which tolerates an edit or two
 * ({@code 'guinness'} → 'GUINESS'). Built once per read, searched by any number of threads; blocking.
 */
public final class ValueIndex implements AutoCloseable {

  static final String TABLE = "table";
  static final String TABLE_KEY = "table_key";
  static final String COLUMN = "column";
  static final String VALUE = "value";
  static final String EXACT = "exact";
  static final String WORDS = "words";

  /** One hit: where the value is stored, and how good the hit is (Lucene's score). */
  record Hit(String table, String column, String value, float score) {}

  /**
   * Hits in the order a search returns them (best first), each read when first asked for; and whether they are
   * all the hits there are.
   */
  final class Ranked {
    private final ScoreDoc[] docs;
    private final Hit[] read;
    private final boolean complete;

    private Ranked(ScoreDoc[] docs, boolean complete) {
      this.docs = docs;
      this.read = new Hit[docs.length];
      this.complete = complete;
    }

    int size() {
      return docs.length;
    }

    Hit get(int i) {
      if (read[i] == null) {
        try {
          read[i] = hit(docs[i]);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return read[i];
    }

    boolean complete() {
      return complete;
    }
  }

  /** The two lookups the matcher makes: of this index itself, or of lookups made before ({@link ValueMatcher.Prepared}). */
  interface Lookups {
    List<Hit> exact(Collection<String> foldedPhrases, Set<String> tables, int max);

    List<Hit> fuzzyWord(String word, int edits, Set<String> tables, int max);
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
    };
  }

  private final ByteBuffersDirectory directory;
  private final DirectoryReader reader;
  private final IndexSearcher searcher;
  private final int values;

  private ValueIndex(ByteBuffersDirectory directory, int values) throws IOException {
    this.directory = directory;
    this.reader = DirectoryReader.open(directory);
    this.searcher = new IndexSearcher(reader);
    this.values = values;
  }

  /** Indexes every value of the given columns. */
  public static ValueIndex build(Collection<ColumnValues> columns) {
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    int n = 0;
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer(CharArraySet.EMPTY_SET))
        .setRAMBufferSizeMB(64).setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (ColumnValues c : columns) {
        for (String v : c.values()) {
          Document d = new Document();
          d.add(new StoredField(TABLE, c.table()));
          d.add(new StringField(TABLE_KEY, c.table(), Field.Store.NO));
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
      return new ValueIndex(dir, n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int size() {
    return values;
  }

  /**
   * Values whose folded form is exactly one of these phrases (already folded), in the given tables only: one
   * search for all the phrases of a question. Each hit's {@link #fold folded} value says which phrase it is.
   */
  List<Hit> exact(Collection<String> foldedPhrases, Set<String> tables, int max) {
    if (foldedPhrases.isEmpty()) return List.of();
    return search(new TermInSetQuery(EXACT, foldedPhrases.stream().map(BytesRef::new).toList()), tables, max);
  }

  /** Values holding a word within {@code edits} edits of this one (lower case), best first. */
  List<Hit> fuzzyWord(String word, int edits, Set<String> tables, int max) {
    // The first two letters must match: fewer terms to expand, and a misspelling rarely starts wrong.
    return search(fuzzyQuery(word, edits), tables, max);
  }

  private static Query fuzzyQuery(String word, int edits) {
    return new FuzzyQuery(new Term(WORDS, word), edits, Math.min(2, word.length() - 1), 50, true);
  }

  /** {@link #exact} in every table: the first {@code depth} hits, in the order a search of some tables returns them. */
  Ranked exactRanked(Collection<String> foldedPhrases, int depth) {
    if (foldedPhrases.isEmpty()) return new Ranked(new ScoreDoc[0], true);
    return ranked(new TermInSetQuery(EXACT, foldedPhrases.stream().map(BytesRef::new).toList()), depth);
  }

  /** {@link #fuzzyWord} in every table: the best {@code depth} hits, in the order a search of some tables returns them. */
  Ranked fuzzyRanked(String word, int edits, int depth) {
    return ranked(fuzzyQuery(word, edits), depth);
  }

  /**
   * The first hits of a query over every table. A search of some tables ({@link #search}) only adds a filter,
   * which scores nothing: its hits are these hits of those tables, in the same order (score, then document).
   */
  private Ranked ranked(Query query, int depth) {
    try {
      TopDocs top = searcher.search(query, depth + 1);
      return new Ranked(java.util.Arrays.copyOf(top.scoreDocs, Math.min(depth, top.scoreDocs.length)),
          top.scoreDocs.length <= depth);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Hit hit(ScoreDoc sd) throws IOException {
    Document d = searcher.storedFields().document(sd.doc);
    return new Hit(d.get(TABLE), d.get(COLUMN), d.get(VALUE), sd.score);
  }

  private List<Hit> search(Query query, Set<String> tables, int max) {
    try {
      Query q = tables == null ? query : new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
          .add(new TermInSetQuery(TABLE_KEY, tables.stream().map(BytesRef::new).toList()), BooleanClause.Occur.FILTER)
          .build();
      List<Hit> hits = new ArrayList<>();
      for (ScoreDoc sd : searcher.search(q, max).scoreDocs) hits.add(hit(sd));
      return hits;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Lower case, runs of spaces as one, trimmed: how a phrase and a value are compared whole. */
  static String fold(String s) {
    return s.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
  }

  /** Bytes of the index's files, all held in memory. */
  public long indexBytes() {
    try {
      long total = 0;
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
