package dev.sqlagent.drift;

import dev.sqlagent.catalogue.CatalogueVersion;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.db.Target;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the schema snapshot each time retrieval's index is built: it listens for
 * {@link Addresses#RETRIEVAL_BUILT} and also asks {@link Addresses#RETRIEVAL_STATUS} (every 2 s until the
 * index is built, then every 30 s), so the snapshot always describes the schema the index was built from: the
 * catalogue snapshot the index was built from when this process holds it (the status names it by its fingerprint),
 * else the catalogue's look at the target now (clustered, the index may be another node's).
 * {@code sql-agent drift} and the readiness check compare the live schema with it.
 */
public final class SchemaSnapshotVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaSnapshotVerticle.class);
  static final long POLL_UNTIL_BUILT_MS = 2_000;
  static final long POLL_AFTER_BUILT_MS = 30_000;

  private final Target target;
  private final SnapshotRepository store;
  private final List<String> schemas;
  private CatalogueHolder catalogue;
  private boolean ownsCatalogue;
  private String snapshotFor;
  private boolean writing;
  private long timer = -1;
  private RetrievalClient retrieval;

  /** @param schemas the schemas offered (empty: every readable one), as retrieval discovers them */
  public SchemaSnapshotVerticle(Target target, StateDatabase state, List<String> schemas) {
    this(target, state, schemas, null);
  }

  /** @param catalogue the process's catalogue (null: one of this verticle's own) */
  public SchemaSnapshotVerticle(Target target, StateDatabase state, List<String> schemas, CatalogueHolder catalogue) {
    this.target = target;
    this.store = new SnapshotRepository(state);
    this.schemas = List.copyOf(schemas);
    this.catalogue = catalogue;
  }

  @Override
  public Future<?> start() {
    retrieval = new RetrievalClient(vertx, 5_000);
    if (catalogue == null) {
      catalogue = CatalogueHolder.open(vertx, target, schemas);
      ownsCatalogue = true;
    }
    return store.read(target.key()).map(found -> found.map(SchemaShape::indexBuiltAt).orElse(null))
        .otherwise(e -> {
          LOG.warn("schema snapshot: {}", e.getMessage());
          return null;
        })
        .compose(existing -> {
          snapshotFor = existing;
          return vertx.eventBus().<JsonObject>consumer(Addresses.RETRIEVAL_BUILT, m -> onStatus(IndexStatus.fromJson(m.body()))).completion();
        })
        .onSuccess(v -> poll());
  }

  @Override
  public Future<?> stop() {
    if (timer != -1) vertx.cancelTimer(timer);
    return ownsCatalogue ? catalogue.close() : Future.succeededFuture();
  }

  private void poll() {
    retrieval.status()
        .onSuccess(this::onStatus)
        .onComplete(ar -> timer = vertx.setTimer(snapshotFor == null ? POLL_UNTIL_BUILT_MS : POLL_AFTER_BUILT_MS, t -> poll()));
  }

  /**
   * Whether an index built at {@code builtAt} is no newer than the one the snapshot is for. Clustered, every
   * worker has its own index: without this, statuses from two workers would take turns retaking the snapshot
   * from the live schema (hiding any drift since the newest index was built).
   */
  static boolean notNewer(String builtAt, String snapshotFor) {
    if (snapshotFor == null) return false;
    try {
      return !java.time.Instant.parse(builtAt).isAfter(java.time.Instant.parse(snapshotFor));
    } catch (java.time.format.DateTimeParseException e) {
      return false;
    }
  }

  /** The catalogue the index was built from, when this process holds it (same fingerprint), else the target now. */
  private Future<Catalogue> indexedCatalogue(CatalogueVersion built) {
    CatalogueSnapshot held = catalogue.snapshot();
    if (held != null && built != null && built.fingerprint() == held.fingerprint()) return Future.succeededFuture(held.catalogue());
    return catalogue.look();
  }

  private void onStatus(IndexStatus status) {
    if (status == null || !status.built() || writing) return;
    String builtAt = Objects.requireNonNullElse(status.builtAt(), "unknown");
    if (builtAt.equals(snapshotFor) || notNewer(builtAt, snapshotFor)) return;
    writing = true;
    indexedCatalogue(status.catalogue()).map(cat -> SchemaReader.shape(target.key(), cat))
        .compose(shape -> store.write(target.key(), shape.withIndexBuiltAt(builtAt))
            .onSuccess(v -> LOG.info("schema snapshot of {} tables, {} columns written to {} (index built at {})",
                shape.tables().size(), shape.columnCount(), store.where(target.key()), builtAt)))
        .onSuccess(p -> snapshotFor = builtAt)
        .onFailure(e -> LOG.warn("schema snapshot could not be written (will retry): {}", e.getMessage()))
        .onComplete(ar -> writing = false);
  }
}
