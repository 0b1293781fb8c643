package dev.sqlagent.contract;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/**
 * The caller's side of the agent: ask, cancel, a run's events, the recent runs. Fails only with a
 * {@code BusError} (the agent's refusal as it said it, or what the bus met).
 */
public final class AgentClient {

  /** The agent, as a client names it. */
  public static final String AGENT = "the agent";

  private final Vertx vertx;
  private final BusClient bus;
  private final String askAddress;
  private final long askTimeoutMs;

  /** @param askTimeoutMs how long an answer may take (the question's deadline and a margin) */
  public AgentClient(Vertx vertx, long askTimeoutMs) {
    this(vertx, askTimeoutMs, Addresses.ASK);
  }

  /** Asking on another address with the same contract (one worker's, {@code Addresses.askOn}). */
  public AgentClient(Vertx vertx, long askTimeoutMs, String askAddress) {
    this.vertx = vertx;
    this.bus = new BusClient(vertx, AGENT, askTimeoutMs);
    this.askAddress = askAddress;
    this.askTimeoutMs = askTimeoutMs;
  }

  /** The Vert.x it asks on (for a caller's other clients on the same bus). */
  public Vertx vertx() {
    return vertx;
  }

  public Future<Answer> ask(AskRequest request) {
    return bus.<JsonObject>request(askAddress, request.toJson(), askTimeoutMs).map(Answer::fromJson);
  }

  /** A new run of an edited answer's SQL, or of a reading chosen; waits as long as a question may. */
  public Future<Answer> rerun(RerunRequest request) {
    return bus.<JsonObject>request(Addresses.RERUN, request.toJson(), askTimeoutMs).map(Answer::fromJson);
  }

  /** Stops a running question; answered from memory, so the bus's default wait. */
  public Future<RunMessages.Cancelled> cancel(RunRequest request) {
    return bus.<JsonObject>request(Addresses.CANCEL, request.toJson(), DeliveryOptions.DEFAULT_TIMEOUT)
        .map(RunMessages.Cancelled::fromJson);
  }

  /** A run's events after {@code request.afterSeq()}. */
  public Future<RunMessages.Events> events(RunRequest request) {
    return bus.<JsonObject>request(Addresses.RUN_EVENTS, request.toJson(), DeliveryOptions.DEFAULT_TIMEOUT)
        .map(RunMessages.Events::fromJson);
  }

  /** The recent runs {@code user} may see (null without a users file). */
  public Future<RunMessages.Runs> runs(User user) {
    return bus.<JsonObject>request(Addresses.RUNS, new JsonObject().put("user", user == null ? null : user.toJson()),
        DeliveryOptions.DEFAULT_TIMEOUT).map(RunMessages.Runs::fromJson);
  }
}
