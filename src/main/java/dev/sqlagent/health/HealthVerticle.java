package dev.sqlagent.health;

import dev.sqlagent.contract.ClusterMessages.ClusterView;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.Readiness;
import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.Probes;
import dev.sqlagent.db.Target;
import dev.sqlagent.drift.Drift;
import dev.sqlagent.drift.SchemaReader;
import dev.sqlagent.drift.SchemaShape;
import dev.sqlagent.drift.SnapshotRepository;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.healthchecks.CheckResult;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
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
 * <p>Gates (any DOWN makes the service not ready, 503): db_reachable (the target, as the agent role),
 * read_only_confirmed (every proof, from the catalogue, that the agent role cannot write; never a write
 * attempted in the target), state_store_reachable, query_log_writable (a row is inserted as
 * {@code sql_agent_log} and rolled back, in the state store), log_role_cannot_read, tables, schema_index_built,
 * schema_drifted, query_log (the writer runs). Data only: model_reachable ({@code GET {base}/models}), model.
 * With {@code SQLAGENT_ALLOW_WRITABLE_ROLE=true}, read_only_confirmed is data: reported false, not a gate.
 *
 * <p>Concurrent requests share one run of the checks, so probes cannot pile up connections.
 */
public final class HealthVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(HealthVerticle.class);

  /** Checks whose DOWN does not make the service unready. */
  static final Set<String> DATA_ONLY = Set.of("model_reachable", "model", "cluster", "verified_queries", "data_policy");
  /** With a writable role allowed, its proofs are reported, not required. */
  static final Set<String> DATA_ONLY_WRITABLE = Set.of("model_reachable", "model", "cluster", "read_only_confirmed", "verified_queries",
      "data_policy");

  private final Target target;
  private final SnapshotRepository snapshots;
  private List<String> schemas;
  private boolean writableAllowed;
  /** The process's catalogue (null until start when none was handed over: then one of its own). */
  private CatalogueHolder catalogue;
  private Pool statePool;
  private long timeoutMs;
  private String modelName;
  private String modelBase;
  private String modelKey;
  /** Whether the catalogue is this verticle's own (none was handed over), to be closed with it. */
  private boolean ownsCatalogue;
  private Pool logPool;
  private WebClient web;
  private HealthChecks checks;
  private Future<Readiness> inFlight;
  private Future<Catalogue> probeCatalogue;

  private final StateDatabase state;
  private final AppConfig config;

  public HealthVerticle(Target target, StateDatabase state, AppConfig config) {
    this(target, state, config, null);
  }

  /** @param catalogue the process's catalogue, which reads the target for the tables and drift checks */
  public HealthVerticle(Target target, StateDatabase state, AppConfig config, CatalogueHolder catalogue) {
    this.target = target;
    this.state = state;
    this.config = config;
    this.snapshots = new SnapshotRepository(state);
    this.catalogue = catalogue;
  }

  @Override
  public Future<?> start() {
    timeoutMs = config.healthTimeoutMs();
    modelName = config.llmModel();
    modelBase = config.llmBaseUrl();
    modelKey = config.llmApiKeys().isEmpty() ? null : config.llmApiKeys().get(0);
    int connectMs = (int) Math.max(100, timeoutMs - 100);
    // The state store's pools are borrowed (the checks' deadlines bound each wait), not opened here.
    logPool = state.log();
    statePool = state.owner();
    schemas = config.schemas();
    writableAllowed = config.allowWritableRole();
    if (catalogue == null) {
      catalogue = CatalogueHolder.open(vertx, target, schemas);
      ownsCatalogue = true;
    }
    web = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(connectMs).setIdleTimeout((int) timeoutMs)
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS));

    checks = HealthChecks.create(vertx);
    register("db_reachable", this::dbReachable);
    register("read_only_confirmed", this::readOnlyConfirmed);
    register("state_store_reachable", this::stateStoreReachable);
    register("query_log_writable", this::queryLogWritable);
    register("log_role_cannot_read", this::logRoleCannotRead);
    register("tables", this::tables);
    register("schema_index_built", this::schemaIndexBuilt);
    register("schema_drifted", this::schemaDrift);
    register("query_log", this::queryLog);
    register("model_reachable", this::modelReachable);
    register("verified_queries", this::verifiedQueries);
    JsonObject model = new JsonObject().put("name", modelName).put("base_url", modelBase)
        .put("where", config.localModel().isPresent() ? "local" : "server");
    config.localModel().ifPresent(f -> model.put("file", f.toString()));
    register("model", () -> Future.succeededFuture(Status.OK(model.copy())));
    register("cluster", this::cluster);
    register("data_policy", this::dataPolicy);
    return vertx.eventBus().<JsonObject>consumer(Addresses.HEALTH_READINESS, this::onReadiness).completion();
  }

  @Override
  public Future<?> stop() {
    web.close();
    return ownsCatalogue ? catalogue.close() : Future.succeededFuture();
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
      probeCatalogue = null;  // each run of the checks discovers the target once, shared by tables and drift
      inFlight = checks.checkStatus().map(r -> report(r, writableAllowed ? DATA_ONLY_WRITABLE : DATA_ONLY)).eventually(() -> {
        inFlight = null;
        return Future.succeededFuture();
      });
    }
    inFlight.onSuccess(r -> msg.reply(r.toJson())).onFailure(e -> msg.fail(BusFailure.FAILED.code(), "the readiness checks failed: " + describe(e)));
  }

  /** The flat report: one field per flag, plus every check with its data. */
  static Readiness report(CheckResult result, Set<String> dataOnly) {
    Map<String, CheckResult> byId = new LinkedHashMap<>();
    for (CheckResult c : result.getChecks()) byId.put(c.getId(), c);
    boolean ok = byId.values().stream().allMatch(c -> dataOnly.contains(c.getId()) || up(c));
    JsonObject drift = data(byId.get("schema_drifted"));
    JsonObject readOnly = data(byId.get("read_only_confirmed"));
    List<Readiness.Check> all = byId.values().stream()
        .map(c -> new Readiness.Check(c.getId(), up(c) ? "UP" : "DOWN", !dataOnly.contains(c.getId()), data(c))).toList();
    return new Readiness(ok, ok ? "UP" : "DOWN", up(byId.get("db_reachable")), up(byId.get("read_only_confirmed")),
        up(byId.get("state_store_reachable")), up(byId.get("query_log_writable")), up(byId.get("log_role_cannot_read")),
        up(byId.get("schema_index_built")), drift.getBoolean("drifted"), drift.getJsonArray("differences", new JsonArray()),
        data(byId.get("model_reachable")).getBoolean("reachable", false), data(byId.get("tables")).getInteger("count"),
        data(byId.get("db_reachable")).getString("database"), readOnly.getJsonArray("proofs", new JsonArray()),
        readOnly.getJsonArray("warnings", new JsonArray()), data(byId.get("model")).getString("name"),
        data(byId.get("query_log")), data(byId.get("verified_queries")).getLong("retired"), data(byId.get("cluster")),
        all, Instant.now().toString());
  }

  private static boolean up(CheckResult c) {
    return c != null && Boolean.TRUE.equals(c.getUp());
  }

  private static JsonObject data(CheckResult c) {
    return c == null || c.getData() == null ? new JsonObject() : c.getData();
  }

  // --- the checks ---------------------------------------------------------------------------------

  private Future<Status> dbReachable() {
    return catalogue.server().map(s -> Status.OK(new JsonObject().put("database", s.database()).put("role", s.role())
        .put("server_version", s.version()).put("host", target.url().host())));
  }

  /**
   * Every proof, from the catalogue, that the agent role cannot write (on a worker: JDBC). Nothing is written
   * to the target: the one statement tried is refused by the read-only transaction before it does anything.
   */
  private Future<Status> readOnlyConfirmed() {
    return vertx.executeBlocking(() -> {
      // Bounded: a hanging database must not hold a worker past the check's deadline for long.
      return Probes.proof(target, schemas, (int) Math.max(1, (timeoutMs + 999) / 1000), config::acceptsExecutable);
    }, false).map(report -> {
      JsonObject data = report.toJson();
      if (!report.readOnly()) LOG.error("readiness: the agent role {} can write: {}", report.role(), report.refusal().orElse(""));
      return report.readOnly() ? Status.OK(data) : Status.KO(data);
    });
  }

  /**
   * One look at the target per run of the checks, by the catalogue (at 1,000 tables it is the costliest read of a
   * probe): the target as it is now, which drift compares with the schema the index was built from.
   */
  private Future<Catalogue> catalogueForThisRun() {
    if (probeCatalogue == null) probeCatalogue = catalogue.look();
    return probeCatalogue;
  }

  private Future<Status> stateStoreReachable() {
    return statePool.query("SELECT current_database() AS db, coalesce(max(version), 0) AS version FROM state_version")
        .execute().map(rs -> {
          var row = rs.iterator().next();
          return Status.OK(new JsonObject().put("database", row.getString("db")).put("version", row.getInteger("version")));
        });
  }

  private Future<Status> queryLogWritable() {
    String probe = "INSERT INTO agent_query_log (run_id, question, asked_at, mode, source, attempts_used, gave_up, refused)"
        + " VALUES ('health-probe-" + UUID.randomUUID() + "', 'readiness probe', now(), 'agent', 'health', 0, false, false)";
    return logPool.withConnection(conn -> attempt(conn, "BEGIN", probe)
        .map(r -> r.getBoolean("refused") ? Status.KO(r) : Status.OK(r)));
  }

  /** The log role may only insert: reading the log or a snapshot in the state store must fail 42501. */
  private Future<Status> logRoleCannotRead() {
    return logPool.withConnection(conn -> attempt(conn, null, "SELECT 1 FROM agent_query_log LIMIT 1").compose(log ->
        attempt(conn, null, "SELECT 1 FROM schema_snapshots LIMIT 1").map(snap -> {
          JsonObject data = new JsonObject().put("query_log", log).put("schema_snapshots", snap);
          return refusedWith(log, "42501") && refusedWith(snap, "42501") ? Status.OK(data) : Status.KO(data);
        })));
  }

  private Future<Status> tables() {
    return catalogueForThisRun().map(cat -> {
      int n = cat.tables().size();
      JsonObject data = new JsonObject().put("count", n).put("database", cat.database());
      return n > 0 ? Status.OK(data) : Status.KO(data.put("error", "the agent role can read no table"
          + (schemas.isEmpty() ? "" : " in the schemas " + String.join(", ", schemas))));
    });
  }

  /** What the model is sent (SQLAGENT_MODEL_SEES) and which columns are sensitive: data, never a reason to be unready. */
  private Future<Status> dataPolicy() {
    return catalogueForThisRun().map(cat -> {
      dev.sqlagent.policy.SensitiveColumns sensitive = dev.sqlagent.policy.SensitiveColumns.of(config.notes(), cat);
      return Status.OK(new JsonObject().put("model_sees", config.modelSees().wireName())
          .put("model_is_sent", config.modelSees().sends()).put("sensitive_columns", sensitive.toJson())
          .put("unmatched_patterns", new io.vertx.core.json.JsonArray(sensitive.unmatchedPatterns(cat))));
    });
  }

  private Future<Status> schemaIndexBuilt() {
    return new RetrievalClient(vertx, Math.max(50, timeoutMs - 100)).status()
        .map(s -> s.built() ? Status.OK(s.toJson()) : Status.KO(s.toJson()))
        .recover(e -> Future.succeededFuture(Status.KO(new JsonObject().put("built", false).put("error", describe(e)))));
  }

  private Future<Status> schemaDrift() {
    Future<Optional<SchemaShape>> snapshot = snapshots.read(target.key());
    Future<SchemaShape> now = catalogueForThisRun().map(cat -> SchemaReader.shape(target.key(), cat));
    return Future.all(snapshot, now).map(both -> {
      Optional<SchemaShape> snap = both.resultAt(0);
      SchemaShape live = both.resultAt(1);
      if (snap.isEmpty()) {
        return Status.KO(new JsonObject().put("drifted", (Boolean) null).put("snapshot", "missing")
            .put("error", "no schema snapshot yet (" + snapshots.where(target.key()) + "); it is written when the index is built"));
      }
      Drift d = Drift.between(snap.get(), live);
      JsonObject data = d.toJson().put("snapshot_taken_at", snap.get().takenAt()).put("index_built_at", snap.get().indexBuiltAt());
      // Verified queries are checked against the schema they were written for: drift re-checks them.
      if (d.drifted()) vertx.eventBus().publish(Addresses.SCHEMA_DRIFTED, new OpsMessages.SchemaDrifted(data.getValue("differences")).toJson());
      return d.drifted() ? Status.KO(data) : Status.OK(data);
    });
  }

  /** Data: how many verified queries answer, and how many are retired because the gate refuses them now. */
  private Future<Status> verifiedQueries() {
    return new StateClient(vertx, Math.max(50, timeoutMs - 100)).verifiedList()
        .map(list -> Status.OK(new JsonObject().put("active", list.active()).put("retired", list.retired())))
        .recover(e -> Future.succeededFuture(Status.KO(new JsonObject().put("error", describe(e)))));
  }

  /** Cluster mode: the members, their roles, which holds the query-log writer (dev.sqlagent.cluster.ClusterStatus). */
  private Future<Status> cluster() {
    return vertx.eventBus().<JsonObject>request(Addresses.CLUSTER_STATUS, new JsonObject(),
            new DeliveryOptions().setLocalOnly(true).setSendTimeout(Math.max(50, timeoutMs - 100)))
        .map(m -> Status.OK(ClusterView.fromJson(m.body()).toJson()))
        .recover(e -> Future.succeededFuture(e instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS
            ? Status.OK(ClusterView.DISABLED.toJson()) : Status.KO(ClusterView.unknown(describe(e)).toJson())));
  }

  private Future<Status> queryLog() {
    return new StateClient(vertx, Math.max(50, timeoutMs - 100)).logStatus()
        .map(status -> Status.OK(status.toJson()))
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
          // What a llama.cpp-style server says of the file it serves (ours adds size, sha256, architecture, quantisation).
          models.stream().filter(m -> m instanceof JsonObject j && modelName.equals(j.getString("id"))).findFirst()
              .map(m -> ((JsonObject) m).getValue("meta")).filter(JsonObject.class::isInstance)
              .ifPresent(meta -> data.put("served", meta));
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

  private static String describe(Throwable e) {
    if (e instanceof PgException pg) return pg.getSqlState() + " " + pg.getErrorMessage();
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
