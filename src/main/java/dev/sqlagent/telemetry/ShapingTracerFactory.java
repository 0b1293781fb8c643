package dev.sqlagent.telemetry;

import dev.sqlagent.execution.SqlShape;
import io.opentelemetry.api.OpenTelemetry;
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
 * password could be). Everything else, the event bus's context propagation included, is Vert.x's.
 */
final class ShapingTracerFactory implements VertxTracerFactory {

  private final OpenTelemetryTracingFactory delegate;

  ShapingTracerFactory(OpenTelemetry openTelemetry) {
    this.delegate = new OpenTelemetryTracingFactory(openTelemetry);
  }

  @Override
  @SuppressWarnings("unchecked")
  public VertxTracer<?, ?> tracer(TracingOptions options) {
    return new Shaping((VertxTracer<Object, Object>) delegate.tracer(options));
  }

  @Override
  public TracingOptions newOptions() {
    return delegate.newOptions();
  }

  private record Shaping(VertxTracer<Object, Object> inner) implements VertxTracer<Object, Object> {

    @Override
    public <R> Object receiveRequest(Context context, SpanKind kind, TracingPolicy policy, R request, String operation,
        Iterable<Map.Entry<String, String>> headers, TagExtractor<R> tags) {
      return inner.receiveRequest(context, kind, policy, request, operation, headers, new Safe<>(tags));
    }

    @Override
    public <R> void sendResponse(Context context, R response, Object payload, Throwable failure, TagExtractor<R> tags) {
      inner.sendResponse(context, response, payload, failure, new Safe<>(tags));
    }

    @Override
    public <R> Object sendRequest(Context context, SpanKind kind, TracingPolicy policy, R request, String operation,
        BiConsumer<String, String> headers, TagExtractor<R> tags) {
      Safe<R> safe = new Safe<>(tags);
      String sql = request == null ? null : safe.raw(request, "db.query.text");
      return inner.sendRequest(context, kind, policy, request, sql == null ? operation : SqlShape.operation(sql), headers,
          safe);
    }

    @Override
    public <R> void receiveResponse(Context context, R response, Object payload, Throwable failure,
        TagExtractor<R> tags) {
      inner.receiveResponse(context, response, payload, failure, new Safe<>(tags));
    }

    @Override
    public void close() {
      inner.close();
    }
  }

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
