package dev.sqlagent.telemetry;

import dev.sqlagent.config.TelemetrySettings;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.internal.VertxInternal;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The service's traces: an OpenTelemetry SDK exporting over OTLP/HTTP to {@code SQLAGENT_OTLP_ENDPOINT}, Vert.x's
 * tracer on top of it (the event bus carries each message's W3C {@code traceparent}, so a question an edge hands to
 * a worker stays one trace; every SQL statement is a span with its shape only, see {@link ShapingTracerFactory}),
 * and the spans the service makes itself: the question, each graph node, each model call.
 *
 * <p>Off (no endpoint), nothing is created: Vert.x has no tracer, {@link #of} answers {@link #OFF}, whose tracer makes
 * no spans. The run's log fields ({@link RunTag}) are carried either way.
 */
public final class Tracing {

  /** The instrumentation scope of the service's own spans. */
  public static final String SCOPE = "dev.sqlagent";
  /** Where a run keeps the fields every log line of it carries ({@link RunFields}). */
  public static final ContextKey<RunTag> RUN = ContextKey.named("sql-agent.run");

  /** Tracing off: no SDK, no spans. */
  public static final Tracing OFF = new Tracing(null, false);

  private static final Map<Vertx, Tracing> BY_VERTX = new ConcurrentHashMap<>();

  private final OpenTelemetrySdk sdk;
  private final Tracer tracer;
  private final boolean prompts;

  private Tracing(OpenTelemetrySdk sdk, boolean prompts) {
    this.sdk = sdk;
    this.tracer = sdk == null ? io.opentelemetry.api.OpenTelemetry.noop().getTracer(SCOPE) : sdk.getTracer(SCOPE);
    this.prompts = prompts;
  }

  /** The run a log line belongs to: its id, who asked, and the graph node running (null between nodes). */
  public record RunTag(String runId, String user, String node) {
    public RunTag at(String node) {
      return new RunTag(runId, user, node);
    }
  }

  /**
   * The SDK for these settings, or {@link #OFF} when there is no endpoint.
   *
   * @param instance this process among several (a cluster node's name), or null
   */
  public static Tracing start(TelemetrySettings settings, String instance) {
    if (!settings.tracing()) return OFF;
    var resource = Resource.getDefault().merge(Resource.create(instance == null
        ? Attributes.of(AttributeKey.stringKey("service.name"), "sql-agent")
        : Attributes.of(AttributeKey.stringKey("service.name"), "sql-agent",
            AttributeKey.stringKey("service.instance.id"), instance)));
    OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
        .setEndpoint(settings.endpoint().get().toString())
        .setTimeout(Duration.ofSeconds(10))
        .build();
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(resource)
        .addSpanProcessor(BatchSpanProcessor.builder(exporter).setScheduleDelay(Duration.ofMillis(500)).build())
        .build();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setTracerProvider(provider)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
    return new Tracing(sdk, settings.prompts());
  }

  /** Vert.x with this tracer (unchanged when off): to be applied before Vert.x is built. */
  public VertxBuilder install(VertxBuilder builder) {
    return sdk == null ? builder : builder.withTracer(new ShapingTracerFactory(sdk));
  }

  /** Makes this the tracing of {@code vertx} ({@link #of}); the spans still buffered are sent when it closes. */
  public Vertx attach(Vertx vertx) {
    if (sdk == null) return vertx;
    BY_VERTX.put(vertx, this);
    ((VertxInternal) vertx).addCloseHook(done -> {
      BY_VERTX.remove(vertx);
      sdk.shutdown().whenComplete(() -> done.succeed());
    });
    return vertx;
  }

  /** The tracing of this Vert.x: {@link #OFF} unless {@link #attach}ed. */
  public static Tracing of(Vertx vertx) {
    return vertx == null ? OFF : BY_VERTX.getOrDefault(vertx, OFF);
  }

  public boolean on() {
    return sdk != null;
  }

  /** Whether a model call's span may carry its prompt and reply ({@code SQLAGENT_OTLP_PROMPTS}). */
  public boolean prompts() {
    return prompts;
  }

  public Tracer tracer() {
    return tracer;
  }

  /** A span of the service's own, a child of {@code parent}. */
  public Span start(String name, SpanKind kind, Context parent) {
    return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent).startSpan();
  }

  /**
   * Runs {@code work} with {@code context} current on this Vert.x context until the future it returns completes: what
   * it sends on the event bus, and the SQL it runs, are children of the context's span and carry its run.
   */
  public static <T> Future<T> during(Context context, Supplier<Future<T>> work) {
    Scope scope = context.makeCurrent();
    Future<T> f;
    try {
      f = work.get();
    } catch (RuntimeException e) {
      scope.close();
      throw e;
    }
    return f.andThen(done -> scope.close());
  }

  /** Ends {@code span} when {@code f} completes, recording a failure. */
  public static <T> Future<T> ending(Span span, Future<T> f) {
    return f.andThen(done -> {
      if (done.failed()) {
        span.setStatus(io.opentelemetry.api.trace.StatusCode.ERROR, String.valueOf(done.cause().getMessage()));
      }
      span.end();
    });
  }

  /** The trace id of the current span, or null when there is none (tracing off). */
  public static String traceId() {
    return traceId(Context.current());
  }

  /** The trace id of the context's span, or null. */
  public static String traceId(Context context) {
    SpanContext sc = Span.fromContext(context == null ? Context.root() : context).getSpanContext();
    return sc.isValid() ? sc.getTraceId() : null;
  }
}
