package dev.sqlagent.execution;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.db.StatementSpans;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Cursor;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedStatement;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.desc.ColumnDescriptor;
import io.vertx.sqlclient.impl.SocketConnectionBase;
import io.vertx.sqlclient.internal.SqlConnectionBase;
import io.vertx.sqlclient.internal.ArrayTuple;
import io.vertx.sqlclient.internal.QueryResultHandler;
import io.vertx.sqlclient.internal.command.ExtendedQueryCommand;
import io.vertx.sqlclient.internal.command.PrepareStatementCommand;
import io.vertx.core.json.JsonArray;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work on a connection of the agent's read-only role inside a transaction that can only read and
 * can only end one way: {@code BEGIN READ ONLY}, {@code SET LOCAL} timeouts (literal values: EXECUTE on
 * set_config is revoked), then the caller's statements, then always {@code ROLLBACK} and
 * {@code DISCARD ALL} before the connection goes back to the pool, after success, error or timeout alike,
 * so nothing a query did (settings, prepared statements, cursors, advisory locks, temporary state) is
 * visible to the next one (behind a pooler in transaction mode, where a statement after the ROLLBACK may reach
 * another server connection, the reset stays inside a transaction: {@link #resetInTransaction}). There is no COMMIT
 * anywhere in this class (ROLLBACK AND CHAIN is no commit either), and untrusted SQL only ever goes
 * through the extended protocol ({@code prepare}/{@code preparedQuery}, {@link #describe}), which refuses more
 * than one statement.
 */
public final class ReadOnlyExecutor {

  private static final Logger LOG = LoggerFactory.getLogger(ReadOnlyExecutor.class);
  /** Parsed (never run) to learn how PostgreSQL describes a {@code PREPARE} ({@link #executeUnnamed}). */
  private static final String UNNAMED_PROBE = "PREPARE sql_agent_probe AS SELECT 1";
  /** The name of the PostgreSQL client's protocol handler in a connection's Netty pipeline. */
  private static final String PG_CODEC = "codec";
  private static final java.util.stream.Collector<Row, ?, Void> NO_ROWS =
      java.util.stream.Collector.of(() -> new int[0], (acc, row) -> { }, (a, b) -> a, acc -> null);

  /** Seconds a query waits for a free connection of its pool before it is refused as {@link Busy}. */
  static final int POOL_WAIT_S = 10;

  private final Pool pool;
  /** Exports' own connections: a slow or stalled export never holds one a question needs. */
  private final Pool exportPool;
  private final ExportLane exportLane;
  /** Exports holding (or about to hold) a connection of {@link #exportPool}. */
  private final java.util.concurrent.atomic.AtomicInteger exporting = new java.util.concurrent.atomic.AtomicInteger();
  private final String begin;
  private final RunningStatements running;
  private volatile boolean closing;
  /** How PostgreSQL described the first {@link #executeUnnamed} statement (no parameters, no columns). */
  private volatile io.vertx.sqlclient.internal.PreparedStatement unnamedUtility;
  private final boolean layer7Proxy;
  /** A span per statement sent, when Vert.x traces. */
  private final StatementSpans spans;
  /** Connections {@link #drop}ped while in use, until they are out of the pool. */
  private final java.util.Map<SqlConnection, Future<Void>> dropped = new java.util.concurrent.ConcurrentHashMap<>();

  public ReadOnlyExecutor(Vertx vertx, PgConnectOptions readOnlyRole, int poolSize, int statementTimeoutMs,
                          int lockTimeoutMs) {
    this(vertx, readOnlyRole, new io.vertx.core.net.NetClientOptions(), poolSize, statementTimeoutMs, lockTimeoutMs);
  }

  /** @param net the connection's TCP options (its connect_timeout) */
  public ReadOnlyExecutor(Vertx vertx, PgConnectOptions readOnlyRole, io.vertx.core.net.NetClientOptions net, int poolSize,
                          int statementTimeoutMs, int lockTimeoutMs) {
    this(vertx, readOnlyRole, net, poolSize, statementTimeoutMs, lockTimeoutMs, ExportLane.DEFAULT);
  }

  /**
   * @param exports the connections of exports, a pool of their own beside the questions' {@code poolSize}, and how long
   *     an export's transaction may sit idle while its client takes the rows already read
   */
  public ReadOnlyExecutor(Vertx vertx, PgConnectOptions readOnlyRole, io.vertx.core.net.NetClientOptions net, int poolSize,
                          int statementTimeoutMs, int lockTimeoutMs, ExportLane exports) {
    this.pool = pool(vertx, readOnlyRole, net, poolSize, "sql-agent-gate-" + System.identityHashCode(this));
    this.exportPool = pool(vertx, readOnlyRole, net, exports.connections(),
        "sql-agent-exports-" + System.identityHashCode(this));
    this.exportLane = exports;
    this.running = new RunningStatements(vertx);
    this.spans = new StatementSpans(vertx, readOnlyRole.getDatabase(), readOnlyRole.getUser());
    this.layer7Proxy = readOnlyRole.getUseLayer7Proxy();
    // Trusted text with validated integers; the simple protocol may carry several statements here.
    this.begin = "BEGIN TRANSACTION READ ONLY; "
        + "SET LOCAL statement_timeout = " + Math.max(1, statementTimeoutMs) + "; "
        + "SET LOCAL lock_timeout = " + Math.max(1, lockTimeoutMs) + "; "
        + "SET LOCAL standard_conforming_strings = on; "
        // A first query takes the snapshot, after which PostgreSQL refuses SET TRANSACTION READ WRITE.
        + "SELECT 1";
  }

  private static Pool pool(Vertx vertx, PgConnectOptions readOnlyRole, io.vertx.core.net.NetClientOptions net, int size,
                           String name) {
    return PgBuilder.pool()
        .with(net)
        // A reset only fails on a broken connection, which the pool drops; as a last resort every connection
        // is replaced after ten minutes.
        .with(new PoolOptions().setMaxSize(size).setMaxWaitQueueSize(256).setConnectionTimeout(POOL_WAIT_S)
            .setMaxLifetime(10).setMaxLifetimeUnit(java.util.concurrent.TimeUnit.MINUTES).setName(name))
        // The client's own query tracing cannot follow the pipelined unnamed statements: the gate traces its own.
        .connectingTo(new PgConnectOptions(readOnlyRole).setTracingPolicy(io.vertx.core.tracing.TracingPolicy.IGNORE))
        .withConnectHandler(conn -> {
          try {
            consolidateFlushes(conn);
          } finally {
            conn.close();  // back to the pool
          }
        })
        .using(vertx)
        .build();
  }

  /**
   * Opens one export connection ahead of the first export, which then finds it signed in: a connection's SCRAM sign-in
   * hashes the password thousands of times, slow in a JVM that has not run it yet. Best effort: an export opens its
   * own when this one could not be.
   */
  void openExportConnection() {
    exportPool.getConnection()
        .onSuccess(SqlConnection::close)
        .onFailure(e -> LOG.debug("no export connection opened ahead: {}", e.getMessage()));
  }

  /** The pool, for trusted catalogue reads (never for user SQL). */
  Pool pool() {
    return pool;
  }

  /** Runs {@code work} inside the read-only transaction; the connection is reset whatever happens. */
  public <T> Future<T> inReadOnlyTransaction(Function<SqlConnection, Future<T>> work) {
    return inReadOnlyTransaction(null, null, work);
  }

  /**
   * The same, for a run that may be stopped ({@link #stop}) and as a user's database role: {@code SET LOCAL ROLE}
   * inside the transaction, so the target's grants and row-level security apply to that user (ROLLBACK and
   * DISCARD ALL end it). A run already stopped runs nothing and fails with {@link Stopped}.
   */
  public <T> Future<T> inReadOnlyTransaction(String runId, String dbRole, Function<SqlConnection, Future<T>> work) {
    return inReadOnlyTransaction(runId, dbRole, conn -> Future.succeededFuture(), (conn, none) -> work.apply(conn));
  }

  /**
   * The same in two steps, the first sent together with the transaction's setup: {@code first} goes out on the
   * connection right behind {@code BEGIN READ ONLY} and the {@code SET LOCAL}s, without waiting for them (PostgreSQL
   * runs a connection's messages in order, so it runs inside the read-only transaction, or not at all once the
   * setup failed: an aborted transaction refuses everything). It must only parse or describe, never execute user
   * text. {@code then} starts once the setup and {@code first} have both succeeded and the run is not stopped.
   *
   * <p>The future completes with the work's outcome; {@code ROLLBACK} and {@code DISCARD ALL} follow on the
   * connection, which goes back to the pool only after them, so no caller waits for the reset and no next query
   * sees anything of this one.
   */
  <A, T> Future<T> inReadOnlyTransaction(String runId, String dbRole, Function<SqlConnection, Future<A>> first,
                                          BiFunction<SqlConnection, A, Future<T>> then) {
    return inReadOnlyTransaction(runId, dbRole, false, first, then);
  }

  /**
   * The same on the exports' own connections ({@code export}): at most {@link ExportLane#connections()} at once, one
   * more fails at once with {@link Busy}; the transaction may sit idle for {@link ExportLane#idleInTransactionMs()}
   * between two reads, whatever the role's {@code idle_in_transaction_session_timeout}. A question that waited
   * {@link #POOL_WAIT_S} s for a connection fails with {@link Busy} too: the database is not at fault.
   */
  <A, T> Future<T> inReadOnlyTransaction(String runId, String dbRole, boolean export,
                                          Function<SqlConnection, Future<A>> first,
                                          BiFunction<SqlConnection, A, Future<T>> then) {
    return inReadOnlyTransaction(runId, dbRole, java.util.Map.of(), export, first, then);
  }

  /**
   * The same with a user's row settings ({@code name → value}): each set with {@code set_config(name, value, true)},
   * name and value bound as parameters, inside the transaction (so ROLLBACK ends them) after the role switch and
   * before {@code first}, so the statement is described, planned and run under the row-level security policies that
   * read them.
   */
  <A, T> Future<T> inReadOnlyTransaction(String runId, String dbRole, java.util.Map<String, String> rowSettings,
                                          boolean export, Function<SqlConnection, Future<A>> first,
                                          BiFunction<SqlConnection, A, Future<T>> then) {
    if (running.stopped(runId)) return Future.failedFuture(new Stopped());
    if (export && exporting.incrementAndGet() > exportLane.connections()) {
      exporting.decrementAndGet();
      return Future.failedFuture(new Busy("all " + exportLane.connections() + " export connection"
          + (exportLane.connections() == 1 ? " is" : "s are") + " in use (SQLAGENT_EXPORT_CONNECTIONS)"));
    }
    Future<T> done = (export ? exportPool : pool).getConnection()
        .recover(e -> Future.failedFuture(busy(e) ? new Busy("no connection to the database was free within "
            + POOL_WAIT_S + " s") : e))
        .compose(conn -> leased(conn, runId, dbRole, rowSettings, export, first, then));
    if (export) done.onComplete(x -> exporting.decrementAndGet());
    return done;
  }

  private static boolean busy(Throwable e) {
    return dev.sqlagent.db.PoolBusy.waitRanOut(e);
  }

  private <A, T> Future<T> leased(SqlConnection conn, String runId, String dbRole, java.util.Map<String, String> rowSettings,
                                  boolean export, Function<SqlConnection, Future<A>> first,
                                  BiFunction<SqlConnection, A, Future<T>> then) {
    running.hold(runId, conn);
    Future<T> outcome;
    String setup = begin + roleSwitch(dbRole) + (export ? "; SET LOCAL idle_in_transaction_session_timeout = "
        + exportLane.idleInTransactionMs() : "");
    try {
      Future<RowSet<Row>> begun = conn.query(setup).execute();
      Future<?> settingsSet = rowSettings(conn, rowSettings);
      Future<A> firstDone = first.apply(conn);
      outcome = begun
          // A failed setup is the failure to report; its pipelined steps fail with it (aborted transaction).
          .compose(v -> settingsSet, e -> settingsSet.transform(x -> Future.failedFuture(e)))
          .compose(v -> firstDone, e -> firstDone.transform(x -> Future.failedFuture(e)))
          .compose(a -> running.stopped(runId) ? Future.failedFuture(new Stopped()) : then.apply(conn, a));
    } catch (RuntimeException e) {
      outcome = Future.failedFuture(e);
    }
    return outcome.transform(done -> {
      // Decided before the reset: a stop arriving during the reset does not change this query's outcome.
      Future<T> answer = done.succeeded() ? Future.succeededFuture(done.result())
          : Future.failedFuture(running.stopped(runId) ? new Stopped() : done.cause());
      Future<Void> gone = dropped.remove(conn);
      running.release(runId, conn)
          .compose(v -> gone != null ? gone : reset(conn).recover(e -> reset(conn)))
          .onFailure(e -> {
            if (!closing) LOG.warn("could not reset a read-only connection: {}", e.getMessage());
          })
          .eventually(conn::close);
      return answer;
    });
  }

  /**
   * The names and types of the columns {@code sql} would return, from PostgreSQL's own parse of it (Parse and
   * Describe of an unnamed statement: the extended protocol, one statement only; nothing is planned or run). The
   * public client API describes a statement only by executing it, so this uses the client's prepare command
   * directly, as {@code SqlConnection.prepare} does.
   */
  static Future<List<ColumnDescriptor>> describe(SqlConnection conn, String sql) {
    return parseUnnamed(conn, sql).map(ps -> ps.rowDesc() == null ? List.of() : ps.rowDesc().columnDescriptor());
  }

  /** Parse and Describe of {@code sql} as the unnamed statement, nothing run: the client's prepare command, sent as is. */
  private static Future<io.vertx.sqlclient.internal.PreparedStatement> parseUnnamed(SqlConnection conn, String sql) {
    Promise<io.vertx.sqlclient.internal.PreparedStatement> parsed = Promise.promise();
    ((SqlConnectionBase<?>) conn).schedule(new PrepareStatementCommand(sql, new PrepareOptions(), false), parsed);
    return parsed.future();
  }

  /**
   * Runs {@code sql}, a statement that takes no parameters and returns no rows ({@code PREPARE}), through the extended
   * protocol (one statement only) with its parse and its execution sent together: Parse of the unnamed statement, then
   * Bind and Execute of the unnamed statement, each with its Sync. The client's own {@code preparedQuery} stops the
   * connection's pipeline after the parse until its reply is back (it binds with what the reply describes), one round
   * trip more for everything queued behind it. Every such statement is described alike (no parameters, no columns), so
   * the first one's description binds them all. A failed parse leaves no unnamed statement, so its execution fails
   * too; the parse's failure is the one reported.
   */
  Future<Void> executeUnnamed(SqlConnection conn, String sql) {
    // Through a layer-7 proxy the client parses again before each bind, with the description's text: its own way then.
    // With a tracer, the client's query reporting cannot take a statement sent below its API: its own way too (one
    // round trip more per checked query, while tracing is on).
    if (layer7Proxy || spans.on()) return conn.preparedQuery(sql).execute().mapEmpty();
    io.vertx.sqlclient.internal.PreparedStatement known = unnamedUtility;
    if (known == null) {
      // The first time: learn the description from a statement of the same kind, parsed and never run, and run this
      // one the client's way (its pipeline waits for the parse, so nothing queued behind replaces the statement).
      parseUnnamed(conn, UNNAMED_PROBE).onSuccess(ps -> {
        if (ps.paramDesc() != null && (ps.rowDesc() == null || ps.rowDesc().columnNames().isEmpty())) unnamedUtility = ps;
      });
      return conn.preparedQuery(sql).execute().mapEmpty();
    }
    Future<io.vertx.sqlclient.internal.PreparedStatement> parsed = parseUnnamed(conn, sql);
    Promise<Boolean> ran = Promise.promise();
    ((SqlConnectionBase<?>) conn).schedule(ExtendedQueryCommand.createQuery(sql, null, known, ArrayTuple.EMPTY, true,
        NO_ROWS, QueryResultHandler.NOOP_HANDLER), ran);
    return parsed.transform(p -> p.succeeded() ? ran.future().<Void>mapEmpty()
        : ran.future().transform(x -> Future.failedFuture(p.cause())));
  }

  /**
   * The client flushes each command on its own: a write, and a wake-up of PostgreSQL's backend, per command. A query's
   * five to seven commands (the setup, the description, the prepare, the plan, the runner) are sent in one go, so a
   * Netty handler holds their flushes to the end of the event-loop task (or of the read that sent them) and they leave
   * in one write. What is sent, and in what order, is unchanged. Through the client's internals, as {@link #drop}: the
   * public API does not reach the connection's pipeline.
   */
  static void consolidateFlushes(SqlConnection conn) {
    SocketConnectionBase socket = socketOf(conn);
    if (socket == null) return;
    io.netty.channel.ChannelPipeline pipeline = socket.socket().channelHandlerContext().pipeline();
    if (pipeline.get(PG_CODEC) == null || pipeline.get(FlushConsolidationHandler.class) != null) return;
    pipeline.addBefore(PG_CODEC, "sql-agent-flushes", new FlushConsolidationHandler(
        FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
  }

  /** The client's socket connection under a (pooled) connection, or null. */
  static SocketConnectionBase socketOf(SqlConnection conn) {
    io.vertx.sqlclient.internal.Connection c = ((SqlConnectionBase<?>) conn).unwrap();
    while (!(c instanceof SocketConnectionBase) && c.unwrap() != c) c = c.unwrap();
    return c instanceof SocketConnectionBase socket ? socket : null;
  }

  /**
   * Closes the connection's socket, for a statement PostgreSQL cannot be made to stop: a cancel (or a statement
   * timeout) only lands where the backend checks for one, and folding or printing a huge value does not. Everything
   * pending on the connection fails at once, the backend ends at its next write to the closed socket, and the pool
   * opens another connection. Through the client's internals: the public API only returns a pooled connection to
   * its pool.
   */
  void drop(SqlConnection conn) {
    SocketConnectionBase socket = socketOf(conn);
    if (socket == null) return;
    io.netty.channel.Channel channel = socket.socket().channelHandlerContext().channel();
    if (!channel.isOpen()) return;  // closed already: its lease ends the usual way
    // The lease may end only once the pool has let the connection go, or the pool could hand the closed connection
    // to the next query. The client calls the close handler in the very task that then takes the connection out of
    // the pool (commands in flight may fail earlier, when the codec sees the socket go): the lease ends a task later.
    Promise<Void> gone = Promise.promise();
    conn.closeHandler(v -> Vertx.currentContext().runOnContext(x -> gone.tryComplete()));
    dropped.put(conn, gone.future());
    // Past the pipeline: the client's own close waits for the commands in flight to end, which is what cannot happen.
    channel.eventLoop().execute(() -> channel.unsafe().close(channel.voidPromise()));
  }

  /** Cancels the statement {@code runId} is running, if any, and refuses its later ones. */
  public void stop(String runId) {
    running.stop(runId);
  }

  /**
   * {@code conn} runs nothing of {@code runId} for now (a held check waiting for its run): a stop has nothing there to
   * cancel, and a cancel request sent to an idle backend could land on whatever it runs next.
   */
  void idle(String runId, SqlConnection conn) {
    running.idle(runId, conn);
  }

  /** {@code conn} runs statements of {@code runId} again: a stop cancels them. */
  void busy(String runId, SqlConnection conn) {
    running.hold(runId, conn);
  }

  /** Whether {@code runId} was stopped (its next step should not start). */
  public boolean stopped(String runId) {
    return running.stopped(runId);
  }

  /** Sets a user's row settings, local to the transaction: names and values are bound parameters, never SQL text. */
  static final String SET_ROW_SETTING = "SELECT set_config($1, $2, true)";

  /** {@link #SET_ROW_SETTING} once per setting, sent behind the setup; done at once for none. */
  private Future<?> rowSettings(SqlConnection conn, java.util.Map<String, String> settings) {
    if (settings == null || settings.isEmpty()) return Future.succeededFuture();
    List<io.vertx.sqlclient.Tuple> each = settings.entrySet().stream()
        .map(e -> io.vertx.sqlclient.Tuple.of(e.getKey(), e.getValue())).toList();
    return conn.preparedQuery(SET_ROW_SETTING).executeBatch(each);
  }

  /** {@code ; SET LOCAL ROLE "role"} for a user's role (a plain name, checked by the users file, quoted anyway). */
  static String roleSwitch(String dbRole) {
    if (dbRole == null) return "";
    return "; SET LOCAL ROLE " + Identifiers.quote(dbRole);
  }

  /**
   * ROLLBACK, then DISCARD ALL (which may not run inside a transaction block), sent together: the connection
   * pipelines them and PostgreSQL runs them in order, one round trip for both. The caller sends them only once
   * no cancel request of a stopped run is still on its way ({@link RunningStatements#release}), and logs a
   * failure after one retry.
   */
  private Future<Void> reset(SqlConnection conn) {
    if (layer7Proxy) return resetInTransaction(conn);
    Future<?> rolledBack = simple(conn, "ROLLBACK");
    Future<?> discarded = simple(conn, "DISCARD ALL");
    return rolledBack.compose(v -> discarded).mapEmpty();
  }

  /**
   * The reset behind a pooler in transaction mode ({@code SQLAGENT_DB_POOLER=transaction}), where the pooler may hand
   * each transaction another server connection: a {@code DISCARD ALL} after the ROLLBACK could reach another server
   * than the one holding this query's prepared statements (the gate's {@code PREPARE} and the client's named ones),
   * which would stay there for the next client of that server. So the statements go inside a transaction on the
   * same server: ROLLBACK AND CHAIN (allowed in an aborted transaction too) ends the query's transaction and opens
   * another at once, DEALLOCATE ALL drops every prepared statement of the session, ROLLBACK ends it. Settings need
   * nothing: the gate only ever sets them with SET LOCAL. The pooler's pool for this role serves only sql-agent, which
   * keeps nothing else there.
   */
  private Future<Void> resetInTransaction(SqlConnection conn) {
    Future<?> chained = simple(conn, "ROLLBACK AND CHAIN");
    Future<?> deallocated = simple(conn, "DEALLOCATE ALL");
    Future<?> rolledBack = simple(conn, "ROLLBACK");
    return chained.compose(v -> deallocated).compose(v -> rolledBack).mapEmpty();
  }

  /**
   * A trusted statement of ours, through the simple protocol. Not a span of its own: the transaction's setup, plan and
   * reset are the gate's statement's span ({@link #traced}).
   */
  Future<RowSet<Row>> simple(SqlConnection conn, String sql) {
    return conn.query(sql).execute();
  }

  /** {@code send}'s statement {@code sql} as a span of the trace it serves (when tracing is on). */
  <T> Future<T> traced(String sql, java.util.function.Supplier<Future<T>> send) {
    return spans.traced(sql, send);
  }

  /**
   * Every connection the statement could use is in use: not the statement's fault, and asking again in a few seconds
   * may work. The message says which connections.
   */
  public static final class Busy extends RuntimeException {
    Busy(String message) {
      super(message, null, false, false);
    }
  }

  /** The run was stopped: its statement was cancelled, or it was not started. */
  public static final class Stopped extends RuntimeException {
    Stopped() {
      super("the run was stopped", null, false, false);
    }
  }

  /**
   * Prepares {@code sql} (extended protocol: one statement only) and fetches at most {@code maxRows} rows
   * through a portal, whatever the statement's own LIMIT says. The portal and the statement are not
   * closed one by one: ROLLBACK and DISCARD ALL end both, two round trips fewer per query.
   */
  public Future<RowSet<Row>> fetch(SqlConnection conn, String sql, int maxRows) {
    return traced(sql, () -> conn.prepare(sql).compose(ps -> {
      Cursor cursor = ps.cursor();
      return cursor.read(maxRows);
    }));
  }

  /**
   * Fetches at most {@code maxRows} rows of a shaped statement ({@link ResultShape}) through a portal,
   * rendering each as it arrives and counting its bytes: past {@code budget} bytes the fetch stops with
   * {@link TooLarge}. Each read asks for no more rows than the budget could hold at the worst-case row size,
   * so memory stays near the budget whatever the query returns.
   */
  public Future<JsonArray> fetchBounded(SqlConnection conn, String sql, List<ResultShape.Column> columns, int maxRows,
                                        long budget) {
    return traced(sql, () -> conn.prepare(sql).compose(ps -> fetchBounded(ps, columns, maxRows, budget)));
  }

  /** The same for a statement already prepared: the first read is the first round trip. */
  Future<JsonArray> fetchBounded(PreparedStatement ps, List<ResultShape.Column> columns, int maxRows, long budget) {
    // Memory stays within the budget whatever the chunk (worst-case row bytes); narrow rows come in one read.
    int chunk = (int) Math.max(1, Math.min(maxRows, budget / ResultShape.worstRowBytes(columns)));
    return readMore(ps.cursor(), columns, maxRows, budget, chunk, new JsonArray(), new long[] {0});
  }

  private Future<JsonArray> readMore(Cursor cursor, List<ResultShape.Column> columns, int maxRows, long budget, int chunk,
                                     JsonArray out, long[] bytes) {
    return cursor.read(Math.min(chunk, maxRows - out.size())).compose(rows -> {
      for (Row r : rows) {
        JsonArray cells = ResultJson.row(r, columns);
        bytes[0] += cells.encode().length();
        if (bytes[0] > budget) return Future.failedFuture(new TooLarge(budget, out.size() + 1));
        out.add(cells);
      }
      if (out.size() >= maxRows || !cursor.hasMore()) return Future.succeededFuture(out);
      return readMore(cursor, columns, maxRows, budget, chunk, out, bytes);
    });
  }

  /** Rows per read of an export at most, and the bytes one read may hold (at the worst-case, then the widest row). */
  static final int STREAM_CHUNK_ROWS = 2000;
  static final long STREAM_CHUNK_BYTES = 4L << 20;

  /**
   * What an export streamed: its rows, and what cut it ({@code "rows"}: more rows than {@code maxRows};
   * {@code "bytes"}: past {@code maxBytes}; null: the whole result).
   */
  record Streamed(int rows, String truncatedBy) {}

  /**
   * Streams a shaped statement's rows to {@code sink} through a portal, one chunk per read: the first read asks for no
   * more rows than {@link #STREAM_CHUNK_BYTES} hold at the worst-case row size, each later one for as many as hold at
   * the widest row read so far (a read is a round trip, and narrow rows would otherwise take hundreds). A chunk is
   * handed to the sink once the sink has taken the one before, and the next read goes out as soon as it is handed
   * over, so the database reads one chunk while the sink works on the other and memory holds two chunks at most,
   * whatever the result's size. At most {@code maxRows} rows and {@code maxBytes} bytes of cells
   * ({@link #cellBytes(Object[], List)}) are sent; one row past either is {@link Streamed#truncatedBy()}. The first chunk carries {@code columns}, even when there are no rows.
   */
  Future<Streamed> stream(PreparedStatement ps, List<ResultShape.Column> columns, JsonArray columnsJson, int maxRows,
                          long maxBytes, RowSink sink) {
    int chunk = (int) Math.max(1, Math.min(STREAM_CHUNK_ROWS, STREAM_CHUNK_BYTES / ResultShape.worstRowBytes(columns)));
    Streaming s = new Streaming(ps.cursor(), columns, maxRows, maxBytes, sink, chunk);
    s.read(columnsJson, Future.succeededFuture(), System.nanoTime());
    return s.done.future();
  }

  /** One export's read loop ({@link #stream}). */
  private static final class Streaming {
    private final Cursor cursor;
    private final List<ResultShape.Column> columns;
    private final int maxRows;
    private final long maxBytes;
    private final RowSink sink;
    /** Rows the next read asks for. */
    private int chunk;
    /** The widest row read so far, in {@link #cellBytes(Object[], List)}. */
    private long widest = 1;
    final Promise<Streamed> done = Promise.promise();
    /** Rows read and handed to the sink (or waiting to be), and their bytes. */
    private int sent;
    private long bytes;

    Streaming(Cursor cursor, List<ResultShape.Column> columns, int maxRows, long maxBytes, RowSink sink, int chunk) {
      this.cursor = cursor;
      this.columns = columns;
      this.maxRows = maxRows;
      this.maxBytes = maxBytes;
      this.sink = sink;
      this.chunk = chunk;
    }

    /**
     * Reads the next chunk while the sink works on the one before ({@code taking}); {@code idleSince} is when the read
     * before came back: a read that fails after rows went out fails with {@link Cut}, saying how long the transaction
     * sat idle before it.
     */
    void read(JsonArray columnsJson, Future<Void> taking, long idleSince) {
      long idleMs = (System.nanoTime() - idleSince) / 1_000_000;
      int handed = sent;
      cursor.read(Math.min(chunk, maxRows + 1 - sent)).onComplete(ar -> {
        if (ar.failed()) {
          done.tryFail(handed > 0 ? new Cut(handed, idleMs, ar.cause()) : ar.cause());
          return;
        }
        long readAt = System.nanoTime();
        List<Object[]> out = new java.util.ArrayList<>(ar.result().size());
        String cut = null;
        int width = columns.size();
        for (Row r : ar.result()) {
          if (sent + out.size() >= maxRows) {
            cut = "rows";
            break;
          }
          Object[] cells = new Object[width];
          ResultJson.exportCells(r, columns, cells);
          long size = cellBytes(cells, columns);
          if (bytes + size > maxBytes) {
            cut = "bytes";
            break;
          }
          bytes += size;
          widest = Math.max(widest, size);
          out.add(cells);
        }
        sent += out.size();
        chunk = (int) Math.max(1, Math.min(STREAM_CHUNK_ROWS, STREAM_CHUNK_BYTES / widest));
        boolean end = cut != null || !cursor.hasMore();
        String truncatedBy = cut;
        taking.onComplete(before -> {
          if (before.failed()) {
            done.tryFail(before.cause());
            return;
          }
          Future<Void> taken = out.isEmpty() && columnsJson == null ? Future.succeededFuture()
              : sink.accept(columnsJson, out);
          if (end) {
            taken.onComplete(t -> {
              if (t.succeeded()) done.tryComplete(new Streamed(sent, truncatedBy));
              else done.tryFail(t.cause());
            });
          } else {
            read(null, taken, readAt);
          }
        });
      });
    }
  }

  /**
   * The bytes an export counts for one row against its bound: each cell's text as it travels (a string's characters,
   * a number's digits, a JSON value's encoding), with a separator or quotes, about its size as JSON.
   */
  static long cellBytes(Object[] cells, List<ResultShape.Column> columns) {
    long n = 2;
    for (int i = 0; i < cells.length; i++) {
      Object c = cells[i];
      if (c instanceof String s && i < columns.size() && columns.get(i).kind() == ResultShape.Kind.NATIVE) {
        // A number's digits, a boolean's true or false, unquoted: as the value counts in an answer.
        n += s.length() + 1;
      } else {
        n += cellBytes(c);
      }
    }
    return n;
  }

  /** The bytes of one cell, as {@link #cellBytes(Object[], List)} counts it. */
  private static long cellBytes(Object c) {
    if (c == null) return 5;
    if (c instanceof String s) return s.length() + 3;
    if (c instanceof Integer || c instanceof Long || c instanceof Short) return digits(((Number) c).longValue()) + 1;
    if (c instanceof Boolean b) return b ? 5 : 6;
    if (c instanceof JsonArray a) return a.encode().length() + 1;
    if (c instanceof io.vertx.core.json.JsonObject o) return o.encode().length() + 1;
    return c.toString().length() + 1;
  }

  private static int digits(long v) {
    if (v == Long.MIN_VALUE) return 20;
    int d = v < 0 ? 2 : 1;
    for (long x = Math.abs(v); x >= 10; x /= 10) d++;
    return d;
  }

  /**
   * A read of an export failed after {@code rows} rows had gone out; before it the transaction sat idle
   * {@code idleMs} while the receiver took the rows read last.
   */
  static final class Cut extends RuntimeException {
    final int rows;
    final long idleMs;

    Cut(int rows, long idleMs, Throwable cause) {
      super(String.valueOf(cause.getMessage()), cause, false, false);
      this.rows = rows;
      this.idleMs = idleMs;
    }

    /**
     * Whether the statement itself failed (a value it cannot compute, its timeout), which rows streaming as they are
     * produced meet part way, rather than its connection or transaction (class 08, an operator's or the database's
     * ending of the session, an idle transaction's timeout).
     */
    boolean byStatement() {
      if (!(getCause() instanceof io.vertx.pgclient.PgException pg) || pg.getSqlState() == null) return false;
      String state = pg.getSqlState();
      return !state.startsWith("08") && !state.startsWith("57P") && !"25P03".equals(state);
    }
  }

  /** The result grew past its byte budget. */
  static final class TooLarge extends RuntimeException {
    final long budget;
    final int rows;

    TooLarge(long budget, int rows) {
      super("result larger than " + budget + " bytes", null, false, false);
      this.budget = budget;
      this.rows = rows;
    }
  }

  public Future<Void> close() {
    // A reset still under way when the pool closes fails with its connection: nothing is left to reset then.
    closing = true;
    return Future.join(pool.close(), exportPool.close()).mapEmpty();
  }
}
