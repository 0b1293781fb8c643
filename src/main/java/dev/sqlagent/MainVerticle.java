package dev.sqlagent;

import dev.sqlagent.agent.AgentVerticle;
import dev.sqlagent.agent.FirstSqlMutator;
import dev.sqlagent.cluster.AskDispatcher;
import dev.sqlagent.cluster.Cluster;
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
import dev.sqlagent.state.StateStore;
import dev.sqlagent.drift.SchemaSnapshotVerticle;
import dev.sqlagent.eval.EvalRunsVerticle;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.generation.GenerationVerticle;
import dev.sqlagent.health.HealthVerticle;
import dev.sqlagent.metrics.MetricsVerticle;
import dev.sqlagent.querylog.QueryLogVerticle;
import dev.sqlagent.retrieval.RetrievalVerticle;
import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
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
    JsonObject settings = config.toJson();
    if (cluster != null) settings.put("clusterNode", cluster.nodeId()).put("clusterNodeName", cluster.name());
    DeploymentOptions opts = new DeploymentOptions().setConfig(settings);
    // In dependency order: what the agent calls is up before the agent, the agent before the edges.
    List<Supplier<Deployable>> steps = List.of(
        () -> new ExecutionVerticle(target),
        () -> new RetrievalVerticle(target, state),
        GenerationVerticle::new);
    // Duties for exactly one node of a cluster.
    List<Supplier<Deployable>> oneNode = List.of(
        () -> new QueryLogVerticle(state.logOptions(), cluster == null),
        () -> new SchemaSnapshotVerticle(target, state),
        () -> new ConversationVerticle(state),
        () -> new VerifiedVerticle(target, state));
    Future<String> deployed = Future.succeededFuture();
    if (cluster != null) {
      LOG.info("{}: {} node {}", cluster.settings().describe(), role.label(), cluster.nodeId());
      deployed = deployAll(opts, List.of(MetricsVerticle::new, () -> new ClusterStatus(cluster)));
      if (role.worker()) deployed = deployed.compose(id -> vertx.deployVerticle(new JournalWriter(state), opts));
    }
    if (role.worker()) deployed = deployed.compose(id -> deployAll(opts, steps));
    deployed = deployed.compose(id -> cluster == null ? deployAll(opts, oneNode)
        : vertx.deployVerticle(new SingletonLease(cluster, oneNode, opts), opts));
    if (role.worker()) deployed = deployed.compose(id -> vertx.deployVerticle(new AgentVerticle(faultInjector), opts));
    if (!withHttp) return deployed;
    deployed = cluster == null ? deployed.compose(id -> vertx.deployVerticle(new MetricsVerticle(), opts))
        : deployed.compose(id -> deployAll(opts, List.of(() -> new AskDispatcher(cluster), () -> new JournalReader(state),
            () -> new SchemaRefreshAll(cluster))));
    http = new HttpVerticle();
    return deployed
        .compose(id -> vertx.deployVerticle(new HealthVerticle(target, state), opts))
        .compose(id -> vertx.deployVerticle(new EvalRunsVerticle(state), opts))
        .compose(id -> vertx.deployVerticle(http, opts))
        .onSuccess(id -> LOG.info("sql-agent listening on http://{}:{}", config.httpHost(), http.actualPort()));
  }

  private Future<String> deployAll(DeploymentOptions opts, List<Supplier<Deployable>> verticles) {
    Future<String> deployed = Future.succeededFuture();
    for (Supplier<Deployable> v : verticles) deployed = deployed.compose(id -> vertx.deployVerticle(v.get(), opts));
    return deployed;
  }

  /** The bound HTTP port (useful when configured as 0). */
  public int httpPort() {
    return http == null ? -1 : http.actualPort();
  }

  Target target() {
    return target;
  }
}
