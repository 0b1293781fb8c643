package dev.sqlagent.catalogue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One read of the target's catalogue ({@link Catalogue}: relations, columns, keys, what is hidden, the functions),
 * numbered: {@code version} grows by one with each read a {@link CatalogueHolder} installs, {@code readAt} says
 * when it was read. Never changes once made, so a request that started with it sees one consistent catalogue to
 * the end, whatever is read meanwhile.
 *
 * <p>What is derived from it (a user's database role's view, the gate's static check, retrieval's annotated
 * catalogue) is made on demand, once per snapshot and key, and kept here ({@link #derive}): the one cache of
 * derived views, dropped with the snapshot when a newer one replaces it.
 */
public final class CatalogueSnapshot {

  /** Reads what a user's database role may see (as that role), for {@link #forRole}. */
  interface RoleReader {
    Future<Catalogue.Visibility> read(String role);
  }

  private record RoleKey(String role) {}

  private final long version;
  private final Instant readAt;
  private final Catalogue catalogue;
  private final long fingerprint;
  private final RoleReader roles;
  private final Map<Object, Object> derived = new ConcurrentHashMap<>();

  CatalogueSnapshot(long version, Instant readAt, Catalogue catalogue, RoleReader roles) {
    this.version = version;
    this.readAt = readAt;
    this.catalogue = catalogue;
    this.fingerprint = fingerprint(catalogue);
    this.roles = roles;
  }

  /** A snapshot of a catalogue made elsewhere (tests, tools): version 0, and no user roles to narrow it to. */
  public static CatalogueSnapshot of(Catalogue catalogue) {
    return new CatalogueSnapshot(0, Instant.now(), catalogue,
        role -> Future.failedFuture(new IllegalStateException("no database to read the role " + role + " from")));
  }

  public long version() {
    return version;
  }

  public Instant readAt() {
    return readAt;
  }

  public Catalogue catalogue() {
    return catalogue;
  }

  /** How long ago it was read. */
  public double ageSeconds() {
    return Duration.between(readAt, Instant.now()).toMillis() / 1000.0;
  }

  /**
   * The shape of what was read (relations, columns, keys, comments, hidden and underlying relations; not row counts,
   * which move with every ANALYZE): equal for two reads of an unchanged schema, on any node.
   */
  public long fingerprint() {
    return fingerprint;
  }

  static long fingerprint(Catalogue c) {
    long h = 17;
    for (TableInfo t : c.tables()) {
      h = 31 * h + Objects.hash(t.name(), t.kind(), t.comment(), t.columns(), t.primaryKey(), t.foreignKeys());
    }
    return 31 * (31 * h + c.hidden().hashCode()) + c.underlying().hashCode();
  }

  /** Its version, when it was read, how many tables, its fingerprint: what {@code CATALOGUE_CHANGED} and the refresh reply carry. */
  public CatalogueVersion describe() {
    return new CatalogueVersion(version, readAt.toString(), catalogue.tables().size(), fingerprint, null);
  }

  /**
   * The catalogue as a user's database role sees it: only the relations that role may read (grants and schema
   * privileges as PostgreSQL checks them, read as the role), what it may not as hidden. {@code role} null: the
   * agent role's own, this snapshot's catalogue. The functions are this snapshot's (the agent role is a member of
   * every user's role, so it reaches at least what they reach): the function catalogue is read once per snapshot.
   */
  public Future<Catalogue> forRole(String role) {
    if (role == null) return Future.succeededFuture(catalogue);
    return deriveFuture(new RoleKey(role), s -> roles.read(role).map(catalogue::seenBy));
  }

  /**
   * {@code make(this)}, made once for this snapshot and {@code key} (a record naming what is derived, and for whom)
   * and kept while the snapshot is. Thread-safe: verticles on different event loops share a snapshot.
   */
  @SuppressWarnings("unchecked")
  public <T> T derive(Object key, Function<CatalogueSnapshot, T> make) {
    Object known = derived.get(key);
    if (known != null) return (T) known;
    // Made outside the map's lock (what is made may derive in turn); a rare race makes it twice, the first is kept.
    T made = make.apply(this);
    Object first = derived.putIfAbsent(key, made);
    return first == null ? made : (T) first;
  }

  /**
   * The same for what takes a read: a failed one is tried again on the next call. The future completes on the
   * caller's context, whichever context the work ran on.
   */
  @SuppressWarnings("unchecked")
  public <T> Future<T> deriveFuture(Object key, Function<CatalogueSnapshot, Future<T>> make) {
    Object known = derived.get(key);
    if (known instanceof Future<?> f && !f.failed()) return onCaller((Future<T>) f);
    Future<T> made = make.apply(this);
    Object kept = derived.merge(key, made, (old, mine) -> old instanceof Future<?> f && !f.failed() ? old : mine);
    return onCaller((Future<T>) kept);
  }

  /** {@code f}, its callbacks run on the calling verticle's context (a shared future may complete on another one). */
  static <T> Future<T> onCaller(Future<T> f) {
    Context ctx = Vertx.currentContext();
    if (ctx == null) return f;
    Promise<T> p = Promise.promise();
    f.onComplete(ar -> ctx.runOnContext(v -> p.handle(ar)));
    return p.future();
  }
}
