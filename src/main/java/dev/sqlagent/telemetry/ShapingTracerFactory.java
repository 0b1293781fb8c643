package dev.sqlagent.telemetry;

import dev.sqlagent.execution.SqlShape;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.vertx.core.eventbus.Message;
import io.vertx.core.internal.ContextInternal;
import io.vertx.tracing.opentelemetry.VertxContextStorageProvider;
import io.vertx.core.Context;
import io.vertx.core.spi.VertxTracerFactory;
import io.vertx.core.spi.tracing.SpanKind;
import io.vertx.core.spi.tracing.TagExtractor;
import io.vertx.core.spi.tracing.VertxTracer;
import io.vertx.core.tracing.TracingOptions;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.tracing.opentelemetry.OpenTelemetryTracingFactory;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Vert.x's OpenTelemetry tracer, with what its spans say made safe to export: a SQL statement's text
 * ({@code db.query.text}) becomes its shape ({@link SqlShape}: literals replaced by {@code ?}) and names the span
 * ({@code SELECT}, {@code BEGIN} ... rather than "Query"); a URL loses its query and user information (where an API key or a
 * password could be). An event-bus message makes no span of its own: a question's dozens of internal hops (each step's
 * request, each event published) say nothing the node that sent them does not, and cost a span each on both sides. Its
 * W3C {@code traceparent} still travels with it, and the consumer runs in the sender's trace (a question an edge hands to
 * a worker stays one trace; the statements the gate sends are children of the node that asked). Everything else is
 * Vert.x's.
 */
final class ShapingTracerFactory implements VertxTracerFactory {

  private final OpenTelemetryTracingFactory delegate;

  private final TextMapPropagator propagator;

  ShapingTracerFactory(OpenTelemetry openTelemetry) {
    this.delegate = new OpenTelemetryTracingFactory(openTelemetry);
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  @Override
  @SuppressWarnings("unchecked")
  public VertxTracer<?, ?> tracer(TracingOptions options) {
    return new Shaping((VertxTracer<Object, Object>) delegate.tracer(options), propagator);
  }

  @Override
  public TracingOptions newOptions() {
    return delegate.newOptions();
  }

  private record Shaping(VertxTracer<Object, Object> inner, TextMapPropagator propagator)
      implements VertxTracer<Object, Object> {

    @Override
    public <R> Object receiveRequest(Context context, SpanKind kind, TracingPolicy policy, R request, String operation,
        Iterable<Map.Entry<String, String>> headers, TagExtractor<R> tags) {
      if (request instanceof Message<?>) return joined(context, policy, headers);
      return inner.receiveRequest(context, kind, policy, request, operation, headers, new Safe<>(tags));
    }

    @Override
    public <R> void sendResponse(Context context, R response, Object payload, Throwable failure, TagExtractor<R> tags) {
      if (payload instanceof Joined joined) {
        joined.scope().close();
        return;
      }
      inner.sendResponse(context, response, payload, failure, new Safe<>(tags));
    }

    @Override
    public <R> Object sendRequest(Context context, SpanKind kind, TracingPolicy policy, R request, String operation,
        BiConsumer<String, String> headers, TagExtractor<R> tags) {
      if (request instanceof Message<?>) {
        if (policy != TracingPolicy.IGNORE) {
          io.opentelemetry.context.Context current = io.opentelemetry.context.Context.current();
          if (Span.fromContext(current).getSpanContext().isValid()) propagator.inject(current, headers, HEADERS);
        }
        return null;
      }
      // Vert.x makes no span then: the statement's first word is not looked for (a pool that traces nothing itself).
      if (policy == TracingPolicy.IGNORE) return null;
      Safe<R> safe = new Safe<>(tags);
      String sql = request == null ? null : safe.raw(request, "db.query.text");
      return inner.sendRequest(context, kind, policy, request, sql == null ? operation : SqlShape.operation(sql), headers,
          safe);
    }

    @Override
    public <R> void receiveResponse(Context context, R response, Object payload, Throwable failure,
        TagExtractor<R> tags) {
      if (payload == null) return;
      inner.receiveResponse(context, response, payload, failure, new Safe<>(tags));
    }

    /** The sender's trace, made current on the consumer's context while it handles the message; null without one. */
    private Joined joined(Context context, TracingPolicy policy, Iterable<Map.Entry<String, String>> headers) {
      if (policy == TracingPolicy.IGNORE || headers == null) return null;
      io.opentelemetry.context.Context sent = propagator.extract(io.opentelemetry.context.Context.root(), headers, GETTER);
      if (!Span.fromContext(sent).getSpanContext().isValid()) return null;
      return new Joined(VertxContextStorageProvider.VertxContextStorage.INSTANCE.attach((ContextInternal) context, sent));
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  /** A message handled in its sender's trace: the scope to close when the handler is done. */
  private record Joined(Scope scope) {}

  private static final TextMapSetter<BiConsumer<String, String>> HEADERS = (carrier, key, value) -> {
    if (carrier != null) carrier.accept(key, value);
  };

  private static final TextMapGetter<Iterable<Map.Entry<String, String>>> GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Iterable<Map.Entry<String, String>> carrier) {
      java.util.List<String> keys = new java.util.ArrayList<>();
      carrier.forEach(e -> keys.add(e.getKey()));
      return keys;
    }

    @Override
    public String get(Iterable<Map.Entry<String, String>> carrier, String key) {
      if (carrier == null) return null;
      for (Map.Entry<String, String> e : carrier) {
        if (e.getKey().equalsIgnoreCase(key)) return e.getValue();
      }
      return null;
    }
  };

  /** The tags as Vert.x extracts them, each value made safe to export. */
  private record Safe<R>(TagExtractor<R> tags) implements TagExtractor<R> {

    @Override
    public int len(R obj) {
      return tags.len(obj);
    }

    @Override
    public String name(R obj, int index) {
      return tags.name(obj, index);
    }

    @Override
    public String value(R obj, int index) {
      return safe(tags.name(obj, index), tags.value(obj, index));
    }

    /** The unmodified value of the tag named {@code name}, or null. */
    String raw(R obj, String name) {
      int n = tags.len(obj);
      for (int i = 0; i < n; i++) {
        if (name.equals(tags.name(obj, i))) return tags.value(obj, i);
      }
      return null;
    }
  }

  static String safe(String name, String value) {
    if (value == null) return null;
    return switch (name) {
      case "db.query.text", "db.statement" -> SqlShape.of(value);
      case "url.full", "http.url" -> withoutSecrets(value);
      case "url.query" -> "?";
      default -> value;
    };
  }

  /** scheme://host:port/path of a URL: no user information, no query, no fragment. */
  static String withoutSecrets(String url) {
    String s = url;
    int q = s.indexOf('?');
    if (q >= 0) s = s.substring(0, q);
    int h = s.indexOf('#');
    if (h >= 0) s = s.substring(0, h);
    int scheme = s.indexOf("://");
    int at = s.indexOf('@', scheme < 0 ? 0 : scheme + 3);
    int slash = s.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    if (at >= 0 && (slash < 0 || at < slash)) s = s.substring(0, scheme < 0 ? 0 : scheme + 3) + s.substring(at + 1);
    return s;
  }
}
