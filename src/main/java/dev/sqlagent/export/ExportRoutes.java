package dev.sqlagent.export;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.errors.JsonErrors;
import dev.sqlagent.users.User;
import dev.sqlagent.users.Users;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.network.TrustedProxies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exports over HTTP, streamed as they are read:
 * <ul>
 *   <li>{@code GET /api/runs/:id/export?format=csv|xlsx}: an answer's result. The run's owner or an admin only (the
 *       conversation store's rule for a run: 403 for another user's, 404 for an unknown run); 409 for a run without
 *       an answered SQL.</li>
 *   <li>{@code POST /api/query/export {"sql": ..., "format": "csv"|"xlsx"}}: a query of the SQL console.</li>
 * </ul>
 * Either runs the SQL again through the whole gate, as the asking user's database role, with the export's own cap
 * ({@code SQLAGENT_EXPORT_MAX_ROWS}, {@code SQLAGENT_EXPORT_MAX_BYTES}). 400 for an unknown format; 422 with the
 * gate's error when it refuses the query before the file begins; a failure after that ends the file with a line that
 * says so (the status is sent by then). A user runs at most {@code SQLAGENT_EXPORTS_PER_USER} exports at once (429
 * with Retry-After above); the gate's export connections all in use is 503 {@code busy} with Retry-After. A client that
 * takes no bytes for {@code SQLAGENT_EXPORT_STALL_MS} loses its connection and the export ends.
 */
public final class ExportRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(ExportRoutes.class);
  static final int BODY_LIMIT = 64 * 1024;

  private final Vertx vertx;
  private final GateClient gate;
  private final StateClient state;
  private final ExportStream.Limits limits;
  private final ExportSlots slots;
  private final long stallMs;

  private ExportRoutes(Vertx vertx, AppConfig config) {
    this.vertx = vertx;
    this.gate = new GateClient(vertx, config.deadlines().queryMs());
    this.state = new StateClient(vertx, config.deadlines().queryMs());
    this.limits = new ExportStream.Limits(config.exportMaxRows(), config.exportMaxBytes());
    this.slots = ExportSlots.of(vertx, config.exportsPerUser());
    this.stallMs = config.exportStallMs();
  }

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    ExportRoutes r = new ExportRoutes(vertx, config);
    router.get("/api/runs/:id/export").handler(r::run);
    router.post("/api/query/export").handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT)).handler(r::query);
  }

  private void run(RoutingContext ctx) {
    String given = ctx.queryParams().get("format");
    ExportFormat format = ExportFormat.of(given == null ? "csv" : given).orElse(null);
    if (format == null) {
      JsonErrors.send(ctx, 400, "bad_request", ExportFormat.expected(given));
      return;
    }
    AskRules.Refusal badId = AskRules.runId(ctx.pathParam("id"));
    if (badId != null) {
      JsonErrors.send(ctx, 400, badId.toJson());
      return;
    }
    User user = Users.of(ctx);
    ExportSource.ofRun(state, ctx.pathParam("id"), user)
        .onSuccess(source -> export(ctx, format, source, user))
        .onFailure(err -> {
          if (err instanceof ExportSource.NoAnsweredSql none) JsonErrors.send(ctx, 409, "conflict", none.getMessage());
          else JsonErrors.send(ctx, err, StateClient.CONVERSATIONS);
        });
  }

  private void query(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (body == null || !(body.getValue("sql") instanceof String sql)) {
      JsonErrors.send(ctx, 400, "bad_request", "the body must be a JSON object like {\"sql\": \"SELECT ...\", \"format\": \"csv\"}");
      return;
    }
    Object given = body.getValue("format", "csv");
    ExportFormat format = given instanceof String s ? ExportFormat.of(s).orElse(null) : null;
    if (format == null) {
      JsonErrors.send(ctx, 400, "bad_request", ExportFormat.expected(String.valueOf(given)));
      return;
    }
    export(ctx, format, ExportSource.ofQuery(sql), Users.of(ctx));
  }

  private void export(RoutingContext ctx, ExportFormat format, ExportSource source, User user) {
    HttpServerResponse response = ctx.response();
    Runnable release = slots.take(user, clientOf(ctx));
    if (release == null) {
      response.putHeader("Retry-After", String.valueOf(BusFailure.RETRY_AFTER_SECONDS));
      JsonErrors.send(ctx, 429, "too_many_requests", slots.refusal());
      return;
    }
    // Released once, when the response ends or its connection closes.
    ctx.addEndHandler(ar -> release.run());
    HttpOutput output = new HttpOutput(vertx, ctx.request(), format, source.fileName() + "." + format.wireName(), stallMs);
    ExportStream.run(vertx, gate, format, source.sql(), source.liftCap(), user, limits, output)
        .onSuccess(outcome -> {
          if (!outcome.began()) {
            JsonErrors.send(ctx, 422, outcome.reply().toJson());
          } else if (output.cut) {
            output.closeNow();
          } else if (!response.ended() && !response.closed()) {
            response.end();
          }
        })
        .onFailure(err -> {
          if (!response.headWritten()) JsonErrors.send(ctx, err, GateClient.GATE);
          else if (!response.closed()) response.reset();
        });
  }

  /** The client's address as the access guard found it, else the peer's. */
  private static String clientOf(RoutingContext ctx) {
    String address = TrustedProxies.clientAddress(ctx);
    if (address != null) return address;
    return ctx.request().remoteAddress() == null ? "unknown" : ctx.request().remoteAddress().hostAddress();
  }

  /**
   * The HTTP response as an export's output: written as chunks, the next one taken once the socket drained. A client
   * that lets {@code stallMs} pass without taking the bytes waiting for it loses its connection: the export ends.
   */
  private static final class HttpOutput implements ExportStream.Output {
    private final Vertx vertx;
    private final io.vertx.core.http.HttpServerRequest request;
    private final HttpServerResponse response;
    private final ExportFormat format;
    private final String fileName;
    private final long stallMs;
    private Promise<Void> waiting;

    HttpOutput(Vertx vertx, io.vertx.core.http.HttpServerRequest request, ExportFormat format, String fileName,
               long stallMs) {
      this.vertx = vertx;
      this.request = request;
      this.response = request.response();
      this.format = format;
      this.fileName = fileName;
      this.stallMs = stallMs;
      response.closeHandler(v -> {
        Promise<Void> w = waiting;
        if (w != null) w.tryFail("the client went away");
      });
    }

    /** Whether the client stalled and its connection was closed: the file must not end as if it were whole. */
    private boolean cut;

    /**
     * Closes the connection at once, the bytes it still holds dropped: Vert.x's own close (and reset) of an HTTP/1.1
     * connection first waits for the response to end, which a client that reads nothing never lets happen. The close
     * starts below Vert.x's handler (its context's, not the channel's, which would pass through that handler's
     * waiting close), so the socket closes now.
     */
    private void closeNow() {
      cut = true;
      if (response.closed()) return;
      if (request.connection() instanceof io.vertx.core.net.impl.ConnectionBase base) {
        base.channelHandlerContext().close();
      } else {
        response.reset();
      }
    }

    @Override
    public void begin() {
      response.setStatusCode(200).setChunked(true)
          .putHeader("Content-Type", format.contentType())
          .putHeader("Content-Disposition", "attachment; filename=\"" + fileName + "\"")
          .putHeader("X-Content-Type-Options", "nosniff")
          .putHeader("Cache-Control", "no-store");
    }

    @Override
    public Future<Void> write(Buffer bytes) {
      if (response.closed()) return Future.failedFuture("the client went away");
      if (bytes.length() > 0) response.write(bytes);
      if (!response.writeQueueFull()) return Future.succeededFuture();
      Promise<Void> drained = Promise.promise();
      waiting = drained;
      long stall = vertx.setTimer(stallMs, id -> {
        if (drained.tryFail("the client did not take the file's next bytes within " + stallMs / 1000.0
            + " s (SQLAGENT_EXPORT_STALL_MS)")) {
          LOG.info("export to a client that took no bytes for {} ms: its connection is closed", stallMs);
          closeNow();
        }
      });
      response.drainHandler(v -> {
        vertx.cancelTimer(stall);
        drained.tryComplete();
      });
      return drained.future();
    }
  }
}
