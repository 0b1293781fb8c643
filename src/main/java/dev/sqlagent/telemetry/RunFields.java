package dev.sqlagent.telemetry;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import org.slf4j.MDC;
import org.slf4j.Marker;

/**
 * Gives every log line the fields of the run it belongs to, as MDC keys: {@code run_id}, {@code user}, {@code node}
 * (the graph node running) and {@code trace_id}/{@code span_id} (when tracing is on). A run's work interleaves with
 * others' on the same event-loop thread, so the fields cannot be set once per run: they are read, at each log call, from
 * the OpenTelemetry context current on the Vert.x context (where {@link Tracing} keeps them) and set or cleared on the
 * thread's MDC just before the line is made. Installed in logback.xml; costs one context lookup per enabled log call.
 */
public final class RunFields extends TurboFilter {

  public static final String RUN_ID = "run_id";
  public static final String USER = "user";
  public static final String NODE = "node";
  public static final String TRACE_ID = "trace_id";
  public static final String SPAN_ID = "span_id";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level == null || !level.isGreaterOrEqual(logger.getEffectiveLevel())) return FilterReply.NEUTRAL;
    Context current = Context.current();
    Tracing.RunTag run = current.get(Tracing.RUN);
    put(RUN_ID, run == null ? null : run.runId());
    put(USER, run == null ? null : run.user());
    put(NODE, run == null ? null : run.node());
    SpanContext span = Span.fromContext(current).getSpanContext();
    put(TRACE_ID, span.isValid() ? span.getTraceId() : null);
    put(SPAN_ID, span.isValid() ? span.getSpanId() : null);
    return FilterReply.NEUTRAL;
  }

  private static void put(String key, String value) {
    if (value == null) MDC.remove(key);
    else MDC.put(key, value);
  }
}
