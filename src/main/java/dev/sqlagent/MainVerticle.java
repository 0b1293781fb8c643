package dev.sqlagent;

import dev.sqlagent.agent.AgentVerticle;
import dev.sqlagent.agent.FirstSqlMutator;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Target;
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
    this.config = config;
    this.target = target;
    this.state = state;
    this.withHttp = withHttp;
    this.faultInjector = faultInjector;
  }

  @Override
  public Future<?> start() {
    LOG.info("effective configuration: {}", config.describe());
    // Each verticle gets its settings, built once from the checked configuration, through its constructor.
    // In dependency order: what the agent calls is up before the agent, the agent before the edges.
    List<Supplier<Deployable>> workers = List.of(
        () -> new ExecutionVerticle(target, Gate.Settings.from(config)),
        () -> new RetrievalVerticle(target, state, config),
        () -> new GenerationVerticle(ChatClientOptions.from(config)),
        () -> new QueryLogVerticle(state.logOptions(), QueryLogVerticle.Limits.from(config)),
        () -> new SchemaSnapshotVerticle(target, state, config.schemas()),
        () -> new AgentVerticle(config, faultInjector));
    Future<String> deployed = Future.succeededFuture();
    for (Supplier<Deployable> w : workers) deployed = deployed.compose(id -> vertx.deployVerticle(w.get()));
    if (!withHttp) return deployed;
    http = new HttpVerticle(config);
    return deployed
        .compose(id -> vertx.deployVerticle(new MetricsVerticle()))
        .compose(id -> vertx.deployVerticle(new HealthVerticle(target, state, config)))
        .compose(id -> vertx.deployVerticle(new EvalRunsVerticle(state)))
        .compose(id -> vertx.deployVerticle(http))
        .onSuccess(id -> LOG.info("sql-agent listening on http://{}:{}", config.httpHost(), http.actualPort()));
  }

  /** The bound HTTP port (useful when configured as 0). */
  public int httpPort() {
    return http.actualPort();
  }

  Target target() {
    return target;
  }
}
