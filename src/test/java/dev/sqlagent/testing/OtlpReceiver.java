package dev.sqlagent.testing;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * An OpenTelemetry collector for tests: a real OTLP/HTTP receiver ({@code POST /v1/traces}, protobuf) on a free
 * port, decoding every exported span with the opentelemetry-proto classes and keeping it for assertions.
 */
public final class OtlpReceiver implements AutoCloseable {

  /** One received span: ids in hex, attribute values as text (arrays joined by commas), its resource's attributes. */
  public record Received(String traceId, String spanId, String parentSpanId, String name, String kind,
      Map<String, String> attributes, Map<String, String> resource, String scope) {
    public String attr(String key) {
      return attributes.get(key);
    }

    public boolean isRoot() {
      return parentSpanId.isEmpty();
    }

    /** Every attribute and the name, as one text: what a check for leaked values reads. */
    public String allText() {
      return name + " " + attributes + " " + resource;
    }
  }

  private final HttpServer server;
  private final List<Received> spans = new CopyOnWriteArrayList<>();
  private final List<String> contentTypes = new CopyOnWriteArrayList<>();

  private OtlpReceiver(HttpServer server) {
    this.server = server;
  }

  /** Starts it (blocking). */
  public static OtlpReceiver start(Vertx vertx) throws Exception {
    OtlpReceiver[] self = new OtlpReceiver[1];
    HttpServer server = vertx.createHttpServer().requestHandler(req -> {
      if (!req.path().equals("/v1/traces")) {
        req.response().setStatusCode(404).end();
        return;
      }
      req.body().onSuccess(body -> {
        self[0].contentTypes.add(String.valueOf(req.getHeader("content-type")));
        try {
          self[0].accept(ExportTraceServiceRequest.parseFrom(body.getBytes()));
          req.response().putHeader("content-type", "application/x-protobuf")
              .end(Buffer.buffer(ExportTraceServiceResponse.getDefaultInstance().toByteArray()));
        } catch (Exception e) {
          req.response().setStatusCode(400).end(String.valueOf(e));
        }
      });
    });
    self[0] = new OtlpReceiver(server);
    server.listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
    return self[0];
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  private void accept(ExportTraceServiceRequest request) {
    for (ResourceSpans rs : request.getResourceSpansList()) {
      Map<String, String> resource = attributes(rs.getResource());
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
          spans.add(new Received(hex(s.getTraceId()), hex(s.getSpanId()), hex(s.getParentSpanId()), s.getName(),
              s.getKind().name(), attributes(s.getAttributesList()), resource, ss.getScope().getName()));
        }
      }
    }
  }

  public List<Received> spans() {
    return List.copyOf(spans);
  }

  /** The content types the exporter sent. */
  public List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  public List<Received> trace(String traceId) {
    return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
  }

  /** Waits (polling, generously) until the trace has a span that matches. */
  public List<Received> awaitTrace(String traceId, Predicate<List<Received>> complete, long seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      List<Received> t = trace(traceId);
      if (complete.test(t)) return t;
      Thread.sleep(100);
    }
    throw new AssertionError("trace " + traceId + " incomplete after " + seconds + " s: "
        + trace(traceId).stream().map(s -> s.name() + "(" + s.spanId() + "<-" + s.parentSpanId() + ")")
            .collect(Collectors.joining(", ")));
  }

  private static Map<String, String> attributes(Resource r) {
    return attributes(r.getAttributesList());
  }

  private static Map<String, String> attributes(List<KeyValue> kvs) {
    Map<String, String> out = new LinkedHashMap<>();
    for (KeyValue kv : kvs) out.put(kv.getKey(), text(kv.getValue()));
    return out;
  }

  private static String text(AnyValue v) {
    return switch (v.getValueCase()) {
      case STRING_VALUE -> v.getStringValue();
      case INT_VALUE -> String.valueOf(v.getIntValue());
      case DOUBLE_VALUE -> String.valueOf(v.getDoubleValue());
      case BOOL_VALUE -> String.valueOf(v.getBoolValue());
      case ARRAY_VALUE -> v.getArrayValue().getValuesList().stream().map(OtlpReceiver::text).collect(Collectors.joining(","));
      default -> v.toString();
    };
  }

  private static String hex(ByteString b) {
    return HexFormat.of().formatHex(b.toByteArray());
  }

  @Override
  public void close() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }
}
