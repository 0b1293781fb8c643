package dev.sqlagent.agent;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.generation.ChatRequest;
import dev.sqlagent.users.User;
import dev.sqlagent.conversation.ConversationContext;
import dev.sqlagent.conversation.ConversationVerticle;
import dev.sqlagent.conversation.Conversations;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graph's owner: takes questions on {@link Addresses#ASK}, runs each through {@link AgentRun}, replies
 * with the answer JSON and publishes it on {@link Addresses#ANSWERS}. Keeps the events of recent runs so a
 * client that joined late or missed some can fetch them ({@link Addresses#RUN_EVENTS}).
 */
public final class AgentVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(AgentVerticle.class);

  /** Longest question accepted; longer is refused with a clear message rather than sent to the model. */
  public static final int MAX_QUESTION_CHARS = 2_000;
  private static final int KEPT_RUNS = 500;
  public static final int DEFAULT_CONVERSATION_BUDGET = 1_500;
  private static final Set<String> SOURCES = Set.of("http", "ws", "eventbus", "cli", "mcp", "eval");

  private final FirstSqlMutator mutator;
  private AgentSettings settings;
  /** Most tokens of a conversation's earlier turns in a follow-up's prompt (SQLAGENT_CONVERSATION_BUDGET). */
  private int conversationBudget;
  private String clusterNode;

  /** Failure code of a question refused because the service is full (the edges answer 503 + Retry-After). */
  public static final int BUSY = 503;
  /** Failure codes of a run that is another user's, and of a cancel that came after the run ended. */
  public static final int FORBIDDEN = 403;
  public static final int CONFLICT = 409;
  /** Questions running now, and those waiting for a slot; touched only on this verticle's context. */
  private int running;
  private int maxRunning;
  private int maxWaiting;
  private long maxWaitMs;
  private final java.util.ArrayDeque<Waiting> waiting = new java.util.ArrayDeque<>();

  /** A question waiting for a slot, refused when it has waited too long. */
  private record Waiting(Message<JsonObject> msg, long timer) {}

  /** Runs' events and owners, oldest dropped first (never one still running); touched only on this verticle's context. */
  private final Map<String, KeptRun> runs = new LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, KeptRun> eldest) {
      return size() > KEPT_RUNS && eldest.getValue().active == null;
    }
  };

  /** A recent run: its events, who asked, and the run itself while it is running. */
  private static final class KeptRun {
    final JsonArray events = new JsonArray();
    final String owner;
    final String question;
    final long startedAt = System.currentTimeMillis();
    AgentRun active;
    String state = "running";

    KeptRun(String owner, String question) {
      this.owner = owner;
      this.question = question;
    }
  }

  public AgentVerticle() {
    this(null);
  }

  /** With a fault injector: evaluation only. */
  public AgentVerticle(FirstSqlMutator mutator) {
    this.mutator = mutator;
  }

  @Override
  public Future<?> start() {
    settings = AgentSettings.from(config());
    conversationBudget = config().getInteger("conversationBudgetTokens", DEFAULT_CONVERSATION_BUDGET);
    maxRunning = config().getInteger("askInFlight", 64);
    maxWaiting = config().getInteger("askQueue", 128);
    // A question that waited longer than this would age past its deadline: it is better told to come back.
    // The edges wait the question timeout + 15 s, so the wait stays under that margin.
    maxWaitMs = Math.max(1_000, Math.min(10_000, config().getLong("questionTimeoutMs", 180_000L) / 4));
    // Clustered, this worker takes questions on its own address (the edges choose the worker) and the runs'
    // events are kept in the state store, where any edge replays them (dev.sqlagent.cluster).
    clusterNode = config().getString("clusterNode");
    if (clusterNode != null) return vertx.eventBus().consumer(Addresses.askOn(clusterNode), this::ask).completion();
    return Future.all(
        vertx.eventBus().consumer(Addresses.ASK, this::ask).completion(),
        vertx.eventBus().consumer(Addresses.RUN_EVENTS, this::runEvents).completion(),
        vertx.eventBus().consumer(Addresses.CANCEL, this::cancel).completion(),
        vertx.eventBus().consumer(Addresses.RUNS, this::listRuns).completion());
  }

  /** Clustered: the run's events are in the state store before its answer goes out. */
  private Future<?> eventsKept(String runId) {
    if (clusterNode == null) return Future.succeededFuture();
    return vertx.eventBus().request(Addresses.JOURNAL_FLUSH, new JsonObject().put("run_id", runId),
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(5_000)).otherwiseEmpty();
  }

  private void ask(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    String problem = invalid(body);
    if (problem != null) {
      msg.fail(400, problem);
      return;
    }
    if ("eval".equals(body.getString("source"))) {
      start(msg);  // evaluation paces itself
      return;
    }
    if (running < maxRunning) {
      running++;
      start(msg);
      return;
    }
    if (waiting.size() >= maxWaiting) {
      msg.fail(BUSY, "the service is answering " + running + " questions and " + waiting.size()
          + " are waiting; try again in a few seconds");
      return;
    }
    long[] timer = new long[1];
    Waiting w = new Waiting(msg, vertx.setTimer(maxWaitMs, t -> giveUpWaiting(timer[0])));
    timer[0] = w.timer();
    waiting.addLast(w);
  }

  private void giveUpWaiting(long timer) {
    waiting.removeIf(w -> {
      if (w.timer() != timer) return false;
      w.msg().fail(BUSY, "the service stayed busy for " + maxWaitMs / 1000 + " s; try again in a few seconds");
      return true;
    });
  }

  /** A run ended: its slot goes to the longest-waiting question. */
  private void finished() {
    Waiting next = waiting.pollFirst();
    if (next == null) {
      running--;
      return;
    }
    vertx.cancelTimer(next.timer());
    start(next.msg());
  }

  private void start(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    boolean counted = !"eval".equals(body.getString("source"));
    String question = body.getString("question").strip();
    String mode = body.getString("mode", "agent");
    String source = body.getString("source", "eventbus");
    String runId = body.getString("run_id", UUID.randomUUID().toString());
    if (runs.containsKey(runId)) {
      // A client-chosen id must not graft a second run onto another run's events.
      msg.fail(400, "run_id " + runId + " is already in use");
      if (counted) finished();
      return;
    }
    User user = User.fromJson(body.getJsonObject("user"));
    KeptRun kept = new KeptRun(user == null ? null : user.name(), question);
    runs.put(runId, kept);
    RunEvents events = new RunEvents(vertx.eventBus(), runId, kept.events, kept.owner);
    boolean inject = body.getBoolean("inject_fault", false);
    String faultKey = body.getString("fault_key", question);
    AgentRun agentRun = new AgentRun(vertx, settings, events, runId, question, mode, source, inject ? mutator : null,
        faultKey, user).candidates(body.getInteger("candidates", settings.candidates()));
    kept.active = agentRun;
    // Evaluation questions stand alone; every other question is a turn of a conversation (a new one by default).
    Future<Conversations.Opened> opened = counted ? Conversations.open(vertx, body.getValue("conversation_id"), user)
        : Future.succeededFuture(Conversations.Opened.NONE);
    opened.onFailure(err -> {
      runs.remove(runId);
      kept.active = null;
      msg.fail(err instanceof ReplyException re && re.failureCode() > 0 ? re.failureCode() : 503,
          err instanceof ReplyException re && re.failureCode() > 0 ? err.getMessage() : "conversations are not available now");
      finished();
    });
    opened.onSuccess(conversation -> run(msg, runId, counted, agentRun, events, conversation, kept, user));
  }

  private void run(Message<JsonObject> msg, String runId, boolean counted, AgentRun agentRun, RunEvents events,
      Conversations.Opened conversation, KeptRun kept, User user) {
    events.inConversation(conversation.conversationId());
    Future<Answer> answered = agentRun.inConversation(conversation.conversationId(),
            ConversationContext.render(conversation.turns(), conversationBudget))
        .run()
        .onComplete(done -> {
          kept.active = null;
          kept.state = done.failed() ? "failed" : done.result().outcome();
        });
    Future<Answer> recorded = answered.compose(answer -> Conversations.record(vertx, conversation.conversationId(), answer, user)
        .map(answer));
    recorded.onComplete(done -> {
      if (counted) finished();  // the slot is held until the turn is written
    });
    // The answer does not wait for its turn to be written: the write is on its way to the conversation store
    // before the answer goes out, and the store holds back any later request about that conversation or run
    // until the write is done (a follow-up question, a rating). Clustered, the store may be on another node,
    // reached over another connection than a later request: there the answer waits for its turn.
    (clusterNode == null ? answered : recorded)
        .compose(answer -> eventsKept(runId).map(answer))
        .onSuccess(answer -> {
          JsonObject json = answer.toJson();
          msg.reply(json);
          vertx.eventBus().publish(Addresses.ANSWERS, json);
          LOG.info("run {} {} in {} ms after {} attempt(s){}", runId, answer.outcome().replace('_', ' '), answer.latencyMs(),
              answer.attempts(), answer.history().isEmpty() ? "" : ", errors "
              + answer.history().stream().map(Attempt::errorType).toList());
        })
        .onFailure(err -> {
          LOG.error("run {} failed unexpectedly", runId, err);
          msg.fail(500, "the agent failed unexpectedly; run " + runId);
        });
  }

  /** The request's problem in words, or null when it is fine. */
  public static String invalid(JsonObject body) {
    Object q = body.getValue("question");
    if (!(q instanceof String s) || s.isBlank()) return "question must be a non-empty string";
    if (s.length() > MAX_QUESTION_CHARS) {
      return "question is " + s.length() + " characters; the limit is " + MAX_QUESTION_CHARS;
    }
    Object mode = body.getValue("mode");
    if (mode != null && !"agent".equals(mode) && !"baseline".equals(mode)) return "mode must be \"agent\" or \"baseline\"";
    Object source = body.getValue("source");
    if (source != null && !SOURCES.contains(source)) return "source must be one of " + SOURCES;
    if (body.getValue("inject_fault") != null && !(body.getValue("inject_fault") instanceof Boolean)) {
      return "inject_fault must be true or false";
    }
    if (body.getValue("fault_key") != null && !(body.getValue("fault_key") instanceof String)) return "fault_key must be a string";
    Object candidates = body.getValue("candidates");
    if (candidates != null && !((candidates instanceof Integer || candidates instanceof Long)
        && ((Number) candidates).intValue() >= 1 && ((Number) candidates).intValue() <= ChatRequest.MAX_N)) {
      return "candidates must be a whole number from 1 to " + ChatRequest.MAX_N;
    }
    Object user = body.getValue("user");
    if (user != null && !(user instanceof JsonObject u && u.getValue("name") instanceof String)) {
      return "user must be an object with a name";
    }
    Object runId = body.getValue("run_id");
    if (runId != null && !(runId instanceof String r && r.matches("[A-Za-z0-9-]{8,64}"))) {
      return "run_id must be 8 to 64 letters, digits or dashes";
    }
    Object conversation = body.getValue("conversation_id");
    if (conversation != null && !(conversation instanceof String c && ConversationVerticle.ID.matcher(c).matches())) {
      return "conversation_id must be 8 to 64 letters, digits or dashes (the id an earlier answer returned)";
    }
    return null;
  }

  /** The run a request names, when the caller may reach it; otherwise the request is failed (404 or 403) and null. */
  private KeptRun reachable(Message<JsonObject> msg, JsonObject body) {
    String runId = String.valueOf(body.getValue("run_id", ""));
    KeptRun kept = runs.get(runId);
    if (kept == null) {
      msg.fail(404, "no run " + runId + " (only the last " + KEPT_RUNS + " runs are kept)");
      return null;
    }
    if (!User.mayReach(User.fromJson(body.getJsonObject("user")), kept.owner)) {
      msg.fail(FORBIDDEN, "run " + runId + " is another user's");
      return null;
    }
    return kept;
  }

  /** Request {run_id, user?, by?}: stops the run if the caller may (its owner or an admin). */
  private void cancel(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    KeptRun kept = reachable(msg, body);
    if (kept == null) return;
    String runId = body.getString("run_id");
    if (kept.active == null) {
      msg.fail(CONFLICT, "run " + runId + " is no longer running (it " + kept.state.replace('_', ' ') + ")");
      return;
    }
    boolean first = kept.active.cancel(body.getString("by"));
    if (first) LOG.info("run {} cancelled by {}", runId, body.getString("by", "a client"));
    msg.reply(new JsonObject().put("run_id", runId).put("cancelled", true));
  }

  /** Request {user?}: the recent runs the caller may see, newest first. */
  private void listRuns(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    User caller = User.fromJson(body.getJsonObject("user"));
    java.util.List<JsonObject> mine = new java.util.ArrayList<>();
    runs.forEach((id, r) -> {
      if (User.mayReach(caller, r.owner)) {
        mine.add(new JsonObject().put("run_id", id).put("user", r.owner).put("question", r.question)
            .put("state", r.state).put("started_at", java.time.Instant.ofEpochMilli(r.startedAt).toString()));
      }
    });
    java.util.Collections.reverse(mine);
    msg.reply(new JsonObject().put("runs", new JsonArray(mine)));
  }

  private void runEvents(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    KeptRun kept = reachable(msg, body);
    if (kept == null) return;
    JsonArray events = kept.events;
    if (!(body.getValue("after_seq", 0L) instanceof Number)) {
      msg.fail(400, "after_seq must be a whole number");
      return;
    }
    long after = body.getLong("after_seq", 0L);
    JsonArray out = new JsonArray();
    for (Object e : events) {
      if (((JsonObject) e).getLong("seq") > after) out.add(e);
    }
    msg.reply(new JsonObject().put("run_id", body.getString("run_id")).put("events", out));
  }
}
