package dev.sqlagent.contract;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.contract.StateMessages.Conversation;
import dev.sqlagent.contract.StateMessages.ConversationRequest;
import dev.sqlagent.contract.StateMessages.Feedback;
import dev.sqlagent.contract.StateMessages.FeedbackRequest;
import dev.sqlagent.contract.StateMessages.Flush;
import dev.sqlagent.contract.StateMessages.Keep;
import dev.sqlagent.contract.StateMessages.Kept;
import dev.sqlagent.contract.StateMessages.LogStatus;
import dev.sqlagent.contract.StateMessages.Opened;
import dev.sqlagent.contract.StateMessages.Rechecked;
import dev.sqlagent.contract.StateMessages.RecordTurn;
import dev.sqlagent.contract.StateMessages.Recorded;
import dev.sqlagent.contract.StateMessages.Removed;
import dev.sqlagent.contract.StateMessages.RunTurn;
import dev.sqlagent.contract.StateMessages.RunTurnRequest;
import dev.sqlagent.contract.StateMessages.VerifiedAdd;
import dev.sqlagent.contract.StateMessages.VerifiedList;
import dev.sqlagent.contract.StateMessages.VerifiedPromote;
import dev.sqlagent.contract.StateMessages.VerifiedRemove;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * The caller's side of the state services: conversations, feedback and turns, the verified library's
 * management, the query log and the latest saved evaluation. Fails only with a {@code BusError} naming the
 * service asked (the conversation store, the verified-query library, the query-log writer, the saved
 * evaluation runs). Not node-local: clustered, these live on the node that holds the singleton duties.
 */
public final class StateClient {

  /** The services, as a client names them. */
  public static final String CONVERSATIONS = "the conversation store";
  public static final String VERIFIED = VerifiedClient.VERIFIED;
  public static final String QUERY_LOG = "the query-log writer";
  public static final String EVALUATIONS = "the saved evaluation runs";

  private final BusClient conversations;
  private final BusClient verified;
  private final BusClient queryLog;
  private final BusClient evaluations;

  /** @param timeoutMs how long to wait for any reply */
  public StateClient(Vertx vertx, long timeoutMs) {
    this.conversations = new BusClient(vertx, CONVERSATIONS, timeoutMs);
    this.verified = new BusClient(vertx, VERIFIED, timeoutMs);
    this.queryLog = new BusClient(vertx, QUERY_LOG, timeoutMs);
    this.evaluations = new BusClient(vertx, EVALUATIONS, timeoutMs);
  }

  // --- conversations ----------------------------------------------------------------------------------

  /** A question's conversation: a new one, or the given one with its turns (404 when unknown, expired or another's). */
  public Future<Opened> open(ConversationRequest request) {
    return conversations.<JsonObject>request(Addresses.CONVERSATION_OPEN, request.toJson()).map(Opened::fromJson);
  }

  /** A finished run as the conversation's next turn. */
  public Future<Recorded> record(RecordTurn request) {
    return conversations.<JsonObject>request(Addresses.CONVERSATION_RECORD, request.toJson()).map(Recorded::fromJson);
  }

  /** A conversation with its turns and their feedback. */
  public Future<Conversation> conversation(ConversationRequest request) {
    return conversations.<JsonObject>request(Addresses.CONVERSATION_GET, request.toJson()).map(Conversation::fromJson);
  }

  /** 👍 or 👎 on a run, by its owner or an admin. */
  public Future<Feedback> feedback(FeedbackRequest request) {
    return conversations.<JsonObject>request(Addresses.RUN_FEEDBACK, request.toJson()).map(Feedback::fromJson);
  }

  /** A run's turn, for its owner or an admin. */
  public Future<RunTurn> turn(RunTurnRequest request) {
    return conversations.<JsonObject>request(Addresses.RUN_TURN, request.toJson()).map(RunTurn::fromJson);
  }

  // --- the verified library's management ----------------------------------------------------------------

  /** Saves a verified query once the gate passes it; replied with the saved entry. */
  public Future<JsonObject> addVerified(VerifiedAdd request) {
    return verified.request(Addresses.VERIFIED_ADD, request.toJson());
  }

  /** A run rated 👍 becomes a verified query; replied with the saved entry. */
  public Future<JsonObject> promote(VerifiedPromote request) {
    return verified.request(Addresses.VERIFIED_PROMOTE, request.toJson());
  }

  public Future<VerifiedList> verifiedList() {
    return verified.<JsonObject>request(Addresses.VERIFIED_LIST, new JsonObject()).map(VerifiedList::fromJson);
  }

  public Future<Removed> removeVerified(VerifiedRemove request) {
    return verified.<JsonObject>request(Addresses.VERIFIED_REMOVE, request.toJson()).map(Removed::fromJson);
  }

  /** Every verified query through the gate again. */
  public Future<Rechecked> recheck() {
    return verified.<JsonObject>request(Addresses.VERIFIED_RECHECK, new JsonObject()).map(Rechecked::fromJson);
  }

  // --- the query log ------------------------------------------------------------------------------------

  public Future<LogStatus> logStatus() {
    return queryLog.<JsonObject>request(Addresses.QUERY_LOG_STATUS, new JsonObject()).map(LogStatus::fromJson);
  }

  /** Writes what is buffered; replied with the status once the buffer is empty or the time is up. */
  public Future<LogStatus> flushLog(Flush request) {
    return queryLog.<JsonObject>request(Addresses.QUERY_LOG_FLUSH, request.toJson()).map(LogStatus::fromJson);
  }

  /** One answer's row, confirmed once committed. */
  public Future<Kept> keep(Keep request) {
    return queryLog.<JsonObject>request(Addresses.QUERY_LOG_KEEP, request.toJson()).map(Kept::fromJson);
  }

  // --- evaluations --------------------------------------------------------------------------------------

  /** The newest saved evaluation run's summary, as the harness wrote it; 404 when none. */
  public Future<JsonObject> latestEvaluation() {
    return evaluations.request(Addresses.EVAL_LATEST, new JsonObject());
  }
}
