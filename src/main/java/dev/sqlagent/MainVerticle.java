package dev.sqlagent;

import dev.sqlagent.agent.AgentVerticle;
import dev.sqlagent.budget.BudgetVerticle;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueVerticle;
import dev.sqlagent.contract.FirstSqlMutator;
import dev.sqlagent.cluster.AskDispatcher;
import dev.sqlagent.cluster.Cluster;
import dev.sqlagent.cluster.ClusterMember;
import dev.sqlagent.cluster.ClusterStatus;
import dev.sqlagent.cluster.JournalReader;
import dev.sqlagent.cluster.JournalWriter;
import dev.sqlagent.cluster.Role;
import dev.sqlagent.cluster.SchemaRefreshAll;
import dev.sqlagent.cluster.SingletonLease;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.conversation.ConversationVerticle;
import dev.sqlagent.verified.VerifiedVerticle;
import dev.sqlagent.db.Target;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.state.StateStore;
import dev.sqlagent.drift.SchemaSnapshotVerticle;
import dev.sqlagent.eval.EvalRunsVerticle;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.generation.ChatClientOptions;
import dev.sqlagent.generation.GenerationVerticle;
import dev.sqlagent.health.HealthVerticle;
import dev.sqlagent.metrics.MetricsVerticle;
import dev.sqlagent.querylog.QueryLogVerticle;
import dev.sqlagent.retrieval.RetrievalVerticle;
import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deploys the service's verticles in order: the workers that hold the database and the model first, the
 * HTTP edge last, so nothing is served before what it calls is ready.
 */
public final class MainVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(MainVerticle.class);

  private final AppConfig config;
  private final Target target;
  private final StateStore state;
  private final boolean withHttp;
  private final FirstSqlMutator faultInjector;
  private final Cluster cluster;
  private volatile HttpVerticle http;
  /** The state store's pools, opened once here and lent to every verticle below. */
  private StateDatabase stateDb;

  public MainVerticle(AppConfig config, Target target, StateStore state) {
    this(config, target, state, true);
  }

  /** Without HTTP: the command-line tools (ask, eval, mcp) use the same verticles over the event bus. */
  public MainVerticle(AppConfig config, Target target, StateStore state, boolean withHttp) {
    this(config, target, state, withHttp, null);
  }

  /** With a fault injector for the agent: evaluation's {@code --inject-faults} only. */
  public MainVerticle(AppConfig config, Target target, StateStore state, boolean withHttp, FirstSqlMutator faultInjector) {
    this(config, target, state, withHttp, faultInjector, null);
  }

  /** One node of a cluster ({@code serve} with SQLAGENT_CLUSTER=true): what it runs follows its role. */
  public MainVerticle(AppConfig config, Target target, StateStore state, Cluster cluster) {
    this(config, target, state, cluster.role().edge(), null, cluster);
  }

  private MainVerticle(AppConfig config, Target target, StateStore state, boolean withHttp, FirstSqlMutator faultInjector,
      Cluster cluster) {
    this.config = config;
    this.target = target;
    this.state = state;
    this.withHttp = withHttp;
    this.faultInjector = faultInjector;
    this.cluster = cluster;
  }

  @Override
  public Future<?> start() {
    LOG.info("effective configuration: {}", config.describe());
    Role role = cluster == null ? Role.ALL : cluster.role();
    // Each verticle gets its settings, built once from the checked configuration, through its constructor.
    String node = cluster == null ? null : cluster.nodeId();
    StateDatabase stateDb = StateDatabase.open(vertx, state, config.statePoolSize());
    this.stateDb = stateDb;
    // The one catalogue of this process: the gate, retrieval, the schema snapshot and health take its snapshots.
    CatalogueHolder catalogue = CatalogueHolder.open(vertx, target, config.schemas());
    // In dependency order: what the agent calls is up before the agent, the agent before the edges.
    List<Supplier<Deployable>> steps = List.of(
        () -> new ExecutionVerticle(target, Gate.Settings.from(config), config.users().dbRoles(), catalogue,
            !config.rowSettingNames().isEmpty()),
        () -> new RetrievalVerticle(target, stateDb, config, node, catalogue),
        () -> new GenerationVerticle(ChatClientOptions.from(config)));
    // Duties for exactly one node of a cluster.
    List<Supplier<Deployable>> oneNode = List.of(
        () -> new QueryLogVerticle(stateDb, QueryLogVerticle.Limits.from(config), cluster == null),
        () -> new SchemaSnapshotVerticle(target, stateDb, config.schemas(), catalogue),
        () -> new ConversationVerticle(stateDb, config.conversationDays()),
        () -> new VerifiedVerticle(target, stateDb, config.verifiedThreshold()));
    Future<String> deployed = Future.succeededFuture();
    if (cluster != null) {
      LOG.info("{}: {} node {}", cluster.settings().describe(), role.label(), cluster.nodeId());
      deployed = deployAll(List.of(() -> new MetricsVerticle(cluster.name()), () -> new ClusterStatus(cluster, config.deadlines())));
      if (role.worker()) deployed = deployed.compose(id -> vertx.deployVerticle(new JournalWriter(stateDb)));
    }
    // First of this node's own: its first read fails the start when the agent role cannot read the catalogue.
    deployed = deployed.compose(id -> vertx.deployVerticle(new CatalogueVerticle(catalogue)));
    if (role.worker()) deployed = deployed.compose(id -> deployAll(steps));
    deployed = deployed.compose(id -> cluster == null ? deployAll(oneNode)
        : vertx.deployVerticle(new SingletonLease(cluster, oneNode)));
    // Every node: an edge admits questions by their budgets, a worker adds its answers' model use to them.
    deployed = deployed.compose(id -> vertx.deployVerticle(new BudgetVerticle(config.users(), stateDb)));
    if (role.worker()) deployed = deployed.compose(id -> vertx.deployVerticle(new AgentVerticle(config, stateDb, node, faultInjector,
        liveNodes())));
    if (!withHttp) return deployed;
    deployed = cluster == null ? deployed.compose(id -> vertx.deployVerticle(new MetricsVerticle()))
        : deployed.compose(id -> deployAll(List.of(() -> new AskDispatcher(cluster, config), () -> new JournalReader(stateDb),
            () -> new SchemaRefreshAll(cluster))));
    http = new HttpVerticle(config);
    return deployed
        .compose(id -> vertx.deployVerticle(new HealthVerticle(target, stateDb, config, catalogue)))
        .compose(id -> vertx.deployVerticle(new EvalRunsVerticle(stateDb)))
        .compose(id -> vertx.deployVerticle(http))
        .onSuccess(id -> LOG.info("sql-agent listening on http://{}:{}", config.httpHost(), http.actualPort()));
  }

  /** After every verticle it deployed is undeployed (their last writes done): the state store's pools close. */
  @Override
  public Future<?> stop() {
    return stateDb == null ? Future.succeededFuture() : stateDb.close();
  }

  /**
   * The processes whose runs in flight are theirs: a cluster's live members; a single service none but itself. The
   * command-line tools (no HTTP) leave a service's runs alone: it may be running beside them on the same store.
   */
  private Supplier<java.util.Set<String>> liveNodes() {
    if (cluster != null) {
      return () -> cluster.members().stream().map(ClusterMember::id).collect(java.util.stream.Collectors.toSet());
    }
    return withHttp ? java.util.Set::of : null;
  }

  private Future<String> deployAll(List<Supplier<Deployable>> verticles) {
    Future<String> deployed = Future.succeededFuture();
    for (Supplier<Deployable> v : verticles) deployed = deployed.compose(id -> vertx.deployVerticle(v.get()));
    return deployed;
  }

  /** The paths the HTTP router serves (empty without HTTP). */
  public List<String> routePaths() {
    return http == null ? List.of() : http.routePaths();
  }

  /** The bound HTTP port (useful when configured as 0). */
  public int httpPort() {
    return http == null ? -1 : http.actualPort();
  }

  Target target() {
    return target;
  }
}
