package dev.sqlagent.execution;

import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.db.Target;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate on the event bus ({@link Addresses#EXECUTE}). Request {@code {"sql", "run" (default true),
 * "row_cap" (optional)}}; the reply is always the gate's JSON ({@code ok} true or a structured error), and
 * {@code msg.fail(400, ...)} only for a request that is not of that shape.
 */
public final class ExecutionVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutionVerticle.class);
  public static final int BAD_REQUEST = BusFailure.BAD_REQUEST.code();

  private final Target db;
  private final Gate.Settings settings;
  private Gate gate;

  public ExecutionVerticle(Target db, Gate.Settings settings) {
    this.db = db;
    this.settings = settings;
  }

  /** A request of the gate's contract, validated. */
  record ExecuteRequest(String sql, boolean run, Integer rowCap) {
    static ExecuteRequest fromJson(Object body) {
      if (!(body instanceof JsonObject json)) throw new IllegalArgumentException("the request must be a JSON object");
      Object sql = json.getValue("sql");
      if (!(sql instanceof String s)) throw new IllegalArgumentException("\"sql\" must be a string");
      Object run = json.getValue("run", Boolean.TRUE);
      if (!(run instanceof Boolean r)) throw new IllegalArgumentException("\"run\" must be true or false");
      Object cap = json.getValue("row_cap");
      if (cap != null && !(cap instanceof Integer || cap instanceof Long)) {
        throw new IllegalArgumentException("\"row_cap\" must be a whole number");
      }
      Integer rowCap = cap == null ? null : (int) Math.min(Integer.MAX_VALUE, ((Number) cap).longValue());
      if (rowCap != null && rowCap < 1) throw new IllegalArgumentException("\"row_cap\" must be at least 1");
      return new ExecuteRequest(s, r, rowCap);
    }
  }

  @Override
  public Future<?> start() {
    return Gate.start(vertx, db.roOptions(), settings)
        .compose(g -> {
          gate = g;
          // A schema refresh: the gate's tables follow the new discovery before the refresh is answered.
          vertx.eventBus().<JsonObject>consumer(Addresses.GATE_RELOAD, m -> gate.reloadSchema()
              .onSuccess(v -> m.reply(new JsonObject().put("tables", gate.schema().tables().size())))
              .onFailure(e -> m.fail(BusFailure.UNAVAILABLE.code(), "the gate could not re-read the visible tables: " + e.getMessage())));
          return vertx.eventBus().consumer(Addresses.EXECUTE, this::onExecute).completion();
        });
  }

  @Override
  public Future<?> stop() {
    return gate == null ? Future.succeededFuture() : gate.close();
  }

  private void onExecute(Message<Object> msg) {
    ExecuteRequest req;
    try {
      req = ExecuteRequest.fromJson(msg.body());
    } catch (IllegalArgumentException e) {
      msg.fail(BAD_REQUEST, e.getMessage());
      return;
    }
    gate.submit(req.sql(), req.run(), req.rowCap())
        .onSuccess(msg::reply)
        .onFailure(e -> {
          LOG.error("gate failed unexpectedly", e);
          msg.reply(new JsonObject().put("ok", false).put("error_type", ErrorType.UNKNOWN.wireName())
              .put("message", "the gate failed unexpectedly; try again").put("hint", null).put("sqlstate", null)
              .put("position", null).put("repairable", false).put("sql", req.sql()));
        });
  }
}
