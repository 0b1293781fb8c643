package dev.sqlagent.retrieval;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.store.embedding.CosineSimilarity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the tables for a question by embedding similarity, with all-MiniLM-L6-v2 (quantised) running in
 * this process; the model ships inside the dependency's jar. Every method here is BLOCKING (ONNX inference,
 * and the embedding store's database): call it from a worker, never an event loop.
 *
 * <p>A table's document is its name, note, comment and columns with their comments. Embeddings are cached at
 * two levels, both keyed by the exact document text, so a changed table is re-embedded and an unchanged one
 * never is: in this JVM (by text; the model is per JVM too), and in an {@link EmbeddingStore} (by model name
 * and the text's SHA-256: the state store's {@code embedding_cache}), so a restart embeds only what changed.
 *
 * <p>The similarity choice is the plain top k; {@link JoinPaths} then adds the linking tables that join the
 * chosen ones, and only those (see there for why not every foreign-key neighbour).
 */
public final class TableSelector {

  private static final Logger LOG = LoggerFactory.getLogger(TableSelector.class);

  /** The model's name in the embedding store's key: a different model never reads these vectors. */
  public static final String MODEL = "all-minilm-l6-v2-q";
  /** Questions longer than this are cut before embedding (the model reads 512 tokens at most). */
  static final int MAX_QUESTION_CHARS = dev.sqlagent.access.AskRules.MAX_QUESTION_CHARS;
  /** Documents embedded per model call, and stored per INSERT batch (progress survives a crash mid-build). */
  static final int EMBED_BATCH = 64;

  private static final Map<String, Embedding> EMBEDDED_DOCUMENTS = new ConcurrentHashMap<>();

  /**
   * What one index build did: of {@code documents} distinct table documents, how many were already in this
   * JVM, loaded from the embedding store, and embedded now (the model's work).
   */
  public record IndexStats(int documents, int inMemory, int loaded, int embedded, long storeMillis, long embedMillis) {
    public io.vertx.core.json.JsonObject toJson() {
      return new io.vertx.core.json.JsonObject().put("documents", documents).put("in_memory", inMemory)
          .put("loaded", loaded).put("embedded", embedded).put("store_ms", storeMillis).put("embed_ms", embedMillis);
    }
  }

  /** The vectors of one catalogue's tables, in catalogue order: ranking reuses them while the catalogue stays. */
  private record Indexed(Catalogue catalogue, Embedding[] vectors) {}

  private final Map<String, Embedding> documents;
  private final EmbeddingStore store;
  private volatile Indexed indexed;

  /** No persistent store. The model loads on first use in this JVM (see {@link #loadModel}). */
  public TableSelector() {
    this(EMBEDDED_DOCUMENTS, EmbeddingStore.NONE);
  }

  /** With the JVM's document cache in front of a persistent store. */
  public TableSelector(EmbeddingStore store) {
    this(EMBEDDED_DOCUMENTS, store);
  }

  /** With its own document cache (benchmarks and tests measure a build without this JVM's memory). */
  TableSelector(Map<String, Embedding> documents) {
    this(documents, EmbeddingStore.NONE);
  }

  TableSelector(Map<String, Embedding> documents, EmbeddingStore store) {
    this.documents = documents;
    this.store = store;
  }

  /**
   * Loads the model into this JVM (about 34 MB of ONNX from the classpath, once per JVM; BLOCKING). Separate so
   * a start can load it while the catalogue is discovered and cached vectors are read: a warm index needs
   * the model only to embed questions.
   */
  public static void loadModel() {
    MiniLmModel.get();
  }

  private static EmbeddingModel model() {
    return MiniLmModel.get();
  }

  /** Forgets this JVM's embeddings, as a restart would (benchmarks and tests of the persistent cache). */
  static void forgetEmbeddedDocuments() {
    EMBEDDED_DOCUMENTS.clear();
  }

  /** The text a table is found by. */
  static String document(TableInfo t) {
    StringBuilder b = new StringBuilder("Table ").append(t.name());
    String words = t.name().replace('_', ' ');
    if (!words.equals(t.name())) b.append(" (").append(words).append(')');
    b.append(". ");
    String note = SchemaText.oneLine(t.note());
    String comment = SchemaText.oneLine(t.comment());
    if (note != null) b.append(note).append(' ');
    if (comment != null && !comment.equals(note)) b.append(comment).append(' ');
    b.append("Columns: ");
    List<String> cols = new ArrayList<>();
    for (TableInfo.Column c : t.columns()) {
      String cc = SchemaText.oneLine(c.comment());
      cols.add(cc == null ? c.name() : c.name() + " (" + cc + ")");
    }
    return b.append(String.join(", ", cols)).append('.').toString();
  }

  /** Lower-case hex SHA-256 of the UTF-8 text: the document's key in the embedding store. */
  static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Makes sure every table's document has a vector: from this JVM's memory, else from the store (one query
   * for all the missing hashes), else embedded now in batches and written back to the store. A store that
   * fails is logged and bypassed (the documents are embedded instead).
   */
  public IndexStats index(Catalogue catalogue) {
    List<String> texts = catalogue.tables().stream().map(TableSelector::document).toList();
    Map<String, String> missing = new LinkedHashMap<>();  // sha256 -> text, not in memory
    int distinct = 0;
    for (String text : texts.stream().distinct().toList()) {
      distinct++;
      if (!documents.containsKey(text)) missing.put(sha256(text), text);
    }
    int inMemory = distinct - missing.size();
    int loaded = 0;
    long t0 = System.nanoTime();
    if (!missing.isEmpty()) {
      try {
        Map<String, float[]> stored = store.load(MODEL, missing.keySet());
        for (var e : stored.entrySet()) {
          String text = missing.remove(e.getKey());
          if (text != null) {
            documents.put(text, Embedding.from(e.getValue()));
            loaded++;
          }
        }
      } catch (Exception e) {
        LOG.warn("embedding cache unreadable, embedding {} documents instead: {}", missing.size(), e.toString());
      }
    }
    long t1 = System.nanoTime();
    long storeNanos = t1 - t0;
    List<Map.Entry<String, String>> pending = new ArrayList<>(missing.entrySet());
    boolean storeWorks = true;
    long embedNanos = 0;
    for (int from = 0; from < pending.size(); from += EMBED_BATCH) {
      List<Map.Entry<String, String>> batch = pending.subList(from, Math.min(pending.size(), from + EMBED_BATCH));
      long e0 = System.nanoTime();
      List<Embedding> vectors = model().embedAll(batch.stream().map(e -> TextSegment.from(e.getValue())).toList()).content();
      embedNanos += System.nanoTime() - e0;
      Map<String, float[]> fresh = new LinkedHashMap<>();
      for (int i = 0; i < batch.size(); i++) {
        documents.put(batch.get(i).getValue(), vectors.get(i));
        fresh.put(batch.get(i).getKey(), vectors.get(i).vector());
      }
      if (storeWorks) {
        long s0 = System.nanoTime();
        try {
          store.save(MODEL, fresh);
        } catch (Exception e) {
          storeWorks = false;  // one warning per build, not one per batch
          LOG.warn("embedding cache not written ({} documents will be embedded again at the next start): {}",
              pending.size() - from, e.toString());
        }
        storeNanos += System.nanoTime() - s0;
      }
    }
    Embedding[] byTable = new Embedding[texts.size()];
    for (int i = 0; i < texts.size(); i++) byTable[i] = documents.get(texts.get(i));
    indexed = new Indexed(catalogue, byTable);
    return new IndexStats(distinct, inMemory, loaded, pending.size(), storeNanos / 1_000_000, embedNanos / 1_000_000);
  }

  /** Every table with its similarity to the question, best first. */
  public List<ScoredTable> rank(Catalogue catalogue, String question) {
    Indexed idx = indexed;
    if (idx == null || idx.catalogue() != catalogue) {
      index(catalogue);
      idx = indexed;
    }
    Embedding query = embedQuestion(question);
    List<TableInfo> tables = catalogue.tables();
    List<ScoredTable> ranked = new ArrayList<>(tables.size());
    for (int i = 0; i < tables.size(); i++) {
      ranked.add(new ScoredTable(tables.get(i).name(), CosineSimilarity.between(query, idx.vectors()[i])));
    }
    ranked.sort(Comparator.comparingDouble(ScoredTable::score).reversed());
    return ranked;
  }

  /** The question's vector, as {@link #rank} compares it with the tables' (embedded as they are: no instruction). */
  public static Embedding embedQuestion(String question) {
    String q = question.length() > MAX_QUESTION_CHARS ? question.substring(0, MAX_QUESTION_CHARS) : question;
    return model().embed(q).content();
  }

  /** The k tables most similar to the question, best first. */
  public List<ScoredTable> select(Catalogue catalogue, String question, int k) {
    List<ScoredTable> ranked = rank(catalogue, question);
    return List.copyOf(ranked.subList(0, Math.min(k, ranked.size())));
  }
}
