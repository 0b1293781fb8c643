package dev.sqlagent.db;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.spi.tracing.SpanKind;
import io.vertx.core.spi.tracing.TagExtractor;
import io.vertx.core.spi.tracing.VertxTracer;
import io.vertx.core.tracing.TracingPolicy;
import java.util.function.Supplier;

/**
 * A span for each statement sent, through Vert.x's tracer (none: nothing is done), inside whatever trace is current
 * on the caller's Vert.x context. The client's own query tracing is off on the service's pools: it reports a statement
 * in the trace of the context its connection was opened in, not the caller's (a pooled connection would put one
 * question's statements in another's trace), and it cannot follow the gate's pipelined unnamed statements. So the gate
 * and the state store's writers report their statements here: PostgreSQL, the database, the role, the statement's
 * text, which the service's tracer turns into its shape (literals replaced) before anything is exported.
 */
public final class StatementSpans {

  /** One statement as its span describes it. */
  record Statement(String sql, String database, String user) {}

  private static final String[] NAMES = {"db.system", "db.namespace", "db.user", "db.query.text"};

  private static final TagExtractor<Statement> TAGS = new TagExtractor<>() {
    @Override
    public int len(Statement s) {
      return NAMES.length;
    }

    @Override
    public String name(Statement s, int index) {
      return NAMES[index];
    }

    @Override
    public String value(Statement s, int index) {
      return switch (index) {
        case 0 -> "postgresql";
        case 1 -> s.database();
        case 2 -> s.user();
        default -> s.sql();
      };
    }
  };

  private final Vertx vertx;
  private final VertxTracer<Object, Object> tracer;
  private final String database;
  private final String user;

  @SuppressWarnings("unchecked")
  public StatementSpans(Vertx vertx, String database, String user) {
    this.vertx = vertx;
    VertxTracer<?, ?> t = vertx instanceof VertxInternal vi ? vi.tracer() : null;
    this.tracer = t == null || t == VertxTracer.NOOP ? null : (VertxTracer<Object, Object>) t;
    this.database = database;
    this.user = user;
  }

  /** Whether Vert.x has a tracer. */
  public boolean on() {
    return tracer != null;
  }

  /** {@code send}'s statement, {@code sql}, as a span from now until its reply (only within a trace). */
  public <T> Future<T> traced(String sql, Supplier<Future<T>> send) {
    if (tracer == null) return send.get();
    ContextInternal context = (ContextInternal) vertx.getOrCreateContext();
    Object span = tracer.sendRequest(context, SpanKind.RPC, TracingPolicy.PROPAGATE, new Statement(sql, database, user),
        "Query", (k, v) -> { }, TAGS);
    if (span == null) return send.get();
    Future<T> f;
    try {
      f = send.get();
    } catch (RuntimeException e) {
      tracer.receiveResponse(context, null, span, e, TagExtractor.empty());
      throw e;
    }
    return f.andThen(done -> tracer.receiveResponse(context, null, span, done.failed() ? done.cause() : null,
        TagExtractor.empty()));
  }
}
