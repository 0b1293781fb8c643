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
 * <p>It does so {@link #PASSES} times, each pass once the JIT has gone idle. One pass is not enough: while the JIT's
 * queue is long, and the first pass fills it, HotSpot raises the counts a method needs before its optimising compiler
 * takes it, so the code that runs once per network read or per chunk of rows (the pg client's decoder, the read loop,
 * the writers' text encoding) is still in its profiling tier when the first pass ends, and a user's first exports
 * would pay for its compiling. A pass that starts with the queue empty has it compiled.
 *
 * <p>The routes listen for each pass on a loopback port of their own, for its two requests only: each must carry a
 * secret made for that pass, anything else is 404, and the port closes when they are done. A few seconds of CPU after
 * the service is ready, in the background; the bytes are dropped.
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

  /** Passes of both formats' exports. */
  static final int PASSES = 4;

  private ExportWarmUp() {}

  /**
   * Warms each format's path in turn, {@link #PASSES} times, each pass once the JIT has compiled what came before it
   * (its queue is short then, and the export path's own methods reach the optimising compiler while it runs); the
   * future completes when all are done, with the bytes read and dropped (a failure is logged, never thrown, ends the
   * warm-up and completes it with 0).
   */
  public static Future<Long> run(Vertx vertx, AppConfig config) {
    return run(vertx, config, PASSES, MAX_WAIT_NS);
  }

  /** The same with {@code passes} passes, each waiting at most {@code maxWaitNs} for the JIT to be idle. */
  static Future<Long> run(Vertx vertx, AppConfig config, int passes, long maxWaitNs) {
    long t0 = System.nanoTime();
    return passes(vertx, config, passes, maxWaitNs, 0L)
        .map(bytes -> {
          LOG.info("exports warmed up in {} ms ({} passes of {} rows per format, each once the JIT was idle; {} bytes "
              + "dropped)", (System.nanoTime() - t0) / 1_000_000, passes, ROWS, bytes);
          return bytes;
        })
        .recover(e -> {
          LOG.info("exports not warmed up: {}", e.getMessage());
          return Future.succeededFuture(0L);
        });
  }

  /** {@code left} more passes, each once the JIT is idle: the bytes read in all. */
  private static Future<Long> passes(Vertx vertx, AppConfig config, int left, long maxWaitNs, long bytes) {
    if (left == 0) return Future.succeededFuture(bytes);
    return jitIdle(vertx, System.nanoTime() + maxWaitNs, -1)
        .compose(v -> exports(vertx, config))
        .compose(read -> passes(vertx, config, left - 1, maxWaitNs, bytes + read));
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
