package dev.sqlagent.agent;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.contract.GenerationClient;
import dev.sqlagent.contract.GenerationDelta;
import dev.sqlagent.contract.ModelException;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.VerifiedClient;
import dev.sqlagent.contract.VerifiedMessages;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What a run asks of the other services (retrieval, the model, the gate, the verified queries), through their typed
 * clients, each request bounded by the run's deadline and stopped with it ({@link RunControl#guard}).
 */
final class RunServices {

  private final Vertx vertx;
  private final RunControl control;
  private final String runId;
  private final String dbRole;
  private final User user;
  private final long deadline;
  private final RetrievalClient retrieval;
  private final GateClient gate;
  private final VerifiedClient verified;
  private final GenerationClient model;

  RunServices(Vertx vertx, AgentSettings settings, RunControl control, String runId, User user, long deadline) {
    this.vertx = vertx;
    this.control = control;
    this.runId = runId;
    this.dbRole = user == null ? null : user.dbRole();
    this.user = user;
    this.deadline = deadline;
    // Clustered, a run's steps stay on its worker: a node that leaves takes only its own runs with it. The verified
    // queries are the exception: they live on the one node that holds the singleton duties.
    long step = Math.max(1, settings.stepTimeoutMs());
    this.retrieval = new RetrievalClient(vertx, step, settings.onOneNode());
    this.gate = new GateClient(vertx, step, settings.onOneNode());
    this.verified = new VerifiedClient(vertx, step);
    this.model = new GenerationClient(vertx, step, settings.onOneNode());  // each call waits what is left of the run
  }

  /**
   * The tables for the question (widened after an unknown table or column), as the asking user's role sees them; for a
   * user with row settings, without stored values or sample rows.
   */
  Future<Retrieval> retrieve(String question, boolean widen) {
    return control.guard(() -> retrieval.retrieve(new Retrieval.Request(question, widen, dbRole,
        !User.settingsOf(user).isEmpty())));
  }

  /** The verified queries closest to the question. */
  Future<VerifiedMessages.Matches> lookupVerified(String question) {
    return verified.lookup(new VerifiedMessages.Lookup(question));
  }

  /** The gate refused a verified query: the schema moved under it. */
  void retireVerified(long verifiedId, String reason) {
    verified.retire(new VerifiedMessages.Retire(verifiedId, reason));
  }

  /**
   * A model completion of {@code messages}, waiting at most {@code waitMs}; a failure is an {@link InfrastructureFailure}
   * with the model's error type, which the asking node fails with.
   */
  Future<Completion> generate(List<ChatRequest.Message> messages, boolean stream, Double temperature, int n, long waitMs) {
    return generate(new ChatRequest(runId, messages, stream, temperature, n), waitMs);
  }

  /** The same, for a reply that must be the SQL reply object (constrained to it where the model server can). */
  Future<Completion> generateSql(List<ChatRequest.Message> messages, boolean stream, Double temperature, int n, long waitMs) {
    return generate(new ChatRequest(runId, messages, stream, temperature, n).asSql(), waitMs);
  }

  private Future<Completion> generate(ChatRequest request, long waitMs) {
    return control.guard(() -> model.complete(request, waitMs))
        .recover(err -> Future.failedFuture(err instanceof RunControl.Stopped ? err : modelFailure(err)));
  }

  /** The model's streamed text of this run, as it comes. */
  MessageConsumer<JsonObject> deltas(Handler<String> text) {
    return vertx.eventBus().localConsumer(Addresses.generationDeltas(runId),
        m -> text.handle(GenerationDelta.fromJson(m.body()).text()));
  }

  /**
   * The whole gate, one request: every stage's verdict, and the rows when all passed. The run's id lets a cancel reach
   * the statement; the user's database role (if any) is the one the statement runs as.
   */
  Future<GateReply> gate(String sql) {
    return ask(GateRequest.run(sql));
  }

  /**
   * The gate's check of {@code sql} (every stage but the execution): passed with its plan's cost, or refused. A check
   * that passed keeps its transaction a moment: the run of the same statement ({@link #gate}) continues there.
   */
  Future<GateReply> check(String sql) {
    return ask(GateRequest.check(sql).holding());
  }

  private Future<GateReply> ask(GateRequest request) {
    return control.guard(() -> gate.execute(request.inRun(runId).by(user)))
        .recover(err -> err instanceof RunControl.Stopped ? Future.failedFuture(err)
            : Future.succeededFuture(GateReply.failed(gateFailed(err).withSql(request.sql()), List.of(), false)));
  }

  /**
   * The gate did not give its reply: every connection in use is {@code busy} (the database's fault, not the query's:
   * never repaired), anything else {@code unknown}.
   */
  static GateError gateFailed(Throwable err) {
    if (err instanceof BusError e && e.failure() == BusFailure.BUSY) {
      return GateError.of(ErrorType.BUSY, "the database's connections were all in use, so the query could not be run",
          "Nothing is wrong with the query: ask again in a few seconds.", null);
    }
    return GateError.of(ErrorType.UNKNOWN, "the gate did not answer: " + describe(err), null, null);
  }

  /** What is left of the run's time. */
  long remaining() {
    return Math.max(1, deadline - System.currentTimeMillis());
  }

  private InfrastructureFailure modelFailure(Throwable err) {
    ModelException e = ModelException.of(err);
    // Waited for as long as the run had left: the question's deadline, not the model's own, ran out.
    if (e.type() == ModelException.Type.MODEL_TIMEOUT && remaining() <= 50) {
      return InfrastructureFailure.model(e.errorType(), "the model did not answer before the question's deadline");
    }
    return InfrastructureFailure.model(e.errorType(), e.getMessage());
  }

  static String describe(Throwable err) {
    return err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
  }
}
