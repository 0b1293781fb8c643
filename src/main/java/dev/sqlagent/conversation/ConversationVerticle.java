package dev.sqlagent.conversation;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.StateMessages.Conversation;
import dev.sqlagent.contract.StateMessages.ConversationRequest;
import dev.sqlagent.contract.StateMessages.Feedback;
import dev.sqlagent.contract.StateMessages.FeedbackRequest;
import dev.sqlagent.contract.StateMessages.Opened;
import dev.sqlagent.contract.StateMessages.RecordTurn;
import dev.sqlagent.contract.StateMessages.Recorded;
import dev.sqlagent.contract.StateMessages.RunTurn;
import dev.sqlagent.contract.StateMessages.RunTurnRequest;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Conversations and feedback in the state store (never the target): opens a conversation for a question,
 * records each finished run as its next turn, serves a conversation with its turns, and stores 👍 / 👎 on a
 * run. A conversation expires {@code SQLAGENT_CONVERSATION_DAYS} after its last turn: it is no longer served
 * and is deleted at start and every hour.
 *
 * <p>With a users file, every request carries its {@code user} ({@link User#toJson}) and the same rule as for
 * watching and cancelling runs applies ({@link User#mayReach}): a conversation belongs to the user who started
 * it, and one that belongs to someone else is answered exactly like an unknown id (404), so its id is confirmed
 * to nobody else; a run may be rated (or its turn read, to promote it) only by its owner, else 403. An admin
 * reaches all. Without a users file there is no user and everything is open as before.
 */
public final class ConversationVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationVerticle.class);

  public static final int MAX_COMMENT_CHARS = 2_000;
  private static final long SWEEP_MS = 3_600_000L;

  private final StateDatabase state;
  /** Days a conversation is kept after its last turn (SQLAGENT_CONVERSATION_DAYS). */
  private final int days;
  private ConversationRepository conversations;
  /**
   * Turns being written, by conversation and by run. The agent answers without waiting for its turn's write
   * (only the write's request is sent first), so a request about the conversation or the run that comes after
   * the answer waits for the write here. Touched only on this verticle's context.
   */
  private final Map<String, Future<?>> writingConversations = new HashMap<>();
  private final Map<String, Future<?>> writingRuns = new HashMap<>();

  public ConversationVerticle(StateDatabase state, int days) {
    this.state = state;
    this.days = days;
  }

  @Override
  public Future<?> start() {
    conversations = new ConversationRepository(state.owner(), state.spans());
    vertx.setPeriodic(0, SWEEP_MS, id -> sweep());
    var bus = vertx.eventBus();
    return Future.all(List.of(
        bus.<JsonObject>consumer(Addresses.CONVERSATION_OPEN, this::onOpen).completion(),
        bus.<JsonObject>consumer(Addresses.CONVERSATION_RECORD, this::onRecord).completion(),
        bus.<JsonObject>consumer(Addresses.CONVERSATION_GET, this::onGet).completion(),
        bus.<JsonObject>consumer(Addresses.RUN_FEEDBACK, this::onFeedback).completion(),
        bus.<JsonObject>consumer(Addresses.RUN_TURN, this::onTurn).completion()));
  }

  @Override
  public Future<?> stop() {
    return Future.succeededFuture();  // the state store's pool is borrowed: the service closes it
  }

  /** Deletes the conversations whose last turn is older than the retention (their turns go with them). */
  private void sweep() {
    conversations.expire(days)
        .onSuccess(n -> {
          if (n > 0) LOG.info("{} conversations expired after {} days", n, days);
        })
        .onFailure(e -> LOG.warn("expired conversations not deleted: {}", e.toString()));
  }

  private void onOpen(Message<JsonObject> msg) {
    ConversationRequest request = ConversationRequest.fromJson(msg.body());
    Object given = request.conversationId();
    User caller = request.user();
    if (given == null) {
      msg.reply(new Opened(UUID.randomUUID().toString(), true, new JsonArray()).toJson());
      return;
    }
    String id = validId(msg, given);
    if (id == null) return;
    written(writingConversations, id).compose(v -> turns(id, caller)).onSuccess(turns -> {
      if (turns == null) {
        msg.fail(BusFailure.NOT_FOUND.code(), unknown(id));
        return;
      }
      msg.reply(new Opened(id, false, new JsonArray(turns.stream().map(Turn::toJson).toList())).toJson());
    }).onFailure(e -> unavailable(msg, e));
  }

  /** The conversation's turns, oldest first; null when it does not exist, has expired or is not the caller's. */
  private Future<List<Turn>> turns(String id, User caller) {
    return conversations.started(id, days)
        .compose(found -> found.isEmpty() || !User.mayReach(caller, found.get().userName()) ? Future.succeededFuture(null)
            : conversations.turns(id));
  }

  private void onRecord(Message<JsonObject> msg) {
    RecordTurn request;
    try {
      request = RecordTurn.fromJson(msg.body());
    } catch (IllegalArgumentException e) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "the answer is not an answer: " + e.getMessage());
      return;
    }
    String id = request.conversationId();
    Answer answer = request.answer();
    if (id == null || answer == null || answer.runId() == null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "record needs conversation_id and an answer with its run_id");
      return;
    }
    User caller = request.user();
    Future<Integer> recorded = record(id, answer, caller).recover(e -> e instanceof PgException pg && "23505".equals(pg.getSqlState())
        ? record(id, answer, caller)  // two turns of one conversation at once: the loser takes the next number
        : Future.failedFuture(e));
    writing(writingConversations, id, recorded);
    writing(writingRuns, answer.runId(), recorded);
    recorded
        .onSuccess(turn -> {
          if (turn == null) msg.fail(BusFailure.NOT_FOUND.code(), unknown(id));
          else msg.reply(new Recorded(id, turn).toJson());
        })
        .onFailure(e -> unavailable(msg, e));
  }

  /** A write of {@code key} (a conversation or a run) is under way: later requests about it wait for it. */
  private static void writing(Map<String, Future<?>> writes, String key, Future<?> write) {
    Future<?> before = writes.get(key);
    Future<?> all = before == null ? write : Future.join(before, write);
    writes.put(key, all);
    all.onComplete(done -> writes.remove(key, all));
  }

  /** Done when no write of {@code key} is under way any more (whether the writes succeeded or not). */
  private static Future<Void> written(Map<String, Future<?>> writes, String key) {
    Future<?> w = writes.get(key);
    return w == null ? Future.succeededFuture() : w.<Void>mapEmpty().otherwiseEmpty();
  }

  /**
   * Adds the turn, the conversation started by the caller if it is new; null (nothing written) when it is
   * someone else's, which only a question that went ahead without the store's earlier answer can attempt.
   */
  private Future<Integer> record(String id, Answer answer, User caller) {
    String asker = caller == null ? answer.user() : caller.name();
    return conversations.record(id, answer, asker, caller);
  }

  private void onGet(Message<JsonObject> msg) {
    ConversationRequest request = ConversationRequest.fromJson(msg.body());
    String id = validId(msg, request.conversationId());
    if (id == null) return;
    User caller = request.user();
    written(writingConversations, id).compose(v -> conversations.conversation(id, days))
        .onSuccess(rows -> {
          if (rows.size() == 0 || !User.mayReach(caller, rows.iterator().next().getString("started_by"))) {
            msg.fail(BusFailure.NOT_FOUND.code(), unknown(id));
            return;
          }
          Row first = rows.iterator().next();
          JsonArray turns = new JsonArray();
          for (Row r : rows) {
            if (r.getString("run_id") != null) {
              turns.add(Turn.fromRow(r).toJson().put("feedback", feedback(r)));
            }
          }
          // Every row carries the conversation's own columns.
          msg.reply(new Conversation(id, first.getString("started_by"), String.valueOf(first.getOffsetDateTime("started_at")),
              String.valueOf(first.getOffsetDateTime("last_turn_at")), String.valueOf(first.getOffsetDateTime("expires_at")),
              turns).toJson());
        })
        .onFailure(e -> unavailable(msg, e));
  }

  private static JsonObject feedback(Row r) {
    return r.getString("rating") == null ? null
        : new JsonObject().put("rating", r.getString("rating")).put("comment", r.getString("comment"));
  }

  private void onFeedback(Message<JsonObject> msg) {
    FeedbackRequest request = FeedbackRequest.fromJson(msg.body());
    String runId = AskRules.runIdOf(msg, request.runId());
    if (runId == null) return;
    Object rating = request.rating();
    if (!"up".equals(rating) && !"down".equals(rating)) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "rating must be \"up\" or \"down\"");
      return;
    }
    Object comment = request.comment();
    if (comment != null && !(comment instanceof String)) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "comment must be a string");
      return;
    }
    if (comment != null && ((String) comment).length() > MAX_COMMENT_CHARS) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "comment is " + ((String) comment).length() + " characters; the limit is " + MAX_COMMENT_CHARS);
      return;
    }
    AskRules.Refusal nul = AskRules.noNul("the comment", (String) comment);
    if (nul != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), nul.message());
      return;
    }
    User caller = request.user();
    String giver = caller == null ? null : caller.name();
    reachableTurn(msg, runId, caller, ConversationRepository.RUN_OWNER,
        "no run " + runId + " (feedback is for runs of the last " + days + " days' conversations)", turn ->
        conversations.feedback(runId, rating, comment, giver)
            .onSuccess(rows -> {
              if (rows.size() == 0) {
                msg.fail(BusFailure.NOT_FOUND.code(), "no run " + runId + " (feedback is for runs of the last " + days + " days' conversations)");
                return;
              }
              msg.reply(new Feedback(runId, (String) rating, (String) comment, giver,
                  String.valueOf(rows.iterator().next().getOffsetDateTime(0))).toJson());
            })
            .onFailure(e -> unavailable(msg, e)));
  }

  private void onTurn(Message<JsonObject> msg) {
    RunTurnRequest request = RunTurnRequest.fromJson(msg.body());
    String runId = AskRules.runIdOf(msg, request.runId());
    if (runId == null) return;
    reachableTurn(msg, runId, request.user(), ConversationRepository.RUN_TURN, "no run " + runId + " in any conversation of the last " + days + " days",
        r -> {
          Turn t = Turn.fromRow(r);
          msg.reply(new RunTurn(t.turn(), t.runId(), t.question(), t.finalSql(), t.outcome(), t.answer(), t.summary(),
              t.verifiedId(), t.askedAt(), r.getString("conversation_id"), r.getString("user_name"), r.getString("rating"),
              t.clarification(), t.editedFrom(), t.chosenReading()).toJson());
        });
  }

  /**
   * The run's turn ({@code query}, a {@link ConversationRepository} read by run id, with its {@code user_name}) handed to {@code then} when
   * the caller may reach the run (its owner, or an admin: {@link User#mayReach}, the rule cancel uses); otherwise
   * the request fails with 404 ({@code missing}) or 403.
   */
  private void reachableTurn(Message<JsonObject> msg, String runId, User caller, String query, String missing,
      java.util.function.Consumer<Row> then) {
    written(writingRuns, runId).compose(v -> conversations.byRun(query, runId))
        .onSuccess((RowSet<Row> rows) -> {
          if (rows.size() == 0) {
            stillRunning(runId, caller).onComplete(running -> {
              if (running.succeeded() && running.result()) {
                msg.fail(BusFailure.CONFLICT.code(), "run " + runId + " is still running: it has no answer yet; try again once it is answered");
              } else {
                msg.fail(BusFailure.NOT_FOUND.code(), missing);
              }
            });
            return;
          }
          Row r = rows.iterator().next();
          if (!User.mayReach(caller, r.getString("user_name"))) {
            msg.fail(BusFailure.FORBIDDEN.code(), "run " + runId + " is another user's");
            return;
          }
          then.accept(r);
        })
        .onFailure(e -> unavailable(msg, e));
  }

  /**
   * Whether the agent is still answering this run, which the caller may see: a run is written here once answered, so
   * until then the store cannot tell it from an unknown one, and the agent can.
   */
  private Future<Boolean> stillRunning(String runId, User caller) {
    return new AgentClient(vertx, RUNNING_CHECK_MS).runs(caller)
        .map(list -> list.runs().stream().anyMatch(r -> runId.equals(r.runId()) && "running".equals(r.state())));
  }

  /** How long a miss waits for the agent's list of runs before it is answered as unknown. */
  private static final long RUNNING_CHECK_MS = 5_000;

  private String unknown(String id) {
    return "no conversation " + id + " (it never started, or expired " + days + " days after its last turn)";
  }

  private static String validId(Message<?> msg, Object id) {
    return AskRules.accepted(msg, id, AskRules.conversationId(id));
  }

  private static void unavailable(Message<?> msg, Throwable e) {
    LOG.warn("conversation store failed: {}", e.toString());
    msg.fail(BusFailure.UNAVAILABLE.code(), "the state store did not answer; try again shortly");
  }
}
