package dev.sqlagent.agent;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.execution.ErrorType;
import dev.sqlagent.execution.GateError;
import dev.sqlagent.execution.GateReply;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What a run asks of the other services (retrieval, the model, the gate, the verified queries), each request bounded
 * by the run's deadline and stopped with it ({@link RunControl#guard}).
 */
final class RunServices {

  private final Vertx vertx;
  private final AgentSettings settings;
  private final RunControl control;
  private final String runId;
  private final User user;
  private final long deadline;
  private int gateCalls;

  RunServices(Vertx vertx, AgentSettings settings, RunControl control, String runId, User user, long deadline) {
    this.vertx = vertx;
    this.settings = settings;
    this.control = control;
    this.runId = runId;
    this.user = user;
    this.deadline = deadline;
  }

  /** The tables for the question (widened after an unknown table or column), as the asking user's role sees them. */
  Future<JsonObject> retrieve(String question, boolean widen) {
    return request(Addresses.RETRIEVE, new JsonObject().put("question", question).put("widen", widen)
        .put("db_role", dbRole()), settings.stepTimeoutMs());
  }

  /** The verified queries closest to the question. Not node-local: clustered, the library lives on one node. */
  Future<JsonObject> lookupVerified(String question) {
    return vertx.eventBus().<JsonObject>request(Addresses.VERIFIED_LOOKUP, new JsonObject().put("question", question),
        new DeliveryOptions().setSendTimeout(Math.max(1, settings.stepTimeoutMs()))).map(m -> m.body());
  }

  /** The gate refused a verified query: the schema moved under it. */
  void retireVerified(long verifiedId, String reason) {
    vertx.eventBus().request(Addresses.VERIFIED_RETIRE, new JsonObject().put("verified_id", verifiedId).put("reason", reason));
  }

  /** A model completion within what is left of the run's time; a failure is an {@link Infrastructure}. */
  Future<JsonObject> generate(JsonObject request, long timeoutMs) {
    return request(Addresses.GENERATE, request.put("run_id", runId), timeoutMs)
        .recover(err -> Future.failedFuture(err instanceof RunControl.Stopped ? err : modelFailure(err)));
  }

  /** The model's streamed text of this run, as it comes. */
  MessageConsumer<JsonObject> deltas(Handler<String> text) {
    return vertx.eventBus().localConsumer(Addresses.generationDeltas(runId), m -> text.handle(m.body().getString("text")));
  }

  /**
   * The whole gate, one request: every stage's verdict, and the rows when all passed. The run's id lets a cancel
   * reach the statement; the user's database role (if any) is the one the statement runs as.
   */
  Future<GateReply> gate(String sql) {
    return gate(sql, null);
  }

  /** The same, the gate reporting when the checks have passed and waiting to be told to run the statement. */
  GateCall gateLive(String sql) {
    String address = Addresses.gateProgress(runId, ++gateCalls);
    GateCall call = new GateCall(vertx.eventBus().localConsumer(address));
    call.sent(gate(sql, address));
    return call;
  }

  private Future<GateReply> gate(String sql, String progress) {
    JsonObject body = new JsonObject().put("sql", sql).put("run", true).put("run_id", runId).put("db_role", dbRole())
        .put("progress", progress);
    return request(Addresses.EXECUTE, body, settings.stepTimeoutMs())
        .map(GateReply::fromJson)
        .recover(err -> err instanceof RunControl.Stopped ? Future.failedFuture(err)
            : Future.succeededFuture(GateReply.failed(GateError.of(ErrorType.UNKNOWN,
                "the gate did not answer: " + describe(err), null, null).withSql(sql), List.of(), false)));
  }

  /** What is left of the run's time. */
  long remaining() {
    return Math.max(1, deadline - System.currentTimeMillis());
  }

  private String dbRole() {
    return user == null ? null : user.dbRole();
  }

  private Future<JsonObject> request(String address, JsonObject body, long timeoutMs) {
    // Clustered, a run's steps stay on its worker: a node that leaves takes only its own runs with it.
    return control.guard(() -> vertx.eventBus()
        .<JsonObject>request(address, body, new DeliveryOptions().setSendTimeout(Math.max(1, timeoutMs))
            .setLocalOnly(settings.onOneNode()))
        .map(m -> m.body()));
  }

  private static Infrastructure modelFailure(Throwable err) {
    if (err instanceof ReplyException re && re.getMessage() != null && re.getMessage().startsWith("{")) {
      try {
        JsonObject j = new JsonObject(re.getMessage());
        return new Infrastructure(j.getString("error_type", "model_error"), j.getString("message", "the model failed"));
      } catch (RuntimeException ignored) {
        // not our JSON: fall through
      }
    }
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.TIMEOUT) {
      return new Infrastructure("model_timeout", "the model did not answer before the question's deadline");
    }
    return new Infrastructure("model_unavailable", describe(err));
  }

  static String describe(Throwable err) {
    return err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
  }
}
