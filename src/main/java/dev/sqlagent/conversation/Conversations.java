package dev.sqlagent.conversation;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.ConversationRequest;
import dev.sqlagent.contract.StateMessages.RecordTurn;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of conversations: which conversation a question belongs to (with its earlier turns) before
 * the run, and the run recorded as its next turn after. Without the conversation store (a deployment without
 * it) a question simply has no conversation; a store that fails while recording costs the turn, not the answer.
 */
public final class Conversations {

  private static final Logger LOG = LoggerFactory.getLogger(Conversations.class);
  private static final long TIMEOUT_MS = 10_000;
  /** The conversation store, as a client would name it. */
  public static final String STORE = StateClient.CONVERSATIONS;

  /** A question's conversation: its id (null: none) and the turns before this question. */
  public record Opened(String conversationId, List<Turn> turns) {
    public static final Opened NONE = new Opened(null, List.of());
  }

  private Conversations() {}

  /**
   * Fails (400 / 404, with the reason) when the given id cannot be used. A store that is away costs the earlier
   * turns, not the answer: the question goes on in the same (or a new) conversation without them. Another
   * user's conversation is refused like an unknown one (404), unless {@code user} is an admin.
   */
  public static Future<Opened> open(Vertx vertx, Object conversationId, User user) {
    return new StateClient(vertx, TIMEOUT_MS).open(new ConversationRequest(conversationId, user))
        .map(o -> new Opened(o.conversationId(), o.turns().stream().map(t -> Turn.fromJson((JsonObject) t)).toList()))
        .recover(failure -> {
          BusError err = BusError.of(failure, STORE);
          if (err.failure() == BusFailure.UNAVAILABLE && !err.answered()) {  // nothing consumes the address
            return conversationId == null ? Future.succeededFuture(Opened.NONE) : Future.failedFuture(err);
          }
          if (err.answered() && (err.failure() == BusFailure.BAD_REQUEST || err.failure() == BusFailure.NOT_FOUND)) {
            return Future.failedFuture(err);
          }
          LOG.warn("conversation store unavailable, answering without earlier turns: {}", err.getMessage());
          return Future.succeededFuture(new Opened(
              conversationId == null ? UUID.randomUUID().toString() : conversationId.toString(), List.of()));
        });
  }

  /** Records the answer as the conversation's next turn, asked by {@code user}; never fails. */
  public static Future<Void> record(Vertx vertx, String conversationId, Answer answer, User user) {
    if (conversationId == null) return Future.succeededFuture();
    return new StateClient(vertx, TIMEOUT_MS).record(new RecordTurn(conversationId, answer, user))
        .<Void>mapEmpty()
        .recover(err -> {
          LOG.warn("run {} not recorded in conversation {}: {}", answer.runId(), conversationId, err.getMessage());
          return Future.succeededFuture();
        });
  }
}
