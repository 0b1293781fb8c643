package dev.sqlagent.agent;

import dev.sqlagent.contract.FirstSqlMutator;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.telemetry.Tracing;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import java.util.EnumMap;
import java.util.Map;

/**
 * The driver of one question through the graph ({@link Node}): runs one node at a time ({@link Step}), each from the
 * state the last one left ({@link RunState}), and publishes each node's started event before it runs and the event it
 * ends with after. It holds the attempt cap and the run's end: a cancel, the deadline or a failure outside the agent's
 * control (the model down, retrieval failing) ends in an honest give-up or a cancelled answer, never an exception.
 */
final class AgentRun {

  /** At most this many attempts per question; then an honest give-up. */
  static final int MAX_ATTEMPTS = 3;

  private final Vertx vertx;
  private final AgentSettings settings;
  private final RunEvents events;
  private final String runId;
  private final String question;
  private final boolean agentMode;
  private final String source;
  private final boolean lookupVerified;
  private final FirstSqlMutator mutator;
  private final String faultKey;
  private final User user;
  private final RunControl control;
  private final long startedAt = System.currentTimeMillis();
  private final int candidates;
  private String conversationId;
  private String conversationText;
  /** The question's span and the run's log fields (see {@link Tracing}); every node's span is its child. */
  private Context traced = Context.root();
  /** SQL a person chose, run instead of the model's; null for a question. */
  private RunContext.Chosen chosen;
  /** The last state the run reached: where a cancel, the deadline or a failure finds it. */
  private RunState current;

  /** @param mutator evaluation's fault injection, applied when the options name a fault key; else null */
  AgentRun(Vertx vertx, AgentSettings settings, RunEvents events, String runId, String question, String mode,
      String source, RunOptions options, FirstSqlMutator mutator, User user) {
    this.vertx = vertx;
    this.settings = settings;
    this.events = events;
    this.runId = runId;
    this.question = question;
    this.agentMode = !"baseline".equals(mode);
    this.source = source;
    this.lookupVerified = options.lookupVerified();
    this.candidates = options.candidates() == null ? settings.candidates() : options.candidates();
    this.mutator = options.injectFault() ? mutator : null;
    this.faultKey = options.faultKey();
    this.user = user;
    this.control = new RunControl(vertx, runId);
  }

  /** The question belongs to a conversation whose earlier turns are {@code earlierTurns} (prompt text). */
  AgentRun inConversation(String id, String earlierTurns) {
    this.conversationId = id;
    this.conversationText = earlierTurns;
    return this;
  }

  /** The run's trace context: its question's span (when tracing is on) and its log fields. */
  AgentRun tracedIn(Context context) {
    this.traced = context;
    return this;
  }

  /** The run checks and runs {@code sql}, chosen by a person, instead of asking the model. */
  AgentRun chosen(RunContext.Chosen sql) {
    this.chosen = sql;
    return this;
  }

  /** Stops this run (see {@link RunControl}); false when it was already stopped. */
  boolean cancel(String by) {
    return control.cancel(by);
  }

  Future<Answer> run() {
    long deadline = startedAt + settings.questionTimeoutMs();
    RunServices services = new RunServices(vertx, settings, control, runId, user, deadline);
    RunContext run = new RunContext(vertx, settings, events, control, services, runId, question, user, source, agentMode,
        lookupVerified, candidates, mutator, faultKey, conversationId, conversationText, startedAt,
        Tracing.traceId(traced), chosen);
    Map<Node, Step> steps = steps(run);
    long deadlineTimer = vertx.setTimer(settings.questionTimeoutMs(), t -> control.deadline());
    // The tables are retrieved while the verified queries are looked up, not after: select_schema's events still
    // come after lookup_verified's, and a question a verified query answers leaves the retrieval unused.
    RunState first = chosen != null
        ? RunState.start(Node.VALIDATE_SQL, settings.model()).with(c -> {
          c.sql = chosen.sql();
          c.attempt = 1;
        })
        : RunState.start(lookupVerified ? Node.LOOKUP_VERIFIED : Node.SELECT_SCHEMA, settings.model())
            .with(c -> c.retrievalAsked = lookupVerified ? services.retrieve(question, false) : null);
    return walk(steps, first)
        .recover(err -> ended(run, steps, err))
        .onComplete(done -> vertx.cancelTimer(deadlineTimer));
  }

  private Map<Node, Step> steps(RunContext run) {
    Map<Node, Step> steps = new EnumMap<>(Node.class);
    steps.put(Node.LOOKUP_VERIFIED, new LookupVerified(run));
    steps.put(Node.SELECT_SCHEMA, new SelectSchema(run));
    steps.put(Node.GENERATE_SQL, candidates > 1 && agentMode ? new GenerateCandidates(run) : new GenerateSql(run));
    steps.put(Node.INJECT_FAULT, new InjectFault(run));
    steps.put(Node.VOTE, new Vote(run));
    steps.put(Node.VALIDATE_SQL, new ValidateSql(run));
    steps.put(Node.EXECUTE_SQL, new ExecuteSql(run));
    steps.put(Node.INSPECT_RESULT, new InspectResult(run));
    steps.put(Node.DECIDE, new Decide(run));
    steps.put(Node.PREPARE_REPAIR, new PrepareRepair(run));
    steps.put(Node.ANSWER, new Respond(run));
    steps.put(Node.GIVE_UP, new GiveUp(run));
    steps.put(Node.CLARIFY, new Clarify(run));
    return steps;
  }

  /** One node, then the next, until a node ends the run with an answer. */
  private Future<Answer> walk(Map<Node, Step> steps, RunState state) {
    current = state;
    if (state.answer != null) return Future.succeededFuture(state.answer);
    RunState s;
    try {
      s = state.next == Node.GENERATE_SQL ? nextAttempt(state) : state;
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    current = s;
    Step step = steps.get(s.next);
    Context node = nodeContext(s.next, s.attempt);
    JsonObject started = step.started(s);
    if (started != null) events.started(s.next, s.attempt, started);
    return Tracing.ending(Span.fromContext(node), Tracing.during(node, () -> step.apply(s)))
        .recover(err -> {
          if (err instanceof Infrastructure infra && infra.eventData != null) events.failed(s.next, s.attempt, infra.eventData);
          return Future.failedFuture(err);
        })
        .compose(after -> {
          publish(s.next, after);
          return walk(steps, after);
        });
  }

  /** A span for one node's work (a child of the question's), with the node in the run's log fields. */
  private Context nodeContext(Node n, int attempt) {
    Tracing tracing = Tracing.of(vertx);
    Context context = traced;
    if (tracing.on()) {
      Span span = tracing.tracer().spanBuilder(n.wireName()).setParent(traced).setSpanKind(SpanKind.INTERNAL)
          .setAttribute("sql_agent.node", n.wireName())
          .setAttribute("sql_agent.attempt", (long) attempt)
          .startSpan();
      context = context.with(span);
    }
    Tracing.RunTag tag = traced.get(Tracing.RUN);
    return tag == null ? context : context.with(Tracing.RUN, tag.at(n.wireName()));
  }

  /** A new attempt starts with generate_sql: never past the cap, never past the question's deadline. */
  private RunState nextAttempt(RunState s) {
    if (s.attempt >= MAX_ATTEMPTS) throw new IllegalStateException("attempt " + (s.attempt + 1) + " past the cap");
    if (System.currentTimeMillis() > startedAt + settings.questionTimeoutMs() || control.deadlinePassed()) {
      throw new Infrastructure("timeout", "the question's deadline of " + settings.questionTimeoutMs() + " ms passed");
    }
    return s.with(c -> c.attempt = s.attempt + 1);
  }

  /** The event {@code node} ended with. */
  private void publish(Node node, RunState after) {
    RunState.Report r = after.report;
    if (r == null) return;
    String kind = r.kind() != null ? r.kind() : node.kind();
    if (r.announced() != null) events.started(node, kind, after.attempt, r.announced());
    if (r.failed()) events.failed(node, after.attempt, r.data());
    else events.finished(node, kind, after.attempt, r.data());
  }

  /** A run that did not end at a node: cancelled, past its deadline, or failed outside the agent's control. */
  private Future<Answer> ended(RunContext run, Map<Node, Step> steps, Throwable err) {
    RunState s = current;
    if (control.cancelled()) {
      String text = "The question was cancelled" + (control.cancelledBy() == null ? "" : " by " + control.cancelledBy())
          + " before it was answered; nothing is left running.";
      Answer answer = run.answerOf(s, text, s.lastSql, false, false, true, null);
      events.finished(Node.CANCELLED, s.attempt, answer.toJson());
      return Future.succeededFuture(answer);
    }
    Outcome last;
    if (err instanceof RunControl.Stopped || control.deadlinePassed()) {
      last = Outcome.failure("timeout", "the question's deadline of " + settings.questionTimeoutMs() + " ms passed",
          null, null, s.lastSql);
    } else if (err instanceof Infrastructure infra) {
      last = Outcome.failure(infra.errorType, infra.getMessage(), null, null, null);
    } else {
      last = Outcome.failure("unknown", "internal error: " + err.getClass().getSimpleName(), null, null, null);
    }
    RunState givingUp = s.with(c -> {
      c.outcome = last;
      c.next = Node.GIVE_UP;
    });
    return steps.get(Node.GIVE_UP).apply(givingUp).map(after -> {
      publish(Node.GIVE_UP, after);
      return after.answer;
    });
  }
}
