package dev.sqlagent.agent;

import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.FirstSqlMutator;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.Clarification;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.users.User;
import dev.sqlagent.conversation.ConversationContext;
import dev.sqlagent.conversation.Conversations;
import dev.sqlagent.lifecycle.Lifecycle;
import dev.sqlagent.querylog.AnswerKeeper;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.telemetry.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graph's owner: takes questions on {@link Addresses#ASK}, runs each through {@link AgentRun}, replies
 * with the answer JSON and publishes it on {@link Addresses#ANSWERS}. Who may run now is {@link Admission}'s to say,
 * the recent runs (their events, cancel, the list) are the {@link RunRegistry}'s, stopping is the {@link Drain}'s and
 * runs a stopped process cut short are {@link InterruptedRuns}'.
 */
public final class AgentVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(AgentVerticle.class);

  private final FirstSqlMutator mutator;
  private final StateDatabase state;
  /** The ids of runs started, in the state store (see {@link RunClaimsRepository}). */
  private RunClaimsRepository claims;
  private final AgentSettings settings;
  /** Most tokens of a conversation's earlier turns in a follow-up's prompt (SQLAGENT_CONVERSATION_BUDGET). */
  private final int conversationBudget;
  /** Clustered: this worker's node id; null on a single node. */
  private final String clusterNode;
  /** The process its run claims name: the cluster node's id, or this single process's own. */
  private final String node;
  /**
   * The node ids of the processes alive now (this one included), whose unfinished runs are theirs; null: this process
   * does not look for interrupted runs (a command-line tool beside a service).
   */
  private final Supplier<Set<String>> liveNodes;
  private InterruptedRuns interrupted;
  /** Runs answered whose turn and finish are still being written: a stop waits for them (briefly). */
  private final Set<Future<Void>> finishing = new java.util.HashSet<>();
  static final long STOP_WAIT_MS = 5_000;
  /** Clustered: has the query-log writer keep every answer's row; null on a single node (the log reads the answers). */
  private AnswerKeeper keeper;

  private final int maxRunning;
  private final int maxWaiting;
  private final long maxWaitMs;
  private Admission admission;
  private final RunRegistry registry = new RunRegistry();
  private Drain drain;

  /**
   * @param clusterNode clustered: this worker's node id (questions come on its own address); null on a single node
   * @param mutator a fault injector: evaluation only, null otherwise
   * @param liveNodes the node ids of the cluster's live members (a single node: none but this one), whose runs in
   *     flight are not interrupted; null: this process leaves other processes' runs alone
   */
  public AgentVerticle(AppConfig config, StateDatabase state, String clusterNode, FirstSqlMutator mutator,
      Supplier<Set<String>> liveNodes) {
    this.state = state;
    this.mutator = mutator;
    this.clusterNode = clusterNode;
    this.node = clusterNode != null ? clusterNode : UUID.randomUUID().toString();
    this.liveNodes = liveNodes;
    this.settings = AgentSettings.from(config, clusterNode);
    this.conversationBudget = config.conversationBudgetTokens();
    this.maxRunning = config.askInFlight();
    this.maxWaiting = config.askQueue();
    // A question that waited longer than this would age past its deadline: it is better told to come back.
    this.maxWaitMs = config.deadlines().queueWaitMs();
  }

  @Override
  public Future<?> start() {
    claims = new RunClaimsRepository(state.owner(), state.spans());
    admission = new Admission(vertx, maxRunning, maxWaiting, maxWaitMs);
    drain = new Drain(vertx);
    return consumers().onSuccess(v -> {
      if (liveNodes == null) return;
      interrupted = new InterruptedRuns(vertx, claims, node, liveNodes, settings.model(), registry);
      interrupted.start(clusterNode != null);
    });
  }

  private Future<?> consumers() {
    // Clustered, this worker takes questions, cancels and the listing of its runs on its own addresses (the
    // edges choose the worker, and know or ask which one runs a run) and the runs' events are kept in the state
    // store, where any edge replays them (dev.sqlagent.cluster).
    if (clusterNode != null) {
      keeper = new AnswerKeeper(vertx, "the worker");
      return Future.all(
          vertx.eventBus().localConsumer(Addresses.DRAIN_AGENT, this::drain).completion(),
          vertx.eventBus().consumer(Addresses.askOn(clusterNode), this::ask).completion(),
          vertx.eventBus().consumer(Addresses.cancelOn(clusterNode), registry::cancel).completion(),
          vertx.eventBus().consumer(Addresses.runsOn(clusterNode), registry::list).completion(),
          vertx.eventBus().consumer(Addresses.RERUN, this::rerun).completion());
    }
    return Future.all(
        vertx.eventBus().localConsumer(Addresses.DRAIN_AGENT, this::drain).completion(),
        vertx.eventBus().consumer(Addresses.ASK, this::ask).completion(),
        vertx.eventBus().consumer(Addresses.RUN_EVENTS, registry::events).completion(),
        vertx.eventBus().consumer(Addresses.CANCEL, registry::cancel).completion(),
        vertx.eventBus().consumer(Addresses.RUNS, registry::list).completion(),
        vertx.eventBus().consumer(Addresses.RERUN, this::rerun).completion());
  }

  @Override
  public Future<?> stop() {
    if (interrupted != null) interrupted.stop();
    // A run answered just before the stop (the command line stops right after its answer) gets its turn and its claim's
    // finish written before the state store's pools close (the service closes them after every verticle).
    if (finishing.isEmpty()) return Future.succeededFuture();
    return Future.join(List.copyOf(finishing)).timeout(STOP_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS)
        .otherwiseEmpty();
  }

  /** Clustered: the run's events are in the state store before its answer goes out. */
  private Future<?> eventsKept(String runId) {
    if (clusterNode == null) return Future.succeededFuture();
    return vertx.eventBus().request(Addresses.JOURNAL_FLUSH, new OpsMessages.JournalFlush(runId).toJson(),
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(5_000)).otherwiseEmpty();
  }

  private void ask(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    AskRules.Refusal refused = Intake.check(body);
    if (refused != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), refused.message());
      return;
    }
    if (Lifecycle.isStopping(vertx)) {
      // Clustered, the edge that sent it hands it to another worker: nothing ran here.
      msg.fail(BusFailure.STOPPING.code(), Lifecycle.refusal());
      return;
    }
    // The context the question came in: the edge's span, carried over the event bus (see Tracing).
    take(msg, AskRequest.fromJson(body), null, Context.current());
  }

  /**
   * {@code RerunRequest}: a new run of SQL a person chose, the next turn of the first run's conversation. The first
   * run is found in the conversation store, which applies the owner-or-admin rule (404 unknown, 403 another's);
   * a reading is one the first run asked back with. The new run waits for a slot like a question.
   */
  private void rerun(Message<JsonObject> msg) {
    if (Lifecycle.isStopping(vertx)) {
      msg.fail(BusFailure.STOPPING.code(), Lifecycle.refusal());
      return;
    }
    Context parent = Context.current();
    RerunRequest request = RerunRequest.fromJson(msg.body());
    String from = AskRules.runIdOf(msg, request.runId());
    if (from == null) return;
    AskRules.Refusal refused = request.reading() != null ? AskRules.reading(request.reading())
        : AskRules.editedSql(request.sql());
    if (refused == null && request.newRunId() != null) refused = AskRules.runId(request.newRunId());
    if (refused == null && request.source() != null && !AskRequest.SOURCES.contains(request.source())) {
      refused = new AskRules.Refusal("bad_request", "source must be one of " + AskRequest.SOURCES, new JsonObject());
    }
    if (refused != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), refused.message());
      return;
    }
    KeptRun source = registry.get(from);
    if (source != null && source.active != null) {
      // Its answer is not written yet: the store would not know it; say what is true instead.
      if (!User.mayReach(request.user(), source.owner)) {
        msg.fail(BusFailure.FORBIDDEN.code(), "run " + from + " is another user's");
      } else {
        msg.fail(BusFailure.CONFLICT.code(), "run " + from + " is still running; wait for its answer, then "
            + (request.reading() != null ? "choose a reading" : "run its SQL again"));
      }
      return;
    }
    new StateClient(vertx, 10_000).turn(new StateMessages.RunTurnRequest(from, request.user()))
        .onFailure(err -> BusError.of(err, Conversations.STORE).failOn(msg))
        .onSuccess(turn -> {
          String sql;
          Integer reading = null;
          if (request.reading() != null) {
            reading = ((Number) request.reading()).intValue();
            Clarification asked = turn.clarification();
            Clarification.Reading chosen = asked == null ? null : asked.reading(reading);
            if (chosen == null) {
              msg.fail(BusFailure.BAD_REQUEST.code(), asked == null
                  ? "run " + from + " did not ask which reading was meant; there is no reading to choose"
                  : "run " + from + " offered " + asked.readings().size() + " readings; reading must be 1 to "
                      + asked.readings().size());
              return;
            }
            sql = chosen.sql();
          } else {
            sql = (String) request.sql();
          }
          AskRequest ask = new AskRequest(turn.question(), "agent", request.source(), request.newRunId(), request.user(),
              turn.conversationId(), RunOptions.ASKED, request.client());
          take(msg, ask, new RunContext.Chosen(sql.strip(), from, reading), parent);
        });
  }

  /** A checked request: run now, or wait for a slot (refused when the queue is full or the wait too long). */
  private void take(Message<JsonObject> msg, AskRequest request, RunContext.Chosen chosen, Context parent) {
    if (request.options().selfPaced()) {
      start(msg, request, chosen, parent);  // evaluation paces itself
      return;
    }
    admission.admit(msg, () -> start(msg, request, chosen, parent));
  }

  /**
   * Starts the question on a Vert.x context of its own, with its trace context current there for its whole run: its
   * span (a child of {@code parent}, when tracing is on) and its log fields, which its steps, the messages they send and
   * the SQL they run inherit.
   */
  private void start(Message<JsonObject> msg, AskRequest ask, RunContext.Chosen chosen, Context parent) {
    String runId = ask.runId() == null ? UUID.randomUUID().toString() : ask.runId();
    Tracing tracing = Tracing.of(vertx);
    Span span = tracing.on()
        ? tracing.tracer().spanBuilder("question").setParent(parent).setSpanKind(SpanKind.INTERNAL)
            .setAttribute("sql_agent.run_id", runId)
            .setAttribute("sql_agent.source", ask.source() == null ? "eventbus" : ask.source())
            .setAttribute("sql_agent.mode", ask.mode() == null ? "agent" : ask.mode())
            .startSpan()
        : Span.getInvalid();
    if (ask.user() != null) span.setAttribute("enduser.id", ask.user().name());
    if (clusterNode != null) span.setAttribute("sql_agent.worker", clusterNode);
    Context traced = parent.with(span)
        .with(Tracing.RUN, new Tracing.RunTag(runId, ask.user() == null ? null : ask.user().name(), null));
    ContextInternal own = ((ContextInternal) vertx.getOrCreateContext()).duplicate();
    own.dispatch(v -> {
      traced.makeCurrent();  // this context is the run's alone: nothing to restore
      start(msg, ask, chosen, runId, span, traced);
    });
  }

  private void start(Message<JsonObject> msg, AskRequest ask, RunContext.Chosen chosen, String runId, Span span,
      Context traced) {
    RunOptions options = ask.options();
    boolean counted = !options.selfPaced();
    String question = ask.question();
    if (registry.contains(runId)) {
      // A client-chosen id must not graft a second run onto another run's events.
      msg.fail(BusFailure.BAD_REQUEST.code(), "run_id " + runId + " is already in use");
      span.setStatus(StatusCode.ERROR, "run_id already in use").end();
      if (counted) admission.finished();
      return;
    }
    User user = ask.user();
    KeptRun kept = registry.start(runId, user == null ? null : user.name(), question);
    drain.taken(runId, kept);
    RunEvents events = new RunEvents(vertx.eventBus(), runId, kept.events, kept.owner);
    AgentRun agentRun = new AgentRun(vertx, settings, events, runId, question, ask.mode(), ask.source(), options,
        mutator, user).tracedIn(traced).chosen(chosen);
    kept.active = agentRun;
    // Evaluation questions stand alone; every other question is a turn of a conversation (a new one by default).
    // The run id is claimed once the conversation is open (a refused conversation leaves the id free to ask again).
    Future<Conversations.Opened> opened = !options.standalone()
        ? Conversations.open(vertx, ask.conversationId(), user)
            .compose(conversation -> claims.claim(runId, user == null ? null : user.name(), node, question,
                conversation.conversationId(), ask.source(), ask.mode()).map(conversation))
        : Future.succeededFuture(Conversations.Opened.NONE);
    opened.onFailure(err -> {
      registry.forget(runId);
      drain.replied(runId);
      // The conversation store's refusal (an unknown or another user's conversation), or the id's, as it was said.
      BusError.of(err, Conversations.STORE).failOn(msg);
      span.setStatus(StatusCode.ERROR, String.valueOf(err.getMessage())).end();
      if (counted) admission.finished();
    });
    opened.onSuccess(conversation -> run(msg, runId, counted, agentRun, events, conversation, kept, user, span,
        ask.client(), !options.standalone()));
  }

  private void run(Message<JsonObject> msg, String runId, boolean counted, AgentRun agentRun, RunEvents events,
      Conversations.Opened conversation, KeptRun kept, User user, Span span, String client, boolean claimed) {
    events.inConversation(conversation.conversationId());
    Future<Answer> answered = agentRun.inConversation(conversation.conversationId(),
            ConversationContext.render(conversation.turns(), conversationBudget, settings.modelSees().resultRows()))
        .run()
        .map(answer -> client == null ? answer : answer.withClient(client))  // for the query log: who asked from where
        .onComplete(done -> {
          kept.active = null;
          kept.state = done.failed() ? "failed" : done.result().outcome();
        });
    Future<Answer> recorded = answered.compose(answer -> Conversations.record(vertx, conversation.conversationId(), answer, user)
        .map(answer));
    recorded.onComplete(done -> {
      if (counted) admission.finished();  // the slot is held until the turn is written
    });
    // The answer does not wait for its turn to be written: the write is on its way to the conversation store
    // before the answer goes out, and the store holds back any later request about that conversation or run
    // until the write is done (a follow-up question, a rating). Clustered, the store may be on another node,
    // reached over another connection than a later request: there the answer waits for its turn.
    // Once its turn is written (or given up on), the run is no longer one to find interrupted.
    if (claimed) {
      Future<Void> finish = recorded.transform(done -> claims.finish(runId));
      finishing.add(finish);
      finish.onComplete(done -> finishing.remove(finish));
    }
    (clusterNode == null ? answered : recorded)
        .compose(answer -> eventsKept(runId).map(answer))
        .onSuccess(answer -> {
          JsonObject json = answer.toJson();
          // Clustered, the answer's log row is kept from here as well as by the edge that delivers it: the
          // answer of a run whose edge is gone (killed mid-run) has its row all the same.
          if (keeper != null) keeper.keep(json);
          // Logged before the reply leaves, so whoever holds the answer finds its line written.
          LOG.info("run {} {} in {} ms after {} attempt(s){}", runId, answer.outcome().replace('_', ' '), answer.latencyMs(),
              answer.attempts(), answer.history().isEmpty() ? "" : ", errors "
              + answer.history().stream().map(Attempt::errorType).toList());
          msg.reply(json);
          vertx.eventBus().publish(Addresses.ANSWERS, json);
          agentRun.explainAfter(answer);
          drain.replied(runId);
          span.setAttribute("sql_agent.outcome", answer.outcome());
          span.setAttribute("sql_agent.attempts", (long) answer.attempts());
          span.end();
        })
        .onFailure(err -> {
          span.setStatus(StatusCode.ERROR, "the agent failed unexpectedly").end();
          LOG.error("run {} failed unexpectedly", runId, err);
          msg.fail(BusFailure.FAILED.code(), "the agent failed unexpectedly; run " + runId);
          drain.replied(runId);
        });
  }

  /**
   * {@link Addresses#DRAIN_AGENT}: the process is stopping. Questions waiting for a slot are refused at once (they
   * never started: another instance takes them); the runs in flight may finish until the deadline ({@link Drain}).
   */
  private void drain(Message<JsonObject> msg) {
    admission.refuseWaiting(BusFailure.STOPPING.code(), Lifecycle.refusal());
    drain.start(msg, OpsMessages.Drain.fromJson(msg.body()).deadlineMs());
  }
}
