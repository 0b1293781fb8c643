package dev.sqlagent.health;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.db.DbTarget;
import dev.sqlagent.drift.Drift;
import dev.sqlagent.drift.SchemaReader;
import dev.sqlagent.drift.SchemaShape;
import dev.sqlagent.drift.SnapshotStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClientOptions;
import io.vertx.ext.healthchecks.CheckResult;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness, every flag checked rather than assumed, on {@link Addresses#HEALTH_READINESS} (served at
 * {@code /api/health}). Each check is a vertx-health-check procedure with its own deadline
 * ({@code healthTimeoutMs}); a check that does not finish in time is DOWN, so a report never hangs.
 *
 * <p>Gates (any DOWN makes the service not ready, 503): db_reachable, read_only_confirmed (a write as
 * {@code sql_agent_ro} is attempted and must be refused, then rolled back), agent_cannot_read_log,
 * query_log_writable (a row is inserted as {@code sql_agent_log} and rolled back), log_role_cannot_read,
 * tables, schema_index_built, schema_drifted, query_log (the writer runs). Data only: model_reachable
 * ({@code GET {base}/models}), model.
 *
 * <p>Concurrent requests share one run of the checks, so probes cannot pile up connections.
 */
public final class HealthVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(HealthVerticle.class);

  /** Checks whose DOWN does not make the service unready. */
  static final Set<String> DATA_ONLY = Set.of("model_reachable", "model");

  private static final String VISIBLE = "c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
      + " AND NOT c.relispartition AND c.relname <> 'agent_query_log' AND has_table_privilege(c.oid, 'SELECT')";

  private final DbTarget db;
  private final SnapshotStore snapshots;
  private long timeoutMs;
  private String modelName;
  private String modelBase;
  private String modelKey;
  private Pool roPool;
  private Pool logPool;
  private WebClient web;
  private HealthChecks checks;
  private Future<JsonObject> inFlight;

  public HealthVerticle(DbTarget db, Path home) {
    this.db = db;
    this.snapshots = new SnapshotStore(home);
  }

  @Override
  public Future<?> start() {
    timeoutMs = config().getLong("healthTimeoutMs", 2_000L);
    modelName = config().getString("llmModel", "");
    modelBase = config().getString("llmBaseUrl", "");
    JsonArray keys = config().getJsonArray("llmApiKeys", new JsonArray());
    modelKey = keys.isEmpty() ? null : keys.getString(0);
    int connectMs = (int) Math.max(100, timeoutMs - 100);
    NetClientOptions net = new NetClientOptions().setConnectTimeout(connectMs);
    PoolOptions small = new PoolOptions().setConnectionTimeout(connectMs).setConnectionTimeoutUnit(TimeUnit.MILLISECONDS)
        .setIdleTimeout(30).setIdleTimeoutUnit(TimeUnit.SECONDS);
    roPool = PgBuilder.pool().with(net).with(new PoolOptions(small).setMaxSize(2).setName("sql-agent-health-ro"))
        .connectingTo(db.roOptions().addProperty("application_name", "sql-agent-health")).using(vertx).build();
    logPool = PgBuilder.pool().with(net).with(new PoolOptions(small).setMaxSize(1).setName("sql-agent-health-log"))
        .connectingTo(db.logOptions().addProperty("application_name", "sql-agent-health")).using(vertx).build();
    web = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(connectMs).setIdleTimeout((int) timeoutMs)
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS));

    checks = HealthChecks.create(vertx);
    register("db_reachable", this::dbReachable);
    register("read_only_confirmed", this::readOnlyConfirmed);
    register("agent_cannot_read_log", this::agentCannotReadLog);
    register("query_log_writable", this::queryLogWritable);
    register("log_role_cannot_read", this::logRoleCannotRead);
    register("tables", this::tables);
    register("schema_index_built", this::schemaIndexBuilt);
    register("schema_drifted", this::schemaDrift);
    register("query_log", this::queryLog);
    register("model_reachable", this::modelReachable);
    register("model", () -> Future.succeededFuture(Status.OK(new JsonObject().put("name", modelName).put("base_url", modelBase))));
    return vertx.eventBus().<JsonObject>consumer(Addresses.HEALTH_READINESS, this::onReadiness).completion();
  }

  @Override
  public Future<?> stop() {
    web.close();
    return Future.all(roPool.close(), logPool.close());
  }

  /** Registers a check with the deadline; its data always says when it was tried and how long it took. */
  private void register(String name, Supplier<Future<Status>> check) {
    checks.register(name, timeoutMs, promise -> {
      long t0 = System.nanoTime();
      check.get()
          .recover(e -> Future.succeededFuture(Status.KO(new JsonObject().put("error", describe(e)))))
          .map(s -> {
            JsonObject data = s.getData() == null ? new JsonObject() : s.getData();
            return s.setData(data.put("tried_at", Instant.now().toString()).put("elapsed_ms", (System.nanoTime() - t0) / 1_000_000));
          })
          // The library may have completed it already (the deadline passed): a late result is dropped.
          .onSuccess(promise::tryComplete);
    });
  }

  private void onReadiness(Message<JsonObject> msg) {
    if (inFlight == null) {
      inFlight = checks.checkStatus().map(HealthVerticle::report).eventually(() -> {
        inFlight = null;
        return Future.succeededFuture();
      });
    }
    inFlight.onSuccess(msg::reply).onFailure(e -> msg.fail(500, "the readiness checks failed: " + describe(e)));
  }

  /** The flat report: one field per flag, plus every check with its data. */
  static JsonObject report(CheckResult result) {
    Map<String, CheckResult> byId = new LinkedHashMap<>();
    for (CheckResult c : result.getChecks()) byId.put(c.getId(), c);
    boolean ok = byId.values().stream().allMatch(c -> DATA_ONLY.contains(c.getId()) || up(c));
    JsonObject r = new JsonObject().put("ok", ok).put("status", ok ? "UP" : "DOWN");
    for (String flag : List.of("db_reachable", "read_only_confirmed", "agent_cannot_read_log", "query_log_writable",
        "log_role_cannot_read", "schema_index_built")) {
      r.put(flag, up(byId.get(flag)));
    }
    JsonObject drift = data(byId.get("schema_drifted"));
    r.put("schema_drifted", drift.getBoolean("drifted"));
    r.put("schema_differences", drift.getJsonArray("differences", new JsonArray()));
    r.put("model_reachable", data(byId.get("model_reachable")).getBoolean("reachable", false));
    r.put("tables", data(byId.get("tables")).getInteger("count"));
    r.put("model", data(byId.get("model")).getString("name"));
    r.put("query_log", data(byId.get("query_log")));
    JsonArray all = new JsonArray();
    byId.values().forEach(c -> all.add(new JsonObject().put("id", c.getId()).put("status", up(c) ? "UP" : "DOWN")
        .put("gate", !DATA_ONLY.contains(c.getId())).put("data", data(c))));
    return r.put("checks", all).put("checked_at", Instant.now().toString());
  }

  private static boolean up(CheckResult c) {
    return c != null && Boolean.TRUE.equals(c.getUp());
  }

  private static JsonObject data(CheckResult c) {
    return c == null || c.getData() == null ? new JsonObject() : c.getData();
  }

  // --- the checks ---------------------------------------------------------------------------------

  private Future<Status> dbReachable() {
    return roPool.query("SELECT current_database() AS db, current_user AS role, current_setting('server_version') AS version")
        .execute().map(rs -> {
          var row = rs.iterator().next();
          return Status.OK(new JsonObject().put("database", row.getString("db")).put("role", row.getString("role"))
              .put("server_version", row.getString("version")));
        });
  }

  /** A write as the agent role, twice: in its default (read-only) transaction, then asking for READ WRITE. */
  private Future<Status> readOnlyConfirmed() {
    return roPool.withConnection(conn -> firstTable(conn, "has_table_privilege(c.oid, 'SELECT')").compose(table -> {
      String write = "INSERT INTO " + ident(table) + " DEFAULT VALUES";
      return attempt(conn, "BEGIN", write).compose(readOnly -> attempt(conn, "BEGIN READ WRITE", write).map(readWrite -> {
        boolean ok = refusedWith(readOnly, "25006") && refusedWith(readWrite, "42501");
        if (!ok) LOG.error("readiness: the agent role was NOT refused a write as expected: {} / {}", readOnly, readWrite);
        JsonObject data = new JsonObject().put("default_transaction", readOnly).put("read_write_transaction", readWrite);
        return ok ? Status.OK(data) : Status.KO(data);
      }));
    }));
  }

  private Future<Status> agentCannotReadLog() {
    return roPool.withConnection(conn -> attempt(conn, null, "SELECT 1 FROM agent_query_log LIMIT 1")
        .map(r -> refusedWith(r, "42501") ? Status.OK(r) : Status.KO(r)));
  }

  private Future<Status> queryLogWritable() {
    String probe = "INSERT INTO agent_query_log (run_id, question, asked_at, mode, source, attempts_used, gave_up, refused)"
        + " VALUES ('health-probe-" + UUID.randomUUID() + "', 'readiness probe', now(), 'agent', 'health', 0, false, false)";
    return logPool.withConnection(conn -> attempt(conn, "BEGIN", probe)
        .map(r -> r.getBoolean("refused") ? Status.KO(r) : Status.OK(r)));
  }

  private Future<Status> logRoleCannotRead() {
    return logPool.withConnection(conn -> firstTable(conn, "true").compose(table ->
        attempt(conn, null, "SELECT 1 FROM agent_query_log LIMIT 1").compose(log ->
            attempt(conn, null, "SELECT 1 FROM " + ident(table) + " LIMIT 1").map(shop -> {
              JsonObject data = new JsonObject().put("query_log", log).put("shop_table", shop);
              return refusedWith(log, "42501") && refusedWith(shop, "42501") ? Status.OK(data) : Status.KO(data);
            }))));
  }

  private Future<Status> tables() {
    return roPool.query("SELECT count(*)::int AS n FROM pg_class c WHERE " + VISIBLE).execute().map(rs -> {
      int n = rs.iterator().next().getInteger("n");
      JsonObject data = new JsonObject().put("count", n);
      return n > 0 ? Status.OK(data) : Status.KO(data.put("error", "the agent role can read no table"));
    });
  }

  private Future<Status> schemaIndexBuilt() {
    return vertx.eventBus().<JsonObject>request(Addresses.RETRIEVAL_STATUS, new JsonObject(),
            new DeliveryOptions().setSendTimeout(Math.max(50, timeoutMs - 100)))
        .map(m -> m.body().getBoolean("built", false) ? Status.OK(m.body()) : Status.KO(m.body()))
        .recover(e -> Future.succeededFuture(Status.KO(new JsonObject().put("built", false).put("error",
            e instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS
                ? "retrieval is not running (nothing answers " + Addresses.RETRIEVAL_STATUS + ")" : describe(e)))));
  }

  private Future<Status> schemaDrift() {
    Future<Optional<SchemaShape>> snapshot = vertx.executeBlocking(() -> snapshots.read(db.admin()), false);
    return Future.all(snapshot, SchemaReader.read(roPool, db.admin())).map(both -> {
      Optional<SchemaShape> snap = both.resultAt(0);
      SchemaShape live = both.resultAt(1);
      if (snap.isEmpty()) {
        return Status.KO(new JsonObject().put("drifted", (Boolean) null).put("snapshot", "missing")
            .put("error", "no schema snapshot yet (" + snapshots.path(db.admin()) + "); it is written when the index is built"));
      }
      Drift d = Drift.between(snap.get(), live);
      JsonObject data = d.toJson().put("snapshot_taken_at", snap.get().takenAt()).put("index_built_at", snap.get().indexBuiltAt());
      return d.drifted() ? Status.KO(data) : Status.OK(data);
    });
  }

  private Future<Status> queryLog() {
    return vertx.eventBus().<JsonObject>request(Addresses.QUERY_LOG_STATUS, new JsonObject(),
            new DeliveryOptions().setSendTimeout(Math.max(50, timeoutMs - 100)))
        .map(m -> Status.OK(m.body()))
        .recover(e -> Future.succeededFuture(Status.KO(new JsonObject().put("running", false).put("error", describe(e)))));
  }

  /** Data, not a gate: the service can start and answer health while the model is away. The key is never shown. */
  private Future<Status> modelReachable() {
    var req = web.getAbs(modelBase + "/models").timeout(Math.max(50, timeoutMs - 100));
    if (modelKey != null) req.bearerTokenAuthentication(modelKey);
    return req.send().map(resp -> {
      JsonObject data = new JsonObject().put("reachable", resp.statusCode() / 100 == 2).put("status_code", resp.statusCode());
      if (resp.statusCode() / 100 == 2) {
        try {
          JsonArray models = resp.bodyAsJsonObject().getJsonArray("data", new JsonArray());
          data.put("model_listed", models.stream().anyMatch(m -> m instanceof JsonObject j && modelName.equals(j.getString("id"))));
        } catch (RuntimeException e) {
          data.put("model_listed", (Boolean) null);
        }
      }
      return Status.OK(data);
    }).recover(e -> Future.succeededFuture(Status.OK(new JsonObject().put("reachable", false).put("error", describe(e)))));
  }

  // --- plumbing -----------------------------------------------------------------------------------

  /**
   * Runs {@code sql} (inside {@code begin}'s transaction, rolled back whatever happens, when begin is given) and
   * says whether it was refused and with which SQLSTATE. Never fails for a refusal.
   */
  private static Future<JsonObject> attempt(SqlConnection conn, String begin, String sql) {
    Future<Void> opened = begin == null ? Future.succeededFuture() : conn.query(begin).execute().mapEmpty();
    Future<JsonObject> outcome = opened.compose(v -> conn.query(sql).execute())
        .map(rs -> new JsonObject().put("statement", sql).put("refused", false))
        .recover(e -> {
          if (!(e instanceof PgException pg)) return Future.failedFuture(e);
          return Future.succeededFuture(new JsonObject().put("statement", sql).put("refused", true)
              .put("sqlstate", pg.getSqlState()).put("message", pg.getErrorMessage()));
        });
    if (begin == null) return outcome;
    return outcome.compose(r -> conn.query("ROLLBACK").execute().map(v -> r.put("rolled_back", true)));
  }

  private static boolean refusedWith(JsonObject attempt, String sqlState) {
    return attempt.getBoolean("refused", false) && sqlState.equals(attempt.getString("sqlstate"));
  }

  /** A shop table to try things on, from the catalogue (readable by every role). */
  private static Future<String> firstTable(SqlConnection conn, String condition) {
    return conn.query("SELECT c.relname::text AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace"
            + " AND c.relkind = 'r' AND c.relname <> 'agent_query_log' AND " + condition + " ORDER BY c.relname LIMIT 1")
        .execute().compose(rs -> rs.size() == 0
            ? Future.failedFuture("no shop table found in schema public")
            : Future.succeededFuture(rs.iterator().next().getString("name")));
  }

  private static String ident(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static String describe(Throwable e) {
    if (e instanceof PgException pg) return pg.getSqlState() + " " + pg.getErrorMessage();
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
