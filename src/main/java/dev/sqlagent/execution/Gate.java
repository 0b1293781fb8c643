package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.db.Target;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.policy.Mask;
import dev.sqlagent.policy.ResultMasking;
import dev.sqlagent.policy.SensitiveColumns;
import dev.sqlagent.config.AppConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.PreparedStatement;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one guarded path from SQL text to rows. A statement ({@link GateRequest}) goes through these stages, in order,
 * each a method below:
 * <ol>
 *   <li>{@link #staticCheck}: PostgreSQL's tokens, the lexical screen, the parse and the static check against the
 *       tables the asking role sees (off the event loop);
 *   <li>{@link #rowCap}: the statement bounded to the row cap;
 *   <li>{@link #describe}: its columns, from PostgreSQL's parse alone;
 *   <li>{@link #plan}: prepared and planned once ({@code EXPLAIN EXECUTE});
 *   <li>{@link #checkPlan}: the plan's cost and what it touches;
 *   <li>{@link #masks}: which columns hold sensitive values;
 *   <li>{@link #execute}: the rows, read-only;
 *   <li>{@link #shapeResult}: the reply's result, masked for a caller who may not see sensitive values.
 * </ol>
 * A check ({@code run: false}) stops after the plan check. Stages 3 to 7 share one read-only transaction. Every
 * outcome is a {@link GateReply}; a refusal or a PostgreSQL error is a structured error, never an exception. Usable
 * directly (tests, the CLI) or through {@link ExecutionVerticle}.
 */
public final class Gate {

  private static final Logger LOG = LoggerFactory.getLogger(Gate.class);
  /** The longest the plan of one query may take to show (EXPLAIN); see {@link #plan}. */
  static final int EXPLAIN_TIMEOUT_MS = 1500;
  /** How long past {@link #EXPLAIN_TIMEOUT_MS} a plan may still come before its connection is closed. */
  static final int PLAN_GRACE_MS = 1000;
  static final String EXPLAIN_PREFIX = "EXPLAIN (FORMAT JSON, VERBOSE) ";
  /** Names of the gate's prepared statements: unique in the process, deallocated by each query's reset. */
  private static final String PREPARED_NAME = "sql_agent_gate_";
  private static final java.util.concurrent.atomic.AtomicLong PREPARED = new java.util.concurrent.atomic.AtomicLong();
  /** An unknown table may be a new one: the catalogue is asked to read again when its snapshot is older than this. */
  private static final double SCHEMA_REFRESH_SECONDS = 30;

  /**
   * The gate's limits: {@link #from} the service configuration, or {@link #DEFAULTS} with the withers (tests, tools).
   */
  public record Settings(int rowCap, double maxPlanCost, int statementTimeoutMs, int lockTimeoutMs, int poolSize,
                         StaticCheck.Limits limits, long maxResultBytes, List<String> schemas,
                         List<AppConfig.FunctionName> allowFunctions, Notes sensitive, ExportLane exports) {
    public static final long DEFAULT_MAX_RESULT_BYTES = 4L * 1024 * 1024;
    /** 200 rows, plan cost 1,000,000, 5 s statements, 1 s locks, 4 connections, every schema, no sensitive columns. */
    public static final Settings DEFAULTS = new Settings(200, 1_000_000, 5000, 1000, 4, StaticCheck.Limits.DEFAULT,
        DEFAULT_MAX_RESULT_BYTES, List.of(), List.of(), Notes.EMPTY, ExportLane.DEFAULT);

    public Settings {
      schemas = List.copyOf(schemas);
      allowFunctions = List.copyOf(allowFunctions);
    }

    public static Settings from(AppConfig c) {
      return new Settings(c.rowCap(), c.maxPlanCost(), c.statementTimeoutMs(), c.lockTimeoutMs(), 4,
          StaticCheck.Limits.DEFAULT, c.maxResultBytes(), c.schemas(), c.allowFunctions(), c.notes(),
          new ExportLane(c.exportConnections(), c.exportStallMs()));
    }

    public Settings withRowCap(int rows) {
      return new Settings(rows, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, maxResultBytes,
          schemas, allowFunctions, sensitive, exports);
    }

    public Settings withMaxPlanCost(double cost) {
      return new Settings(rowCap, cost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, maxResultBytes,
          schemas, allowFunctions, sensitive, exports);
    }

    /** A statement's and a lock wait's timeouts. */
    public Settings withTimeouts(int statementMs, int lockMs) {
      return new Settings(rowCap, maxPlanCost, statementMs, lockMs, poolSize, limits, maxResultBytes,
          schemas, allowFunctions, sensitive, exports);
    }

    public Settings withPoolSize(int connections) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, connections, limits, maxResultBytes,
          schemas, allowFunctions, sensitive, exports);
    }

    public Settings withLimits(StaticCheck.Limits staticLimits) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, staticLimits,
          maxResultBytes, schemas, allowFunctions, sensitive, exports);
    }

    public Settings withMaxResultBytes(long bytes) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, bytes, schemas,
          allowFunctions, sensitive, exports);
    }

    public Settings withSchemas(List<String> visible) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, maxResultBytes,
          visible, allowFunctions, sensitive, exports);
    }

    public Settings withAllowFunctions(List<AppConfig.FunctionName> allow) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, maxResultBytes,
          schemas, allow, sensitive, exports);
    }

    /** The notes whose sensitive columns are masked. */
    public Settings withSensitive(Notes notes) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, maxResultBytes,
          schemas, allowFunctions, notes, exports);
    }

    public Settings withExports(ExportLane lane) {
      return new Settings(rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, poolSize, limits, maxResultBytes,
          schemas, allowFunctions, sensitive, lane);
    }

    /** The static check of {@code schema} under these limits and allowed functions. */
    StaticCheck check(VisibleSchema schema) {
      return new StaticCheck(schema, limits, allowFunctions);
    }
  }

  /**
   * Where the gate reads: the read-only role's connect options, the network options (TLS, connect timeout) and the
   * catalogue it takes visible tables from (null: a catalogue of its own, read through the gate's pool).
   */
  public record Database(PgConnectOptions readOnlyRole, NetClientOptions net, CatalogueHolder catalogue) {

    public static Database of(Target target) {
      return new Database(target.roOptions(), target.url().netOptions(), null);
    }

    public static Database of(PgConnectOptions readOnlyRole) {
      return new Database(readOnlyRole, new NetClientOptions(), null);
    }

    /** The same, taking each query's tables from the process's catalogue (a refresh reaches the gate at once). */
    public Database sharing(CatalogueHolder shared) {
      return new Database(readOnlyRole, net, shared);
    }
  }

  private final Vertx vertx;
  private final Settings settings;
  private final ReadOnlyExecutor executor;
  /** Checks that passed, waiting in their transactions for the run of their statement. */
  private final HeldChecks held;
  /** Where the visible tables come from: each submission uses the snapshot it started with, to its end. */
  private final CatalogueHolder catalogue;
  /**
   * The columns of statements described lately, by role and bounded text: a guess for a repeat, always checked
   * against the statement's description before anything runs ({@link #guessed}).
   */
  private final TextCache<List<ResultShape.Column>> shapes = new TextCache<>(1024, 8_000, 512_000);
  /** Where the columns of results come from, and whether they are sensitive. */
  private final ResultMasks resultMasks = new ResultMasks();
  /** Failures in the gate's words. */
  private final GateErrors errors;

  private Gate(Vertx vertx, Settings settings, ReadOnlyExecutor executor, CatalogueHolder catalogue) {
    this.vertx = vertx;
    this.settings = settings;
    this.errors = new GateErrors(settings.statementTimeoutMs(), settings.maxResultBytes());
    this.executor = executor;
    this.held = new HeldChecks(vertx);
    this.catalogue = catalogue;
  }

  /** Opens the read-only pool, reads the visible tables (unless the catalogue is shared), warms up the parser. */
  public static Future<Gate> start(Vertx vertx, Database database, Settings settings) {
    ReadOnlyExecutor executor = new ReadOnlyExecutor(vertx, database.readOnlyRole(), database.net(), settings.poolSize(),
        settings.statementTimeoutMs(), settings.lockTimeoutMs(), settings.exports());
    CatalogueHolder catalogue = database.catalogue() != null ? database.catalogue()
        : CatalogueHolder.over(vertx, executor.pool(), settings.schemas());
    return vertx.executeBlocking(() -> {
          StaticCheck.warmUp();
          return null;
        }, false)
        .compose(v -> catalogue.current())
        .map(snapshot -> {
          executor.openExportConnection();
          LOG.info("gate ready: {} visible tables (catalogue version {}), row cap {}, max plan cost {}",
              snapshot.catalogue().tables().size(), snapshot.version(), settings.rowCap(), settings.maxPlanCost());
          return new Gate(vertx, settings, executor, catalogue);
        })
        .recover(err -> executor.close().transform(x -> Future.failedFuture(err)));
  }

  public Settings settings() {
    return settings;
  }

  /** The visible tables of the catalogue's current snapshot. */
  public VisibleSchema schema() {
    return agentCheck(catalogue.snapshot()).schema();
  }

  /** The executor, for tests that bypass the static check on purpose. */
  ReadOnlyExecutor executor() {
    return executor;
  }

  /** Cancels the statement the run is running and refuses its later ones. */
  public void stop(String runId) {
    executor.stop(runId);
    held.stop(runId);
  }

  public Future<Void> close() {
    held.close();
    return executor.close();
  }

  // ---- the pipeline ------------------------------------------------------------------------------

  /**
   * Checks ({@code run: false}) or checks and runs the request's statement, every stage's verdict in the reply. A row
   * cap above the configured one is lowered to it. With a run id, {@link #stop} cancels the statement (a
   * {@code cancelled} error); with a database role it runs as that role; the notes file's sensitive columns are
   * masked unless the request may see them. A refusal, a PostgreSQL error or a lost database is a structured error
   * reply ({@code ok: false}); the future fails only with {@link ReadOnlyExecutor.Busy} when no connection was free
   * within {@link ReadOnlyExecutor#POOL_WAIT_S} s (not the query's fault: the caller says busy).
   */
  public Future<GateReply> submit(GateRequest request) {
    Asked asked = Asked.of(request, settings.rowCap());
    return firstPass(asked, request.holds()).compose(first -> {
      if (!recoveryConflict(first) || executor.stopped(asked.runId())) return Future.succeededFuture(first);
      // A hot standby cancelled it to replay the primary's changes: the query is not at fault and the conflict has
      // usually passed by now, so the same statement runs once more (no model call, no attempt counted).
      LOG.info("recovery conflict on the standby: running the same statement once more");
      return pass(asked.withoutHold()).map(second -> {
        second.stage(GateReply.EXECUTION).ifPresent(s -> s.facts().put("rerun_after", ErrorType.RECOVERY_CONFLICT.wireName()));
        return recoveryConflict(second) ? second.withError(GateErrors.recoveryConflictGiveUp(second.error())) : second;
      });
    });
  }

  /**
   * A request's pass: the run of a statement a held check just passed continues in that check's transaction; a check
   * asked to hold waits there for its run ({@link HeldChecks}); any other goes through every stage.
   */
  private Future<GateReply> firstPass(Asked a, boolean hold) {
    if (a.runId() == null) return pass(a);
    if (a.run()) {
      Future<GateReply> ran = held.run(a.key());
      return ran != null ? ran : pass(a);
    }
    if (!hold) return pass(a);
    HeldChecks.Held check = held.hold(a.key());
    pass(a.holding(check)).onComplete(check::ended);
    return check.checkReply();
  }

  private static boolean recoveryConflict(GateReply reply) {
    return !reply.ok() && reply.error() != null && reply.error().type() == ErrorType.RECOVERY_CONFLICT;
  }

  /** A request as the gate takes it: its row cap resolved, and where an export's rows go (null: into the reply). */
  private record Asked(String sql, boolean run, int cap, String runId, String dbRole,
                       java.util.Map<String, String> rowSettings, boolean seeSensitive, Streaming streaming,
                       HeldChecks.Held hold) {
    static Asked of(GateRequest r, int configuredCap) {
      int cap = r.rowCap() == null ? configuredCap : Math.max(1, Math.min(r.rowCap(), configuredCap));
      return new Asked(r.sql(), r.run(), cap, r.runId(), r.dbRole(), r.settingsByName(), r.showsSensitive(), null, null);
    }

    /** What its run must match to continue a held check of it. */
    HeldChecks.Key key() {
      return new HeldChecks.Key(runId, sql, cap, dbRole, rowSettings, seeSensitive);
    }

    /** The same check, held for its run once it passed. */
    Asked holding(HeldChecks.Held check) {
      return new Asked(sql, run, cap, runId, dbRole, rowSettings, seeSensitive, streaming, check);
    }

    Asked withoutHold() {
      return new Asked(sql, run, cap, runId, dbRole, rowSettings, seeSensitive, streaming, null);
    }

    /** The run of this check, asked now. */
    Asked ran() {
      return new Asked(sql, true, cap, runId, dbRole, rowSettings, seeSensitive, streaming, null);
    }
  }

  /**
   * One pass through the stages. Stages 1 and 2 need no connection; the rest run in one read-only transaction
   * ({@link #inTransaction}). Failures that are not the statement's become replies here (or {@code Busy}).
   */
  private Future<GateReply> pass(Asked a) {
    long t0 = System.nanoTime();
    Stages stages = new Stages();
    CatalogueSnapshot snapshot = catalogue.snapshot();
    return checkFor(snapshot, a.dbRole())
        .compose(check -> staticCheck(a.sql(), snapshot, check, a.dbRole() == null))
        .compose(checked -> {
          StaticCheck.Verdict verdict = checked.verdict();
          if (!verdict.passed()) return Future.succeededFuture(stages.failed(verdict.error().withSql(a.sql()), checked.write()));
          stages.passed(new JsonObject().put("verdict", verdict.staticCheck()));
          Query q = rowCap(a, verdict, checked.by().schema(), t0, stages,
              new Sensitivity(sensitive(snapshot), snapshot.version(), a.seeSensitive()));
          return inTransaction(q);
        })
        .recover(err -> {
          // A held check's wait ended without its run: the outcome goes to nobody.
          if (err instanceof ReadOnlyExecutor.Stopped || err instanceof HeldChecks.Over) {
            return Future.succeededFuture(stages.failed(GateErrors.cancelled(a.sql()), false));
          }
          if (err instanceof SinkGone gone) {
            return Future.succeededFuture(stages.failed(GateErrors.exportStopped(gone.rows, gone.getMessage(), a.sql()), false));
          }
          // Every connection is in use: not the query's fault, and no reply blames it; the caller says busy.
          if (err instanceof ReadOnlyExecutor.Busy) return Future.failedFuture(err);
          // The user's role's view could not be read for the same reason.
          if (err instanceof dev.sqlagent.db.PoolBusy busy) return Future.failedFuture(new ReadOnlyExecutor.Busy(busy.getMessage()));
          // Not the query's fault (the database is unreachable): still a structured reply.
          LOG.warn("gate failure: {}", String.valueOf(err));
          return Future.succeededFuture(stages.failed(GateErrors.unreachable(a.sql()), false));
        });
  }

  /** One statement past its static check and row cap; {@code shapeKey} names its columns in {@link #shapes}. */
  private record Query(Asked asked, StaticCheck.Verdict verdict, long t0, Stages stages, VisibleSchema schema,
                       RowBound.Bounded bounded, String shapeKey, Sensitivity sensitivity) {
    String sql() {
      return asked.sql();
    }

    boolean run() {
      return asked.run();
    }

    int cap() {
      return asked.cap();
    }

    String runId() {
      return asked.runId();
    }

    /** A run, or a check held for its run: its statement is prepared to run and its masks are read. */
    boolean mayRun() {
      return asked.run() || asked.hold() != null;
    }

    /** A held check's run, asked now: the same statement, its stages so far, its time from now. */
    Query ran() {
      return new Query(asked.ran(), verdict, System.nanoTime(), stages.copy(), schema, bounded, shapeKey, sensitivity);
    }
  }

  /**
   * The stages one submission went through, in order: each passed one with its facts, then at most one
   * that failed (the next one due: static check, limit, plan, execution).
   */
  private static final class Stages {
    private static final List<String> ORDER = List.of(GateReply.STATIC_CHECK, GateReply.LIMIT, GateReply.PLAN,
        GateReply.EXECUTION);
    private final List<GateReply.Stage> done = new java.util.ArrayList<>();

    void passed(JsonObject facts) {
      done.add(new GateReply.Stage(ORDER.get(done.size()), true, facts));
    }

    GateReply failed(GateError error, boolean writeIntent) {
      done.add(new GateReply.Stage(ORDER.get(done.size()), false, new JsonObject().put("error_type", error.type().wireName())));
      boolean writeRefused = writeIntent && (error.type() == ErrorType.REJECTED || error.type() == ErrorType.PERMISSION_DENIED);
      return GateReply.failed(error, done, writeRefused);
    }

    Stages copy() {
      Stages c = new Stages();
      c.done.addAll(done);
      return c;
    }

    List<GateReply.Stage> list() {
      return done;
    }
  }


  // ---- stage 1: the static check -------------------------------------------------------------------

  /** A static check derived from a catalogue snapshot: these settings, as this role (null: the agent role). */
  private record CheckKey(Settings settings, String role) {}

  /** The static check of the agent role's own view of {@code snapshot}, made once per snapshot. */
  private StaticCheck agentCheck(CatalogueSnapshot snapshot) {
    return snapshot.derive(new CheckKey(settings, null), s -> settings.check(VisibleSchema.from(s.catalogue())));
  }

  /**
   * The static check of {@code snapshot} as a user's database role sees the target: only the tables that role may
   * read are known, so a query on any other is refused as {@code unknown_table} with the role's own table list.
   * The agent role's own for no role. Made once per snapshot and role; a role's view that could not be read is
   * read again next time.
   */
  private Future<StaticCheck> checkFor(CatalogueSnapshot snapshot, String dbRole) {
    if (dbRole == null) return Future.succeededFuture(agentCheck(snapshot));
    return snapshot.deriveFuture(new CheckKey(settings, dbRole),
        s -> s.forRole(dbRole).map(cat -> settings.check(VisibleSchema.from(cat))));
  }

  /** The static check's verdict, the check that gave it and, for a refusal, whether the statement asked for a write. */
  private record Checked(StaticCheck.Verdict verdict, boolean write, StaticCheck by) {
    static Checked of(StaticCheck check, String sql) {
      StaticCheck.Verdict verdict = check.checkAndRemember(sql);
      return new Checked(verdict, !verdict.passed() && WriteIntent.of(sql), check);
    }
  }

  /**
   * The static check, on a worker thread (JSqlParser can take milliseconds); a text this check already passed
   * (a repeat, the run of a checked statement, a candidate voted twice) has its verdict handed out again at once, on
   * the event loop. For the agent role ({@code mayRefresh}), an unknown table in a snapshot older than
   * {@link #SCHEMA_REFRESH_SECONDS} may be a new one: the catalogue reads again and the query is checked against
   * the new snapshot as a whole.
   */
  private Future<Checked> staticCheck(String sql, CatalogueSnapshot snapshot, StaticCheck check, boolean mayRefresh) {
    StaticCheck.Verdict known = check.remembered(sql);
    if (known != null) return Future.succeededFuture(new Checked(known, false, check));
    return vertx.executeBlocking(() -> Checked.of(check, sql), false).compose(checked -> {
      StaticCheck.Verdict verdict = checked.verdict();
      boolean unknownTable = !verdict.passed() && verdict.error().type() == ErrorType.UNKNOWN_TABLE;
      if (!mayRefresh || !unknownTable || snapshot.ageSeconds() < SCHEMA_REFRESH_SECONDS) {
        return Future.succeededFuture(checked);
      }
      return catalogue.refresh().compose(fresh -> {
        StaticCheck updated = agentCheck(fresh);
        return vertx.executeBlocking(() -> Checked.of(updated, sql), false);
      });
    });
  }

  // ---- stage 2: the row cap ------------------------------------------------------------------------

  /** The statement bounded to the request's cap (the limit stage). */
  private Query rowCap(Asked a, StaticCheck.Verdict verdict, VisibleSchema schema, long t0, Stages stages,
                       Sensitivity sensitivity) {
    RowBound.Bounded bounded = RowBound.apply(a.sql(), verdict.lexed().tokens(), a.cap());
    stages.passed(new JsonObject().put("row_cap", a.cap()).put("capped", bounded.capped()).put("sql", bounded.sql()));
    return new Query(a, verdict, t0, stages, schema, bounded,
        (a.dbRole() == null ? "" : a.dbRole()) + '\u0000' + bounded.executed(), sensitivity);
  }

  // ---- stages 3 to 8, in one read-only transaction -------------------------------------------------

  /**
   * Describe, plan, plan check, masks, execution and result in one read-only transaction (as the request's role, and
   * cancellable through its run). A statement whose columns the gate saw lately is {@link #guessed} (one round trip
   * fewer), any other {@link #described}. Failures of the statement become the gate's structured errors.
   */
  private Future<GateReply> inTransaction(Query q) {
    Stages stages = q.stages();
    String sql = q.sql();
    List<ResultShape.Column> known = shapes.get(q.shapeKey());
    java.util.function.Supplier<Future<GateReply>> work = () -> known == null ? described(q)
        : guessed(q, known).recover(e -> e instanceof ShapeChanged ? described(q) : Future.failedFuture(e));
    // One span for the statement in its transaction (describe, plan, rows), named and shaped by its text; a held
    // check's span ends with its reply, and its run is a span of its own, under the node that asked for it.
    Future<GateReply> outcome;
    if (q.asked().hold() == null) {
      outcome = executor.traced(q.bounded().executed(), work);
    } else {
      executor.traced(q.bounded().executed(), q.asked().hold()::checkReply);
      outcome = work.get();
    }
    return outcome.recover(err -> {
      if (err instanceof ReadOnlyExecutor.Stopped) return Future.succeededFuture(stages.failed(GateErrors.cancelled(sql), false));
      if (err instanceof ReadOnlyExecutor.TooLarge tooLarge) {
        return Future.succeededFuture(stages.failed(errors.tooLarge(tooLarge).withSql(sql), false));
      }
      if (err instanceof ReadOnlyExecutor.Cut cut) return Future.succeededFuture(stages.failed(errors.cut(cut, sql), false));
      Located located = err instanceof Located l ? l : new Located(err, 0);
      if (located.getCause() instanceof PgException pg) {
        GateError error = withoutValues(errors.fromPostgres(pg, located.prefix, sql, q.bounded(), q.verdict(), q.schema()),
            q.verdict(), q.sensitivity());
        return Future.succeededFuture(stages.failed(error, WriteIntent.of(q.verdict().lexed().tokens())));
      }
      return Future.failedFuture(located.getCause());
    });
  }

  /**
   * Round trips: the statement's description sent with the transaction's setup; the prepare and the plan (two,
   * see {@link #plan}); the rows. The reset follows the reply.
   */
  private Future<GateReply> described(Query q) {
    return executor.inReadOnlyTransaction(q.runId(), q.asked().dbRole(), q.asked().rowSettings(),
        q.asked().streaming() != null,
        conn -> describe(conn, q.bounded().executed()),
        (conn, columns) -> {
          shapes.put(q.shapeKey(), columns);
          Future<Planned> planned = plan(conn, q, columns);
          Future<Mask[]> masks = masks(conn, q, columns);
          return planned.compose(p -> masks.compose(m -> checkPlanThenRun(conn, q, columns, p, m)));
        });
  }

  /**
   * A statement whose columns the gate saw lately (a repeat, or the run of a statement just checked): its prepare and
   * plan go out with the setup and its description, shaped as it was then, one round trip fewer. The description
   * decides: the same columns, and what was planned is exactly what {@link #described} would have planned; others
   * (the table changed), and nothing of it runs: {@link ShapeChanged}, and the gate starts again from the description.
   */
  private Future<GateReply> guessed(Query q, List<ResultShape.Column> known) {
    record Sent(List<ResultShape.Column> columns, Future<Planned> planned) {}
    return executor.inReadOnlyTransaction(q.runId(), q.asked().dbRole(), q.asked().rowSettings(),
        q.asked().streaming() != null, conn -> {
          Future<List<ResultShape.Column>> columns = describe(conn, q.bounded().executed());
          Future<Planned> planned = plan(conn, q, known);
          return columns.map(c -> new Sent(c, planned));
        },
        (conn, sent) -> {
          if (!sent.columns().equals(known)) {
            shapes.remove(q.shapeKey());
            return sent.planned().transform(x -> Future.failedFuture(new ShapeChanged()));
          }
          Future<Mask[]> masks = masks(conn, q, known);
          return sent.planned().compose(planned -> masks.compose(m -> checkPlanThenRun(conn, q, known, planned, m)));
        });
  }

  /** The statement's columns are no longer what they were when it was last described. */
  private static final class ShapeChanged extends RuntimeException {
    ShapeChanged() {
      super("the statement's columns changed", null, false, false);
    }
  }

  /** A planned statement: the plan check; then a check's reply, or the rows read and shaped into the result. */
  private Future<GateReply> checkPlanThenRun(SqlConnection conn, Query q, List<ResultShape.Column> columns, Planned planned,
      Mask[] masks) {
    Stages stages = q.stages();
    Optional<GateError> refused = checkPlan(q, planned);
    if (refused.isPresent()) return Future.succeededFuture(stages.failed(refused.get().withSql(q.sql()), false));
    double cost = PlanCheck.totalCost(planned.plan());
    stages.passed(new JsonObject().put("cost", cost));
    if (executor.stopped(q.runId())) return Future.failedFuture(new ReadOnlyExecutor.Stopped());
    if (!q.run()) {
      GateReply checked = GateReply.checked(q.bounded().sql(), q.verdict().staticCheck(), cost, List.copyOf(stages.list()));
      if (q.asked().hold() == null) return Future.succeededFuture(checked);
      // The check's reply goes out; its run, when asked, continues here, in this transaction, with this plan. While it
      // waits the connection runs nothing, so a stop ends the wait rather than sending a cancel request.
      executor.idle(q.runId(), conn);
      return q.asked().hold().passed(checked).compose(v -> {
        Query run = q.ran();
        executor.busy(run.runId(), conn);
        if (executor.stopped(run.runId())) return Future.failedFuture(new ReadOnlyExecutor.Stopped());
        return executor.traced(run.bounded().executed(),
            () -> execute(run, columns, planned).map(rows -> shapeResult(run, columns, rows, masks, cost)));
      });
    }
    if (q.asked().streaming() != null) return streamed(q, columns, planned, cost, masks);
    return execute(q, columns, planned).map(rows -> shapeResult(q, columns, rows, masks, cost));
  }

  // ---- stages 3 and 4: the description and the plan ------------------------------------------------

  /**
   * Names and types of the bounded statement's columns, from PostgreSQL's parse of it alone: nothing is planned or
   * run. Sent together with the transaction's setup ({@link ReadOnlyExecutor#inReadOnlyTransaction(String, String,
   * java.util.function.Function, java.util.function.BiFunction)}).
   */
  private Future<List<ResultShape.Column>> describe(SqlConnection conn, String executed) {
    return ReadOnlyExecutor.describe(conn, executed)
        .recover(e -> Future.failedFuture(new Located(e, 0)))
        .map(ResultShape::columns);
  }

  /** The plan of the statement to run, and that statement prepared, ready to fetch from. */
  private record Planned(JsonObject plan, PreparedStatement runner, int prefix, String execute) {}

  /**
   * Prepares the shaped statement under a name of its own ({@code PREPARE}, through the extended protocol: one
   * statement only) and shows its plan with {@code EXPLAIN EXECUTE}: PostgreSQL plans it once, there, and the
   * execution ({@code EXECUTE}, prepared here too when {@code run}) uses that very plan, so the plan checked is the
   * plan run and the statement is not planned a second time. The prepare, the plan and the runner are sent together
   * (the connection pipelines them; PostgreSQL runs them in order): one round trip for all three.
   * If a step fails, the transaction is aborted and every later one fails with it; the first failure is the one
   * reported. The reset deallocates the statement ({@code DISCARD ALL}, or {@code DEALLOCATE ALL} inside the
   * transaction behind a transaction pooler: {@link ReadOnlyExecutor}).
   *
   * <p>EXPLAIN VERBOSE prints every constant the planner folded, so a query that builds a huge value from
   * constants ({@code repeat('x', 100000000)}) would have PostgreSQL spend seconds printing it and send
   * hundreds of megabytes of plan. The plan gets a short timeout of its own; a plan that does not come back
   * within it, or cannot be read, is a result_too_large refusal rather than a stalled connection.
   */
  private Future<Planned> plan(SqlConnection conn, Query q, List<ResultShape.Column> columns) {
    // An export's file is written from PostgreSQL's text of every column.
    boolean export = q.asked().streaming() != null;
    String shaped = ResultShape.shaped(q.bounded().executed(), columns, true, export, q.cap() + 1);
    int prefix = ResultShape.prefix(columns, true, export).length();
    return export ? planStreamed(conn, shaped, prefix) : plan(conn, shaped, prefix, q.mayRun());
  }

  /** {@link #plan(SqlConnection, Query, List)} of a statement already shaped, {@code prefix} long before the query. */
  private Future<Planned> plan(SqlConnection conn, String shaped, int prefix, boolean run) {
    int planMs = Math.min(settings.statementTimeoutMs(), EXPLAIN_TIMEOUT_MS);
    String name = PREPARED_NAME + PREPARED.incrementAndGet();
    String prepare = "PREPARE " + name + " AS ";
    Future<?> prepared = executor.executeUnnamed(conn, prepare + shaped);
    // Trusted text only from here on (a name of ours and integers): the simple protocol is fine, and one message
    // carries the plan's own timeout, the plan and the query's timeout back (one reply where three took turns).
    Future<RowSet<Row>> planned = executor.simple(conn, "SET LOCAL statement_timeout = " + planMs + "; " + EXPLAIN_PREFIX
        + "EXECUTE " + name + "; SET LOCAL statement_timeout = " + Math.max(1, settings.statementTimeoutMs()))
        .map(RowSet::next);
    Future<PreparedStatement> runner = run ? conn.prepare("EXECUTE " + name) : Future.succeededFuture();
    watch(conn, prepared, planned, planMs);
    int located = prepare.length() + prefix;
    return prepared
        .recover(e -> Future.failedFuture(new Located(e, located)))
        .compose(v -> planned.recover(e -> planFailed(e, planMs)))
        .compose(rows -> runner.recover(e -> Future.failedFuture(new Located(e, located)))
            .map(ps -> new Planned(planOf(rows), ps, located, "EXECUTE " + name)));
  }

  /**
   * An export's plan, for a statement whose rows stream out as PostgreSQL produces them. {@code EXECUTE} of a statement
   * {@code PREPARE}d in SQL runs it to its end into a store before the first row leaves (a utility statement's
   * result); the statement is prepared through the protocol instead (Parse of a named statement), which a portal
   * reads a chunk at a time. It is still planned once: {@code EXPLAIN EXECUTE} of that statement, under the name
   * PostgreSQL knows it by ({@code pg_prepared_statements}: a pooler may rename it), plans it and caches the plan, and
   * the portal's Bind runs that plan (a statement without parameters has one plan, its generic one). Round trips: the
   * parse with the name's lookup, the plan, then the rows.
   */
  private Future<Planned> planStreamed(SqlConnection conn, String shaped, int prefix) {
    int planMs = Math.min(settings.statementTimeoutMs(), EXPLAIN_TIMEOUT_MS);
    Future<PreparedStatement> runner = conn.prepare(shaped);
    Future<String> named = conn.preparedQuery(PROTOCOL_STATEMENT_NAME).execute(io.vertx.sqlclient.Tuple.of(shaped))
        .map(rows -> rows.iterator().hasNext() ? rows.iterator().next().getString(0) : null);
    return runner.recover(e -> Future.failedFuture(new Located(e, prefix))).compose(ps -> named.compose(name -> {
      // Not listed (a pooler that keeps its own statements): planned and run as a question's statement is.
      if (name == null) return plan(conn, shaped, prefix, true);
      Future<RowSet<Row>> planned = executor.simple(conn, "SET LOCAL statement_timeout = " + planMs + "; "
          + EXPLAIN_PREFIX + "EXECUTE " + dev.sqlagent.db.Identifiers.quote(name) + "; SET LOCAL statement_timeout = "
          + Math.max(1, settings.statementTimeoutMs())).map(RowSet::next);
      watch(conn, Future.succeededFuture(), planned, planMs);
      return planned.recover(e -> planFailed(e, planMs))
          .map(rows -> new Planned(planOf(rows), ps, prefix, "EXECUTE " + name));
    }));
  }

  /** PostgreSQL's name of the protocol-level statement prepared with the text {@code $1} in this session. */
  private static final String PROTOCOL_STATEMENT_NAME = "SELECT name FROM pg_catalog.pg_prepared_statements "
      + "WHERE NOT from_sql AND statement = $1 ORDER BY prepare_time DESC LIMIT 1";

  /**
   * The plan's timeout lands only where PostgreSQL checks for a cancel, and folding or printing a huge constant is
   * not such a place (array_fill(1, ARRAY[40000000]): 5.5 s under the 1.5 s timeout): past the timeout and a grace,
   * counted from the reply before the plan ({@code before}: the plan is next in line then), the connection itself is
   * closed.
   */
  private void watch(SqlConnection conn, Future<?> before, Future<?> planned, int planMs) {
    before.onSuccess(v -> {
      long watchdog = vertx.setTimer(planMs + PLAN_GRACE_MS, id -> {
        if (planned.isComplete()) return;
        LOG.warn("plan still not back {} ms after its timeout: closing its connection", PLAN_GRACE_MS);
        executor.drop(conn);
      });
      planned.onComplete(x -> vertx.cancelTimer(watchdog));
    });
  }

  /** A plan that failed: past its timeout or unreadable it is a result_too_large refusal, else PostgreSQL's error. */
  private static <T> Future<T> planFailed(Throwable e, int planMs) {
    boolean cancelled = e instanceof PgException pg && "57014".equals(pg.getSqlState());
    if (cancelled || !(e instanceof PgException)) {
      LOG.warn("plan not checked: {}", cancelled ? "cancelled after " + planMs + " ms" : e.getClass().getSimpleName());
      return Future.failedFuture(new ReadOnlyExecutor.TooLarge(0, 0));
    }
    // The text PostgreSQL saw holds no user text: a position in it points at nothing the user wrote.
    return Future.failedFuture(new Located(e, Integer.MAX_VALUE / 2));
  }

  /** The plan in {@code EXPLAIN (FORMAT JSON)}'s reply. */
  private static JsonObject planOf(RowSet<Row> rows) {
    Object v = rows.iterator().next().getValue(0);
    JsonArray plans = v instanceof JsonArray a ? a : new JsonArray(String.valueOf(v));
    return plans.getJsonObject(0);
  }

  // ---- stage 5: the plan check ---------------------------------------------------------------------

  /** The plan's cost under the ceiling, and nothing in it that writes, locks rows or reads a hidden relation. */
  private Optional<GateError> checkPlan(Query q, Planned planned) {
    return PlanCheck.check(planned.plan(), settings.maxPlanCost(), q.schema());
  }

  // ---- stage 6: the masks --------------------------------------------------------------------------

  /**
   * A data error (SQLSTATE class 22) of a statement that reads sensitive data, for a caller who may not see it: PostgreSQL
   * quotes the offending value ({@code invalid input syntax for type integer: "..."}), which could be a sensitive one,
   * so quoted text is taken out of its message and hint.
   */
  private static GateError withoutValues(GateError e, StaticCheck.Verdict verdict, Sensitivity sensitivity) {
    if (sensitivity.seeSensitive() || e.sqlState() == null || !e.sqlState().startsWith("22")) return e;
    SensitiveColumns s = sensitivity.columns();
    if (!s.hasRules() || !ResultMasks.readsSensitive(verdict.lexed().tokens(), s.columnNames(), s.tableNames())) return e;
    return new GateError(e.type(), unquoted(e.message()), unquoted(e.hint()), e.sqlState(), e.position(), e.sql());
  }

  private static String unquoted(String text) {
    return text == null ? null : text.replaceAll("\"[^\"]*\"", "\"" + Mask.REDACTED + "\"");
  }

  /** The sensitive columns of the snapshot a submission started with, and whether its caller may see them unmasked. */
  private record Sensitivity(SensitiveColumns columns, long version, boolean seeSensitive) {}

  /** What {@link #sensitive} derives from a snapshot. */
  private record SensitiveKey(Notes notes) {}

  /** The notes' sensitive columns in {@code snapshot}, resolved once per snapshot. */
  private SensitiveColumns sensitive(CatalogueSnapshot snapshot) {
    Notes notes = settings.sensitive();
    if (notes == null || !notes.marksSensitive()) return SensitiveColumns.NONE;
    return snapshot.derive(new SensitiveKey(notes), s -> SensitiveColumns.of(notes, s.catalogue()));
  }

  /** The masks of a statement's columns ({@link ResultMasks}), asked inside its transaction; none for a check. */
  private Future<Mask[]> masks(SqlConnection conn, Query q, List<ResultShape.Column> columns) {
    if (!q.mayRun()) return Future.succeededFuture(new Mask[columns.size()]);
    return resultMasks.of(conn, columns, q.verdict().lexed().tokens(), q.sensitivity().columns(), q.sensitivity().version());
  }

  // ---- stages 7 and 8: the rows and the result -----------------------------------------------------

  /** The planned statement's rows (one more than the cap, so a cut shows), within the result's byte bound. */
  private Future<JsonArray> execute(Query q, List<ResultShape.Column> columns, Planned planned) {
    return executor.fetchBounded(planned.runner(), columns, q.cap() + 1, settings.maxResultBytes())
        .recover(e -> Future.failedFuture(e instanceof ReadOnlyExecutor.TooLarge ? e : new Located(e, planned.prefix())));
  }

  /**
   * The reply of a statement that ran. The one place results are masked: every caller of the gate gets a sensitive
   * column's values masked, unless the asking user may see them; either way its column says so.
   */
  private GateReply shapeResult(Query q, List<ResultShape.Column> columns, JsonArray rows, Mask[] masks, double cost) {
    boolean shown = q.sensitivity().seeSensitive();
    if (!shown) ResultMasks.apply(masks, rows);
    GateReply.Result result = result(q.bounded(), columns, rows, q.cap(), q.t0(), masks, shown);
    q.stages().passed(new JsonObject().put("row_count", result.rowCount()).put("elapsed_ms", result.elapsedMs()));
    return GateReply.ran(q.bounded().sql(), q.verdict().staticCheck(), cost, result, q.stages().list());
  }

  private static GateReply.Result result(RowBound.Bounded bounded, List<ResultShape.Column> columns, JsonArray rows,
                                        int cap, long t0) {
    return result(bounded, columns, rows, cap, t0, null, false);
  }

  /** The result; a column with a mask is marked with it, and as masked unless {@code shown} (a granted user's). */
  private static GateReply.Result result(RowBound.Bounded bounded, List<ResultShape.Column> columns, JsonArray rows,
                                        int cap, long t0, Mask[] masks, boolean shown) {
    int fetched = rows.size();
    while (rows.size() > cap) rows.remove(rows.size() - 1);
    return new GateReply.Result(columnsJson(columns, masks, shown), rows, rows.size(), bounded.capped() && fetched > cap,
        (System.nanoTime() - t0) / 1_000_000);
  }

  /**
   * The columns as a result names them: {@code [{name, type}]}; a column with a mask is marked with it, and as masked
   * (typed text) unless {@code shown}.
   */
  private static JsonArray columnsJson(List<ResultShape.Column> columns, Mask[] masks, boolean shown) {
    JsonArray cols = new JsonArray();
    for (int i = 0; i < columns.size(); i++) {
      ResultShape.Column c = columns.get(i);
      Mask m = masks == null || i >= masks.length ? null : masks[i];
      JsonObject col = new JsonObject().put("name", c.name()).put("type", m == null || shown ? c.type() : "text");
      if (m != null) col.put(ResultMasking.MASK, m.wireName()).put(ResultMasking.MASKED, !shown);
      cols.add(col);
    }
    return cols;
  }

  // ---- exports -------------------------------------------------------------------------------------

  /**
   * An export: {@code sql} through the whole gate as {@link #submit} takes it (static check, row cap, plan and cost
   * check, the read-only transaction, as {@code dbRole} when given) with the export's own cap {@code maxRows} in place
   * of the configured one, its rows streamed to {@code sink} ({@link ReadOnlyExecutor#stream}) rather than returned:
   * at most {@code maxRows} rows and {@code maxBytes} bytes of cells. With {@code liftCap} the statement is an
   * answer's SQL that the interactive cap cut, and that cap is taken off first ({@link RowBound#lift}). The reply has
   * no rows: its result counts what was sent, {@code truncated} when a limit cut it, and its execution stage says
   * which ({@code truncated_by}: rows or bytes). Exports have connections of their own ({@link ExportLane}): with all
   * of them in use the future fails with {@link ReadOnlyExecutor.Busy}, else it succeeds; a sink that failed (its client
   * went away or took nothing for too long) ends the export as {@code cancelled}, a read that failed after rows went
   * out says why ({@link #cut}).
   */
  public Future<GateReply> export(String sql, boolean liftCap, int maxRows, long maxBytes, String dbRole,
      boolean seeSensitive, RowSink sink) {
    return export(sql, liftCap, maxRows, maxBytes, dbRole, java.util.Map.of(), seeSensitive, sink);
  }

  /** The same with the asking user's row settings, set for the statement in its transaction as for {@link #submit}. */
  public Future<GateReply> export(String sql, boolean liftCap, int maxRows, long maxBytes, String dbRole,
      java.util.Map<String, String> rowSettings, boolean seeSensitive, RowSink sink) {
    Future<String> text = !liftCap ? Future.succeededFuture(sql) : vertx.executeBlocking(() -> {
      try {
        return RowBound.lift(sql, PgLexer.lex(sql).tokens());
      } catch (PgLexer.LexException e) {
        return sql;  // the static check refuses it with its own words
      }
    }, false);
    return text.compose(t -> pass(new Asked(t, true, Math.max(1, maxRows), null, dbRole, rowSettings, seeSensitive,
        new Streaming(maxBytes, sink), null)));
  }

  /** Where an export's rows go instead of the reply, and its byte bound. */
  private record Streaming(long maxBytes, RowSink sink) {}

  /** The sink of an export failed (its client went away, or took nothing for too long): the export stops. */
  private static final class SinkGone extends RuntimeException {
    final int rows;

    SinkGone(Throwable cause, int rows) {
      super(String.valueOf(cause.getMessage()), cause, false, false);
      this.rows = rows;
    }
  }

  /** An export's execution: the rows go to its sink as they are read; the reply counts them. */
  private Future<GateReply> streamed(Query q, List<ResultShape.Column> columns, Planned planned, double cost,
                                     Mask[] masks) {
    RowSink sink = q.asked().streaming().sink();
    // Masked here as in shapeResult: an export shows a sensitive column's values only to a user who may see them.
    boolean shown = q.sensitivity().seeSensitive();
    int[] sent = {0};
    RowSink guarded = (cols, rows) -> {
      if (!shown) ResultMasks.applyToExportCells(masks, columns, rows);
      int before = sent[0];
      sent[0] += rows.size();
      return sink.accept(cols, rows).recover(e -> Future.failedFuture(new SinkGone(e, before)));
    };
    JsonArray cols = columnsJson(columns, masks, shown);
    return executor.traced(planned.execute(),
            () -> executor.stream(planned.runner(), columns, cols, q.cap(), q.asked().streaming().maxBytes(), guarded))
        .recover(e -> Future.failedFuture(e instanceof SinkGone || e instanceof ReadOnlyExecutor.Cut cut && !cut.byStatement()
            ? e : new Located(e instanceof ReadOnlyExecutor.Cut cut ? cut.getCause() : e, planned.prefix())))
        .map(streamed -> {
          long elapsed = (System.nanoTime() - q.t0()) / 1_000_000;
          GateReply.Result result = new GateReply.Result(cols, new JsonArray(), streamed.rows(),
              streamed.truncatedBy() != null, elapsed);
          q.stages().passed(new JsonObject().put("row_count", result.rowCount()).put("elapsed_ms", elapsed)
              .put("truncated_by", streamed.truncatedBy()));
          return GateReply.ran(q.bounded().sql(), q.verdict().staticCheck(), cost, result, q.stages().list());
        });
  }

  // ---- grading mode: the evaluation harness, in this process only --------------------------------

  /** The most rows one grading query may return: far more than any gold result; past it, a clear error. */
  public static final int GRADING_MAX_ROWS = 1_000_000;
  /** The most bytes (as JSON text) one grading result may take: the memory guard beside the row limit. */
  public static final long GRADING_MAX_BYTES = 128L * 1024 * 1024;

  /**
   * Grading mode, for the evaluation harness's own SQL (gold queries, and an answer's final SQL again without the
   * cap that truncated it), served by {@link ExecutionVerticle} on a local address that no edge forwards to. The
   * same static check as {@link #submit} (PostgreSQL's tokens, one statement, deny list, visible tables), the same
   * read-only transaction as the agent's role with the same statement and lock timeouts, and PostgreSQL's plan
   * checked for writes, row locks, hidden relations and deny-listed functions. Unlike {@link #submit}: no row cap,
   * no clipping of values, and no plan-cost ceiling. That ceiling keeps the model's runaway queries off the
   * interactive path; grading SQL is the question author's or already ran capped, its uncapped plan is costlier
   * by design (a LIMIT lowers the estimate), and a gold query refused for its cost would stop the whole run. The
   * statement timeout still bounds it. Every row comes back, up to {@link #GRADING_MAX_ROWS} rows and
   * {@link #GRADING_MAX_BYTES} bytes; past either the reply is a {@code result_too_large} error, never an
   * unbounded read. The future always succeeds, as {@link #submit}'s does.
   */
  public Future<GateReply> grade(String sql) {
    return grade(sql, GRADING_MAX_ROWS, GRADING_MAX_BYTES);
  }

  /** The same with other limits (tests). */
  Future<GateReply> grade(String sql, int maxRows, long maxBytes) {
    long t0 = System.nanoTime();
    Stages stages = new Stages();
    CatalogueSnapshot snapshot = catalogue.snapshot();
    return staticCheck(sql, snapshot, agentCheck(snapshot), true).compose(checked -> {
      StaticCheck.Verdict verdict = checked.verdict();
      if (!verdict.passed()) return Future.succeededFuture(stages.failed(verdict.error().withSql(sql), checked.write()));
      stages.passed(new JsonObject().put("verdict", verdict.staticCheck()));
      RowBound.Bounded whole = RowBound.none(sql, verdict.lexed().tokens());
      stages.passed(new JsonObject().put("grading", true).put("max_rows", maxRows).put("capped", false).put("sql", whole.sql()));
      VisibleSchema schema = checked.by().schema();
      return executor.inReadOnlyTransaction(conn -> describe(conn, whole.executed()).compose(columns -> {
            String shaped = ResultShape.shaped(whole.executed(), columns, false, maxRows + 1);
            int prefix = ResultShape.prefix(columns, false).length();
            return plan(conn, shaped, prefix, true).compose(planned -> {
              Optional<GateError> refused = PlanCheck.check(planned.plan(), Double.POSITIVE_INFINITY, schema);
              if (refused.isPresent()) return Future.succeededFuture(stages.failed(refused.get().withSql(sql), false));
              double cost = PlanCheck.totalCost(planned.plan());
              stages.passed(new JsonObject().put("cost", cost));
              return executor.traced(planned.execute(),
                      () -> executor.fetchBounded(planned.runner(), columns, maxRows + 1, maxBytes))
                  .recover(e -> Future.failedFuture(e instanceof ReadOnlyExecutor.TooLarge ? e
                      : new Located(e, planned.prefix())))
                  .map(rows -> {
                    if (rows.size() > maxRows) {
                      return stages.failed(GateErrors.gradingTooLarge("has more than " + maxRows + " rows", maxRows, maxBytes)
                          .withSql(sql), false);
                    }
                    GateReply.Result result = result(whole, columns, rows, maxRows, t0);
                    stages.passed(new JsonObject().put("row_count", result.rowCount()).put("elapsed_ms", result.elapsedMs()));
                    return GateReply.ran(whole.sql(), verdict.staticCheck(), cost, result, stages.list());
                  });
            });
          }))
          .recover(err -> {
            if (err instanceof ReadOnlyExecutor.TooLarge tooLarge) {
              GateError error = tooLarge.budget == 0 ? errors.tooLarge(tooLarge)
                  : GateErrors.gradingTooLarge("grew past " + tooLarge.budget + " bytes after " + tooLarge.rows + " rows", maxRows, maxBytes);
              return Future.succeededFuture(stages.failed(error.withSql(sql), false));
            }
            Located located = err instanceof Located l ? l : new Located(err, 0);
            if (located.getCause() instanceof PgException pg) {
              GateError error = errors.fromPostgres(pg, located.prefix, sql, whole, verdict, schema);
              return Future.succeededFuture(stages.failed(error, WriteIntent.of(verdict.lexed().tokens())));
            }
            return Future.failedFuture(located.getCause());
          });
    }).recover(err -> {
      LOG.warn("gate failure while grading: {}", String.valueOf(err));
      return Future.succeededFuture(stages.failed(GateErrors.unreachable(sql), false));
    });
  }

  /** A failure with the length of the text put in front of the bounded SQL (for error positions). */
  private static final class Located extends RuntimeException {
    final int prefix;

    Located(Throwable cause, int prefix) {
      super(cause.getMessage(), cause, false, false);
      this.prefix = prefix;
    }
  }
}
