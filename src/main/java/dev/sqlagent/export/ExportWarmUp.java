package dev.sqlagent.export;

import dev.sqlagent.config.AppConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's exports to itself at start, one per format, of rows PostgreSQL makes up ({@code generate_series}: no
 * table is read), through the whole path a user's export takes: the export routes over HTTP, the gate, the read, the
 * file, the response. The JIT compiles that path here rather than during a user's first exports, which would otherwise
 * take two to four times as long (a 100,000-row CSV: about 1 s, then 0.6 s, where psql takes 0.25 s).
 *
 * <p>The routes listen for it on a loopback port of their own, for these two requests only: each must carry a secret
 * made for this start, anything else is 404, and the port closes when they are done. Seconds of CPU after the service
 * is ready, in the background; the bytes are dropped.
 */
public final class ExportWarmUp {

  private static final Logger LOG = LoggerFactory.getLogger(ExportWarmUp.class);
  static final String SECRET_HEADER = "X-Sql-Agent-Warm-Up";

  /** Rows each format exports: enough calls of every per-row step for the JIT's optimising compiler. */
  static final int ROWS = 150_000;

  /**
   * The cells of most results: numbers, text, decimals, dates and times, booleans, nulls. The text takes every branch
   * the CSV writer has, in the first column and in others: plain, empty, to quote (a comma, a quote, a line break, a
   * leading comment sign or space, a trailing space), a formula to neutralise, letters beyond ASCII. The JIT compiles
   * the writer with branches a warm-up never took left out, and a user's first export that takes one throws the
   * compiled code away and compiles it again while the rows wait.
   */
  static final String SQL = "SELECT CASE g % 100 WHEN 0 THEN '#' || g WHEN 1 THEN ' lead ' || g WHEN 2 THEN '' WHEN 3 THEN "
      + "'say \"q\" ' || g WHEN 4 THEN '=' || g WHEN 5 THEN 'x,' || g WHEN 6 THEN 'cr' || chr(13) || g "
      + "ELSE 'item ' || g END AS name, g AS id, round(g * 1.25 - 50, 2) AS amount, g / 7.0::float8 AS ratio, "
      + "DATE '2024-01-01' + g % 3000 AS day, TIMESTAMP '2024-01-01' + g * INTERVAL '1 minute' AS at, "
      + "TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 second' AS seen, g % 2 = 0 AS ok, "
      + "CASE WHEN g % 10 = 0 THEN NULL WHEN g % 100 = 1 THEN '=1+2, \"q\"' WHEN g % 100 = 11 THEN 'two' || chr(10) || "
      + "'lines' WHEN g % 100 = 21 THEN 'trailing ' WHEN g % 100 = 31 THEN '' WHEN g % 100 = 41 THEN 'a,b' "
      + "WHEN g % 100 = 51 THEN 'café ' || g WHEN g % 100 = 61 THEN 'said \"yes\"' ELSE 'note ' || g END AS note, "
      + "g::int8 * 1000000007 AS big FROM generate_series(1, " + ROWS + ") AS g";

  private ExportWarmUp() {}

  /**
   * Warms each format's path in turn, once the JIT has compiled what the start gave it (its queue is short then, and
   * the warm-up's own methods reach the optimising compiler while it runs); the future completes when both are done
   * (a failure is logged, never thrown).
   */
  public static Future<Void> run(Vertx vertx, AppConfig config) {
    return jitIdle(vertx, System.nanoTime() + MAX_WAIT_NS, -1).compose(v -> warmUp(vertx, config));
  }

  /** The longest the warm-up waits for the JIT to be idle before it starts anyway. */
  static final long MAX_WAIT_NS = 60_000_000_000L;
  /** How often the JIT's total compilation time is read, and by how much it may grow in that time and count as idle. */
  static final long IDLE_POLL_MS = 500;
  static final long IDLE_COMPILE_MS = 20;

  /** Completes once the JIT compiled for no more than {@link #IDLE_COMPILE_MS} in {@link #IDLE_POLL_MS}. */
  private static Future<Void> jitIdle(Vertx vertx, long deadline, long before) {
    java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) return Future.succeededFuture();
    long now = jit.getTotalCompilationTime();
    if ((before >= 0 && now - before <= IDLE_COMPILE_MS) || System.nanoTime() > deadline) return Future.succeededFuture();
    io.vertx.core.Promise<Void> idle = io.vertx.core.Promise.promise();
    vertx.setTimer(IDLE_POLL_MS, id -> jitIdle(vertx, deadline, now).onComplete(idle));
    return idle.future();
  }

  private static Future<Void> warmUp(Vertx vertx, AppConfig config) {
    long t0 = System.nanoTime();
    return exports(vertx, config)
        .<Void>map(bytes -> {
          LOG.info("exports warmed up in {} ms ({} rows per format, {} bytes dropped)",
              (System.nanoTime() - t0) / 1_000_000, ROWS, bytes);
          return null;
        })
        .recover(e -> {
          LOG.info("exports not warmed up: {}", e.getMessage());
          return Future.succeededFuture();
        });
  }

  /** Both formats' exports in turn, over the warm-up's own port: the bytes read, or why one failed. */
  static Future<Long> exports(Vertx vertx, AppConfig config) {
    String secret = UUID.randomUUID().toString();
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0));
    HttpClient client = vertx.createHttpClient();
    return server.requestHandler(router(vertx, config, secret)).listen()
        .compose(s -> {
          Future<Long> done = Future.succeededFuture(0L);
          for (ExportFormat format : ExportFormat.values()) {
            done = done.compose(sum -> once(client, s.actualPort(), secret, format).map(bytes -> sum + bytes));
          }
          return done;
        })
        .eventually(() -> client.close().eventually(server::close));
  }

  /** The export routes behind {@code secret}: a request without it is 404. */
  static Router router(Vertx vertx, AppConfig config, String secret) {
    Router router = Router.router(vertx);
    router.route().handler(ctx -> {
      String given = ctx.request().getHeader(SECRET_HEADER);
      if (given != null && java.security.MessageDigest.isEqual(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          given.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
        ctx.next();
      } else {
        ctx.response().setStatusCode(404).end();
      }
    });
    ExportRoutes.mount(router, vertx, config);
    return router;
  }

  /** One export read to its end, its bytes dropped: how many. */
  private static Future<Long> once(HttpClient client, int port, String secret, ExportFormat format) {
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
        .setURI("/api/query/export").putHeader(SECRET_HEADER, secret).putHeader("Content-Type", "application/json");
    String body = new JsonObject().put("sql", SQL).put("format", format.wireName()).encode();
    return client.request(request)
        .compose(req -> req.send(body))
        .compose(resp -> resp.statusCode() == 200 ? drained(resp)
            : resp.body().compose(b -> Future.failedFuture(format.wireName() + ": " + resp.statusCode() + " " + b)));
  }

  private static Future<Long> drained(HttpClientResponse resp) {
    long[] bytes = {0};
    resp.handler(b -> bytes[0] += b.length());
    return resp.end().map(v -> bytes[0]);
  }
}
