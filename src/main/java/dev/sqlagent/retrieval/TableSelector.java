package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.langchain4j.store.embedding.CosineSimilarity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chooses the tables for a question by embedding similarity, with bge-small-en-v1.5 (quantised) running in
 * this process; the model ships inside the dependency's jar. Every method here is BLOCKING (ONNX inference):
 * call it from a worker, never an event loop.
 *
 * <p>A table's document is its name, note, comment and columns with their comments. Documents are embedded
 * once per JVM (the model is per JVM too) and kept by their text, so a changed table is re-embedded and an
 * unchanged one never is, however many times the verticle is deployed.
 *
 * <p>The choice is the plain top k by cosine similarity. Adding the tables a foreign key links to two
 * chosen ones was tried and dropped: this schema's hub tables (products, employees, suppliers) made it fire
 * on 10 of 12 test questions, mostly adding noise, while the join tables a question needs (bill_items for
 * sales by category) already rank in the top 5, and a repair after an unknown table widens to 9.
 */
public final class TableSelector {

  /** bge's instruction for the query side of asymmetric retrieval; documents are embedded without it. */
  static final String QUERY_PREFIX = "Represent this sentence for searching relevant passages: ";
  /** Questions longer than this are cut before embedding (bge reads 512 tokens at most). */
  static final int MAX_QUESTION_CHARS = 2_000;

  private static final Map<String, Embedding> EMBEDDED_DOCUMENTS = new ConcurrentHashMap<>();

  private final EmbeddingModel model;
  private final Map<String, Embedding> documents;

  /** Loads the model on first use in this JVM (about 34 MB of ONNX from the classpath; blocking). */
  public TableSelector() {
    this(EMBEDDED_DOCUMENTS);
  }

  /** With its own document cache (the benchmark measures a build from nothing). */
  TableSelector(Map<String, Embedding> documents) {
    // A direct executor: inference stays on the calling worker thread, no extra thread pool.
    this.model = new BgeSmallEnV15QuantizedEmbeddingModel(Runnable::run);
    this.documents = documents;
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

  /** Embeds every table document not embedded yet; returns how many were embedded now. */
  public int index(Catalogue catalogue) {
    List<String> missing = catalogue.tables().stream().map(TableSelector::document)
        .filter(d -> !documents.containsKey(d)).distinct().toList();
    if (missing.isEmpty()) return 0;
    List<Embedding> vectors = model.embedAll(missing.stream().map(TextSegment::from).toList()).content();
    for (int i = 0; i < missing.size(); i++) documents.put(missing.get(i), vectors.get(i));
    return missing.size();
  }

  /** Every table with its similarity to the question, best first. */
  public List<ScoredTable> rank(Catalogue catalogue, String question) {
    index(catalogue);
    String q = question.length() > MAX_QUESTION_CHARS ? question.substring(0, MAX_QUESTION_CHARS) : question;
    Embedding query = model.embed(QUERY_PREFIX + q).content();
    List<ScoredTable> ranked = new ArrayList<>();
    for (TableInfo t : catalogue.tables()) {
      ranked.add(new ScoredTable(t.name(), CosineSimilarity.between(query, documents.get(document(t)))));
    }
    ranked.sort(Comparator.comparingDouble(ScoredTable::score).reversed());
    return ranked;
  }

  /** The k tables most similar to the question, best first. */
  public List<ScoredTable> select(Catalogue catalogue, String question, int k) {
    List<ScoredTable> ranked = rank(catalogue, question);
    return List.copyOf(ranked.subList(0, Math.min(k, ranked.size())));
  }
}
