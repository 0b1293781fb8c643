package dev.sqlagent.catalogue;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.db.PoolBusy;
import dev.sqlagent.db.Target;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalogue service of one process: the only place the target's catalogue is read in the running service
 * (discovery with its function catalogue, and users' database roles' visibility), holding the current
 * {@link CatalogueSnapshot}. The gate, retrieval, the schema snapshot (drift) and health take snapshots from here;
 * a schema refresh asks it to read again.
 *
 * <p>Why an object handed to the verticles at deploy, and not a request on the event bus: the gate looks its
 * tables up on every query, and a catalogue of 1,000 tables is megabytes of objects that a bus reply would copy
 * or encode each time (or hop through the event loop with a local codec). Here every verticle of the process
 * gets the same immutable snapshot for one volatile read. What crosses the bus is only the news of a new version,
 * {@link Addresses#CATALOGUE_CHANGED} ({@code {version, read_at, tables, fingerprint, node}}): this process's
 * retrieval re-embeds what changed when it sees it, and in a cluster the other nodes' catalogues read again when
 * the shape they hold differs ({@link CatalogueVerticle}). Only the news of a read asked for here (a refresh)
 * goes to other nodes, so a read that follows one is never echoed back.
 *
 * <p>Thread-safe: verticles on different event loops share it. Concurrent reads share one.
 */
public final class CatalogueHolder {

  private static final Logger LOG = LoggerFactory.getLogger(CatalogueHolder.class);

  private final Vertx vertx;
  private final Pool pool;
  private final boolean ownsPool;
  private final Discovery discovery;
  /** Names this process's news, so its own are not followed when they come back from the cluster. */
  private final String id = UUID.randomUUID().toString();
  private final AtomicLong versions = new AtomicLong();
  private volatile CatalogueSnapshot current;
  /** The read under way, and whether some caller asked for it to be told to the cluster; guarded by this. */
  private Future<CatalogueSnapshot> reading;
  private boolean tellTheCluster;

  private CatalogueHolder(Vertx vertx, Pool pool, boolean ownsPool, List<String> schemas) {
    this.vertx = vertx;
    this.pool = pool;
    this.ownsPool = ownsPool;
    this.discovery = new Discovery(pool, schemas);
  }

  /**
   * A catalogue with a pool of its own on the target, as the agent role (closed by {@link #close}).
   *
   * @param schemas the schemas in scope ({@code SQLAGENT_SCHEMAS}); empty: every non-system schema
   */
  public static CatalogueHolder open(Vertx vertx, Target target, List<String> schemas) {
    Pool pool = PgBuilder.pool().with(target.url().netOptions()).with(new PoolOptions().setMaxSize(2))
        .connectingTo(target.roOptions()).using(vertx).build();
    return new CatalogueHolder(vertx, pool, true, schemas);
  }

  /** A catalogue read through the caller's pool (connected as the agent role), which stays the caller's to close. */
  public static CatalogueHolder over(Vertx vertx, Pool pool, List<String> schemas) {
    return new CatalogueHolder(vertx, pool, false, schemas);
  }

  /** The snapshot held now; null before the first read is done. */
  public CatalogueSnapshot snapshot() {
    return current;
  }

  /** The snapshot held now, or the first read. */
  public Future<CatalogueSnapshot> current() {
    CatalogueSnapshot now = current;
    return now != null ? Future.succeededFuture(now) : read(false);
  }

  /**
   * Reads the target again and holds the result as the next version, announced to this process and to the other
   * nodes of a cluster. A read under way is shared.
   */
  public Future<CatalogueSnapshot> refresh() {
    return read(true);
  }

  /**
   * Another node's news ({@link Addresses#CATALOGUE_CHANGED}): read again when it holds another shape than this
   * one. Its own news, or a shape already held, changes nothing.
   */
  Future<CatalogueSnapshot> follow(CatalogueVersion news) {
    CatalogueSnapshot now = current;
    if (news == null || id.equals(news.node())) return Future.succeededFuture(now);
    if (now != null && news.fingerprint() == now.fingerprint()) return Future.succeededFuture(now);
    LOG.info("catalogue: another node read a different schema (version {} there); reading again", news.version());
    return read(false);
  }

  /**
   * The shape of the target as it is now (relations, columns, keys; no functions, no exact counts), read but not
   * held: what health compares with the schema the index was built from (drift), without changing what the gate
   * and retrieval use.
   */
  public Future<Catalogue> look() {
    return discovery.readShape();
  }

  private synchronized Future<CatalogueSnapshot> read(boolean tell) {
    tellTheCluster |= tell;
    if (reading == null) {
      Future<CatalogueSnapshot> read = discovery.read().map(this::install);
      reading = read;
      read.onComplete(ar -> {
        boolean everywhere;
        synchronized (this) {
          reading = null;
          everywhere = tellTheCluster;
          tellTheCluster = false;
        }
        if (ar.succeeded()) announce(ar.result(), everywhere);
      });
    }
    return CatalogueSnapshot.onCaller(reading);
  }

  private CatalogueSnapshot install(Catalogue catalogue) {
    CatalogueSnapshot next = new CatalogueSnapshot(versions.incrementAndGet(), Instant.now(), catalogue, this::visibility);
    current = next;
    LOG.info("catalogue version {}: {} tables", next.version(), catalogue.tables().size());
    return next;
  }

  private void announce(CatalogueSnapshot snapshot, boolean tellTheCluster) {
    vertx.eventBus().publish(Addresses.CATALOGUE_CHANGED, snapshot.describe().from(id).toJson(),
        new DeliveryOptions().setLocalOnly(!tellTheCluster));
  }

  /** Which server, database and role the agent role reaches: what health shows under {@code db_reachable}. */
  public record Server(String database, String role, String version) {}

  /** One catalogue read of who and where the agent role is: that the target answers at all. */
  public Future<Server> server() {
    return pool.query("SELECT current_database() AS db, current_user AS role, current_setting('server_version') AS version")
        .execute().map(rs -> {
          var row = rs.iterator().next();
          return new Server(row.getString("db"), row.getString("role"), row.getString("version"));
        });
  }

  /**
   * What a user's database role may read, read as that role; every connection of the pool in use fails with
   * {@link PoolBusy} (the database is busy, the question is not at fault).
   */
  private Future<Catalogue.Visibility> visibility(String role) {
    return ReadOnly.runAs(pool, role, discovery::visibilityOn)
        .recover(e -> Future.failedFuture(PoolBusy.waitRanOut(e) ? new PoolBusy("no connection to read what the "
            + "database role " + role + " may see was free") : e));
  }

  public Future<Void> close() {
    return ownsPool ? pool.close() : Future.succeededFuture();
  }
}
