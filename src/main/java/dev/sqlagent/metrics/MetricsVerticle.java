package dev.sqlagent.metrics;

import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.StateMessages.LogFacts;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.BudgetMessages.BudgetFact;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.bus.Addresses;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import dev.sqlagent.contract.Node;
import io.vertx.core.json.JsonObject;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.backends.BackendRegistries;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The service's metrics for Prometheus, derived only from what is published on the event bus: finished
 * answers ({@link Addresses#ANSWERS}), graph events ({@link Addresses#EVENTS}), the query log's totals
 * ({@link Addresses#QUERY_LOG_FACTS}) and live clients ({@link Addresses#LIVE_CLIENTS}). Nothing in the agent
 * knows it exists. {@link Addresses#METRICS_SCRAPE} replies the text exposition that {@code /metrics} serves.
 *
 * <p>When the Vert.x instance was built with {@link #newVertx()} (the service does), the same registry also
 * holds Vert.x's own metrics (HTTP server, event bus, pools) and the JVM's; otherwise (tests, tools) this
 * verticle keeps a registry of its own with the agent's metrics only.
 */
public final class MetricsVerticle extends VerticleBase {

  public static final String REGISTRY = "sql-agent";

  /** Labels come from the bus; anything unexpected is folded so a label can never grow without bound. */
  private static final Pattern LABEL = Pattern.compile("[a-z][a-z0-9_]{0,39}");
  private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/@-]{0,79}");
  private static final int MAX_LABEL_VALUES = 64;
  private static final Set<String> BUDGETS = Set.of("questions_per_day", "tokens_per_day", "cost_usd_per_day");
  private static final Set<String> SOURCES = Set.of("http", "ws", "eventbus", "cli", "mcp", "eval");
  private static final Duration[] LATENCY_BUCKETS = {
      Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
      Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(120)};

  private static final Set<String> PER_CONSUMER_GAUGES = Set.of("vertx.eventbus.handlers", "vertx.eventbus.pending");

  /** Clustered: this node's name (its metrics are also served by it); null on a single node. */
  private final String node;
  private PrometheusMeterRegistry registry;
  private final Set<String> seenLabels = ConcurrentHashMap.newKeySet();
  private final AtomicLong logWritten = new AtomicLong();
  private final AtomicLong logDropped = new AtomicLong();
  private final AtomicLong logBuffered = new AtomicLong();
  private final Map<String, AtomicLong> liveClients = new ConcurrentHashMap<>();

  /**
   * A Vert.x whose own metrics go to the registry this verticle serves. Metrics must be chosen when Vert.x is
   * created, so the service's entry point builds Vert.x here.
   */
  public static Vertx newVertx() {
    return vertxBuilder(new VertxOptions(), null).build();
  }

  /**
   * As {@link #newVertx()}, for Vert.x built from {@code options} (a cluster node's event bus); with a
   * {@code node} name (cluster mode), every metric carries it as the label {@code node}.
   */
  public static VertxBuilder vertxBuilder(VertxOptions options, String node) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // Vert.x registers these two gauges again for every event-bus consumer, keyed by address; without the
    // address label (below) every consumer after the first re-registers the same gauge, which micrometer
    // reports as "Gauge already registered" at each start. They are not kept: handler counts are fixed by the
    // code, and the bus's traffic is still counted (vertx_eventbus_published/sent/received/delivered/processed).
    registry.config().meterFilter(MeterFilter.deny(id -> PER_CONSUMER_GAUGES.contains(id.getName())));
    MicrometerMetricsOptions metrics = new MicrometerMetricsOptions().setEnabled(true).setRegistryName(REGISTRY)
        .setJvmMetricsEnabled(true)
        // No event-bus address, path or remote labels: run ids are in addresses, and paths and peers are unbounded.
        .setLabels(EnumSet.of(Label.HTTP_ROUTE, Label.HTTP_METHOD, Label.HTTP_CODE, Label.POOL_TYPE, Label.POOL_NAME,
            Label.EB_SIDE, Label.EB_FAILURE));
    if (node != null) registry.config().commonTags("node", node);
    return Vertx.builder().with(options.setMetricsOptions(metrics)).withMetrics(new MicrometerMetricsFactory(registry));
  }

  /** On a single node. */
  public MetricsVerticle() {
    this(null);
  }

  /** @param node clustered: this node's name (a node's metrics are also served by its name); null on a single node */
  public MetricsVerticle(String node) {
    this.node = node;
  }

  @Override
  public Future<?> start() {
    MeterRegistry shared = BackendRegistries.getNow(REGISTRY);
    registry = shared instanceof PrometheusMeterRegistry p ? p : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    FunctionCounter.builder("sqlagent.query_log.rows.written", logWritten, AtomicLong::get)
        .description("query-log rows written").register(registry);
    FunctionCounter.builder("sqlagent.query_log.rows.dropped", logDropped, AtomicLong::get)
        .description("query-log rows dropped (buffer full, rejected, or unwritten at stop); each is also logged at ERROR")
        .register(registry);
    Gauge.builder("sqlagent.query_log.rows.buffered", logBuffered, AtomicLong::get)
        .description("query-log rows waiting to be written").register(registry);
    for (String transport : new String[] {"ws", "eventbus"}) clients(transport);

    var bus = vertx.eventBus();
    // Node-local (the same in one process): in a cluster each node counts what it ran and served, and no
    // node receives another's events for its metrics. A node's metrics are also served by its name.
    if (node != null) bus.<JsonObject>consumer(Addresses.metricsOf(node), m -> m.reply(registry.scrape()));
    return Future.all(
        bus.<JsonObject>localConsumer(Addresses.ANSWERS, m -> read(m.body(), Answer::fromJson).ifPresent(this::onAnswer)).completion(),
        bus.<JsonObject>localConsumer(Addresses.EVENTS, m -> read(m.body(), GraphEvent::fromJson).ifPresent(this::onEvent)).completion(),
        bus.<JsonObject>consumer(Addresses.QUERY_LOG_FACTS, m -> onLogFacts(m.body())).completion(),
        bus.<JsonObject>localConsumer(Addresses.LIVE_CLIENTS, m -> onClients(m.body())).completion(),
        bus.<JsonObject>localConsumer(Addresses.BUDGET_FACTS, m -> read(m.body(), BudgetFact::fromJson).ifPresent(this::onBudget))
            .completion(),
        bus.<JsonObject>localConsumer(Addresses.METRICS_SCRAPE, m -> m.reply(registry.scrape())).completion());
  }

  /** A message as its record; one that cannot be read (not the agent's) is counted nowhere. */
  private static <T> java.util.Optional<T> read(JsonObject body, java.util.function.Function<JsonObject, T> reader) {
    if (body == null) return java.util.Optional.empty();
    try {
      return java.util.Optional.of(reader.apply(body));
    } catch (IllegalArgumentException notOurs) {
      return java.util.Optional.empty();
    }
  }

  private void onAnswer(Answer a) {
    String mode = label(a.mode());
    String source = SOURCES.contains(a.source()) ? a.source() : "other";
    boolean gaveUp = a.gaveUp();
    boolean refused = a.refused();
    boolean cancelled = a.cancelled();
    String outcome = a.outcome();
    Counter.builder("sqlagent.questions").description("questions finished, by entry, mode and outcome")
        .tags("source", source, "mode", mode, "outcome", outcome).register(registry).increment();
    int attempts = a.attempts();
    DistributionSummary.builder("sqlagent.question.attempts").description("attempts per question")
        .serviceLevelObjectives(1, 2, 3).tags("mode", mode).register(registry).record(attempts);
    Counter.builder("sqlagent.attempts").description("SQL attempts made").tags("mode", mode).register(registry)
        .increment(attempts);
    String lastError = null;
    for (Attempt h : a.history()) {
      if (h.errorType() == null) continue;
      lastError = h.errorType();
      if (h.strategy() != null) {
        Counter.builder("sqlagent.repairs").description("repairs attempted, by the error type that prompted them")
            .tags("error_type", label(lastError)).register(registry).increment();
      }
    }
    if (gaveUp) {
      Counter.builder("sqlagent.give_ups").description("questions given up, by the last error type")
          .tags("error_type", label(lastError)).register(registry).increment();
    }
    if (cancelled) {
      Counter.builder("sqlagent.cancellations").description("questions stopped before their answer, by entry")
          .tags("source", source).register(registry).increment();
      Timer.builder("sqlagent.cancel.latency").description("time from a cancel to the run's end, its statement and model call stopped")
          .register(registry).record(Math.max(0, a.cancelMs() == null ? 0L : a.cancelMs()), TimeUnit.MILLISECONDS);
    }
    if (refused) Counter.builder("sqlagent.refusals").description("questions refused").tags("mode", mode).register(registry).increment();
    Timer.builder("sqlagent.question.latency").description("time from question to answer")
        .serviceLevelObjectives(LATENCY_BUCKETS).tags("mode", mode, "outcome", outcome).register(registry)
        .record(Math.max(0, a.latencyMs()), TimeUnit.MILLISECONDS);
    String model = label(a.model(), MODEL);
    Counter.builder("sqlagent.model.tokens").description("model tokens used").tags("kind", "prompt", "model", model)
        .register(registry).increment(a.tokens().prompt());
    Counter.builder("sqlagent.model.tokens").description("model tokens used").tags("kind", "completion", "model", model)
        .register(registry).increment(a.tokens().completion());
    Counter.builder("sqlagent.model.cost.usd").description("model cost in USD").tags("model", model).register(registry)
        .increment(Math.max(0, a.costUsd()));
  }

  private void onEvent(GraphEvent e) {
    String kind = label(e.kind());
    String status = label(e.status());
    Counter.builder("sqlagent.events.published").description("graph events published").tags("kind", kind, "status", status)
        .register(registry).increment();
    Node node = Node.fromWireName(e.node()).orElse(null);
    JsonObject data = e.data();
    if (GraphEvent.FAILED.equals(e.status()) && (node == Node.VALIDATE_SQL || node == Node.EXECUTE_SQL)) {
      Counter.builder("sqlagent.gate.refusals").description("the gate's refusals and the database's errors, by reason")
          .tags("stage", node == Node.VALIDATE_SQL ? "validate" : "execute", "reason", label(data.getString("error_type")))
          .register(registry).increment();
    }
    if (node == Node.GENERATE_SQL && GraphEvent.FINISHED.equals(e.status()) && data.getValue("latency_ms") instanceof Number n) {
      Timer.builder("sqlagent.model.call.latency").description("model call latency").serviceLevelObjectives(LATENCY_BUCKETS)
          .register(registry).record(Math.max(0, n.longValue()), TimeUnit.MILLISECONDS);
    }
  }

  /** Budgets: questions refused by the budget spent, the amounts counted against each, questions let through unchecked. */
  private void onBudget(BudgetFact f) {
    String budget = BUDGETS.contains(f.budget()) ? f.budget() : "other";
    switch (f.kind()) {
      case BudgetFact.REFUSED -> Counter.builder("sqlagent.budget.refusals")
          .description("questions refused because a daily budget was spent, by budget").tags("budget", budget)
          .register(registry).increment();
      case BudgetFact.USED -> Counter.builder("sqlagent.budget.used")
          .description("amounts counted against the users' daily budgets (questions, model tokens, USD), by budget")
          .tags("budget", budget).register(registry).increment(Math.max(0, f.amount()));
      case BudgetFact.UNCHECKED -> Counter.builder("sqlagent.budget.unchecked")
          .description("questions let through uncounted: the state store did not answer the budget check in time")
          .register(registry).increment();
      default -> { }
    }
  }

  private void onLogFacts(JsonObject body) {
    if (body == null) return;
    LogFacts f = LogFacts.fromJson(body);
    logWritten.set(f.written());
    logDropped.set(f.dropped());
    logBuffered.set(f.buffered());
  }

  private void onClients(JsonObject body) {
    if (body == null) return;
    OpsMessages.LiveClients c = OpsMessages.LiveClients.fromJson(body);
    String transport = OpsMessages.LiveClients.EVENTBUS.equals(c.transport()) ? OpsMessages.LiveClients.EVENTBUS : OpsMessages.LiveClients.WS;
    AtomicLong n = clients(transport);
    long delta = c.delta();
    n.updateAndGet(v -> Math.max(0, v + Long.signum(delta)));
  }

  private AtomicLong clients(String transport) {
    return liveClients.computeIfAbsent(transport, t -> {
      AtomicLong n = new AtomicLong();
      Gauge.builder("sqlagent.live.clients", n, AtomicLong::get).description("connected WebSocket / SockJS clients")
          .tags("transport", t).register(registry);
      return n;
    });
  }

  private String label(String v) {
    return label(v, LABEL);
  }

  private String label(String v, Pattern allowed) {
    if (v == null) return "none";
    if (!allowed.matcher(v).matches()) return "other";
    if (seenLabels.contains(v)) return v;
    if (seenLabels.size() >= MAX_LABEL_VALUES) return "other";
    seenLabels.add(v);
    return v;
  }
}
