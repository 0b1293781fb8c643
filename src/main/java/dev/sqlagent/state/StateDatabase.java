package dev.sqlagent.state;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.core.tracing.TracingPolicy;
import dev.sqlagent.db.StatementSpans;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.concurrent.TimeUnit;

/**
 * The state store, open: the one owner of its connections while the service runs. Opened once at start and
 * closed when the service stops; every capability's repository borrows one of its two pools (a pool built with
 * {@code using(vertx)} may be used from any verticle), none opens its own.
 *
 * <p>Two pools, not one, by design: everything is written as the store's owner except the query log, which is
 * written only as {@code sql_agent_log}, a role that may INSERT log rows and nothing else (proven at every
 * migration, {@link StateStore#proveLogRole()}). That privilege split is the point of the log pool; it is small
 * because only the query log's writer and the health check use it.
 */
public final class StateDatabase {

  /**
   * Default size of the owner's pool: what each feature may hold at once (conversations 4, verified queries 2, run
   * claims 2, the event journal 1 + 2, snapshots 1, evaluation runs 1, health 1 = 14) plus one each for stored values
   * and the embedding cache. They are rarely all busy together, so one shared pool of this size is never short.
   */
  public static final int DEFAULT_SIZE = 16;
  /** The log role's pool: the query log's writer and the health check's proof, one connection each. */
  public static final int LOG_SIZE = 2;
  /** {@code application_name} of the owner's connections, as {@code pg_stat_activity} shows them. */
  public static final String OWNER_APPLICATION = "sql-agent-state";
  /** {@code application_name} of the log role's connections. */
  public static final String LOG_APPLICATION = "sql-agent-log";

  private final StateStore store;
  private final Pool owner;
  private final Pool log;
  private final int size;
  private final StatementSpans spans;

  private StateDatabase(StateStore store, Pool owner, Pool log, int size, StatementSpans spans) {
    this.spans = spans;
    this.store = store;
    this.owner = owner;
    this.log = log;
    this.size = size;
  }

  /**
   * Opens the two pools (no connection is made until one is needed). Call it once per service, outside any
   * verticle that may be undeployed before the others, and {@link #close()} it when the service stops.
   */
  public static StateDatabase open(Vertx vertx, StateStore store, int size) {
    if (size < 1) throw new IllegalArgumentException("the state store's pool needs at least one connection, not " + size);
    NetClientOptions net = new NetClientOptions().setConnectTimeout(5_000);
    // The writers trace their statements themselves (StatementSpans), in the trace of the run they serve.
    Pool owner = PgBuilder.pool().with(net).with(options(size, OWNER_APPLICATION))
        .connectingTo(new PgConnectOptions(store.ownerOptions()).setTracingPolicy(TracingPolicy.IGNORE)).using(vertx).build();
    // No reconnect attempts: a query-log write that cannot connect fails at once and the writer buffers and retries.
    Pool log = PgBuilder.pool().with(net).with(options(LOG_SIZE, LOG_APPLICATION))
        .connectingTo(new PgConnectOptions(store.logOptions()).setReconnectAttempts(0).setTracingPolicy(TracingPolicy.IGNORE))
        .using(vertx).build();
    return new StateDatabase(store, owner, log, size,
        new StatementSpans(vertx, store.ownerOptions().getDatabase(), null));
  }

  /** A wait for a free connection is bounded (10 s); a connection idle for a minute is closed. */
  private static PoolOptions options(int size, String name) {
    return new PoolOptions().setMaxSize(size).setName(name)
        .setConnectionTimeout(10).setConnectionTimeoutUnit(TimeUnit.SECONDS)
        .setIdleTimeout(60).setIdleTimeoutUnit(TimeUnit.SECONDS);
  }

  /** The store's owner: every table but the query log. */
  public Pool owner() {
    return owner;
  }

  /** Spans for the statements the writers send, in the trace current where they send them. */
  public StatementSpans spans() {
    return spans;
  }

  /** {@code sql_agent_log}: the query log's INSERTs only. */
  public Pool log() {
    return log;
  }

  /** Where the store is and who owns it (for messages and the set-up's blocking work). */
  public StateStore store() {
    return store;
  }

  /** Most connections the service opens to the store: the owner's pool and the log role's. */
  public int maxConnections() {
    return size + LOG_SIZE;
  }

  public Future<Void> close() {
    return Future.all(owner.close(), log.close()).mapEmpty();
  }

  @Override
  public String toString() {
    return "StateDatabase[" + store.owner() + ", " + size + "+" + LOG_SIZE + " connections]";
  }
}
