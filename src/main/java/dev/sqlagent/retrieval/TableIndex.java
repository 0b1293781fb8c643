package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueVersion;
import dev.sqlagent.contract.ScoredTable;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedding index questions are ranked by, and its rebuild when the catalogue changes. The model (seconds to
 * load) loads on one worker while the first build gives every table its vector on another (from this JVM's memory,
 * the embedding cache, or the model), so a start does not wait for them in turn; a later build embeds only what
 * changed. A question waits for the build in progress, and the HTTP edge never does.
 */
final class TableIndex {

  private static final Logger LOG = LoggerFactory.getLogger(TableIndex.class);

  /** What the last build was: when it finished, over how many tables, from which version, and what it did. */
  private record Built(String at, int tables, CatalogueVersion from, JsonObject stats) {}

  private final Vertx vertx;
  private final TableSelector selector;
  /** Told when a build is done, before the questions waiting for it go on. */
  private final Runnable onBuilt;
  private Future<Long> modelLoaded;
  private Future<Void> ready;
  private volatile Built built;

  /** @param store the embedding cache (the state store's), or {@link EmbeddingStore#NONE} */
  TableIndex(Vertx vertx, EmbeddingStore store, Runnable onBuilt) {
    this.vertx = vertx;
    this.selector = new TableSelector(store);
    this.onBuilt = onBuilt;
  }

  /** Starts loading the model on a worker: how long it took when done. */
  void loadModel() {
    modelLoaded = vertx.executeBlocking(() -> {
      long t0 = System.nanoTime();
      TableSelector.loadModel();
      return (System.nanoTime() - t0) / 1_000_000;
    }, false);
  }

  /**
   * Gives every table of {@code catalogue} a vector, on a worker, while the model loads on another; ready when both
   * are done. Logs how long each took and where the vectors came from.
   *
   * @param from the catalogue version it is built from (what the status reports)
   */
  Future<Void> build(Catalogue catalogue, CatalogueVersion from) {
    long t0 = System.nanoTime();
    Future<JsonObject> indexed = vertx.executeBlocking(() -> {
      long t1 = System.nanoTime();
      TableSelector.IndexStats stats = selector.index(catalogue);
      return stats.toJson().put("build_ms", (System.nanoTime() - t1) / 1_000_000);
    }, false);
    Future<Long> model = modelLoaded;
    ready = Future.all(indexed, model).map(all -> {
      JsonObject stats = indexed.result().put("model_ms", model.result())
          .put("ready_ms", (System.nanoTime() - t0) / 1_000_000);
      LOG.info("table index ready in {} ms: {} tables, {} documents: {} already in memory, {} loaded from the"
              + " embedding cache, {} embedded ({} ms embedding, {} ms cache, {} ms in all); model loaded in {} ms"
              + " alongside", stats.getLong("ready_ms"), catalogue.tables().size(), stats.getInteger("documents"),
          stats.getInteger("in_memory"), stats.getInteger("loaded"), stats.getInteger("embedded"),
          stats.getLong("embed_ms"), stats.getLong("store_ms"), stats.getLong("build_ms"), stats.getLong("model_ms"));
      return stats;
    }).onFailure(e -> LOG.error("table index could not be built; retrieval is unavailable", e))
        .map(stats -> {
          built = new Built(Instant.now().toString(), catalogue.tables().size(), from, stats);
          onBuilt.run();
          return null;
        });
    return ready;
  }

  /** The build in progress or the last one: questions wait for it; failed when it failed. */
  Future<Void> ready() {
    return ready;
  }

  /** Every table of {@code catalogue} by similarity to the question, best first. BLOCKING (the model): on a worker. */
  List<ScoredTable> rank(Catalogue catalogue, String question) {
    return selector.rank(catalogue, question);
  }

  boolean built() {
    return built != null;
  }

  /** How many tables the last build held (0 before the first). */
  int tables() {
    Built b = built;
    return b == null ? 0 : b.tables();
  }

  /** When the last build finished, or null. */
  String builtAt() {
    Built b = built;
    return b == null ? null : b.at();
  }

  /** The catalogue version the last build was made from, or null. */
  CatalogueVersion builtFrom() {
    Built b = built;
    return b == null ? null : b.from();
  }

  /** What the last build did (how many documents from where, how long each part took), or null. */
  JsonObject lastBuild() {
    Built b = built;
    return b == null ? null : b.stats().copy();
  }

  /**
   * Done when the model has loaded (or failed to): a process that exits while the model loads crashes inside
   * onnxruntime, so a failed start waits for it. Never fails.
   */
  Future<Void> modelSettled() {
    return modelLoaded == null ? Future.succeededFuture() : modelLoaded.<Void>mapEmpty().otherwiseEmpty();
  }

  /** Done when the model and the build in progress are: a stop waits for both. Never fails. */
  Future<Void> settled() {
    return Future.all(ready == null ? Future.succeededFuture() : ready.otherwiseEmpty(), modelSettled()).mapEmpty();
  }
}
