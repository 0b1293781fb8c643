package dev.sqlagent.agent;

import dev.sqlagent.contract.FirstSqlMutator;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.explain.SqlExplanation;
import dev.sqlagent.telemetry.Tracing;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import dev.sqlagent.contract.StepData;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import java.util.Map;

/**
 * The driver of one question through the graph ({@link AgentGraph}): runs one node at a time ({@link Step}), each from
 * the state the last one left ({@link RunState}), publishes each node's started event before it runs and the event it
 * ends with after, and asks the graph for the next node. It keeps the attempt cap at each new attempt and holds the
 * run's end: a cancel, the deadline or a failure outside the agent's control (the model down, retrieval failing) ends
 * in an honest give-up or a cancelled answer, never an exception.
 */
final class AgentRun {

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
  /** The run's context and its steps, one per node, once it runs. */
  private RunContext context;
  private Map<Node, Step> steps;

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
    this.context = run;
    this.steps = AgentGraph.steps(run);
    long deadlineTimer = vertx.setTimer(settings.questionTimeoutMs(), t -> control.deadline());
    // The tables are retrieved while the verified queries are looked up, not after: select_schema's events still
    // come after lookup_verified's, and a question a verified query answers leaves the retrieval unused.
    RunState first = chosen != null
        ? RunState.start(settings.model()).with(c -> {
          c.sql = chosen.sql();
          c.attempt = 1;
        })
        : RunState.start(settings.model())
            .with(c -> c.retrievalAsked = lookupVerified ? services.retrieve(question, false) : null);
    return walk(AgentGraph.start(run), first)
        .recover(err -> ended(err))
        .onComplete(done -> vertx.cancelTimer(deadlineTimer));
  }

  /** {@code node}, then the node the graph picks after it, until a node ends the run with an answer. */
  private Future<Answer> walk(Node node, RunState state) {
    current = state;
    RunState s;
    try {
      s = node == Node.GENERATE_SQL ? nextAttempt(state) : state;
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    current = s;
    Step step = steps.get(node);
    Context nodeTrace = nodeContext(node, s.attempt);
    StepData started = step.started(s);
    if (started != null) events.started(node, s.attempt, started);
    return Tracing.ending(Span.fromContext(nodeTrace), Tracing.during(nodeTrace, () -> step.apply(s)))
        .recover(err -> {
          if (err instanceof InfrastructureFailure infra && infra.eventData != null) events.failed(node, s.attempt, infra.eventData);
          return Future.failedFuture(err);
        })
        .compose(after -> {
          current = after;
          publish(node, after);
          if (after.answer != null) return Future.succeededFuture(after.answer);
          return walk(AgentGraph.next(node, context, after).to(), after);
        });
  }

  /**
   * explain_sql, once the answer went out: what the answer's SQL does in words, from its parse on a worker, published as
   * the run's last event (its explanation null when the parser cannot read the SQL). Nothing for an answer without a
   * result to explain ({@link StepData.SqlExplained#follows}).
   */
  void explainAfter(Answer answer) {
    if (!StepData.SqlExplained.follows(answer)) return;
    String sql = answer.sql();
    Context nodeTrace = nodeContext(Node.EXPLAIN_SQL, answer.attempts());
    Future<String> explained = vertx.executeBlocking(() -> SqlExplanation.of(sql), false).otherwise((String) null);
    Tracing.ending(Span.fromContext(nodeTrace), explained)
        .onSuccess(text -> events.finished(Node.EXPLAIN_SQL, answer.attempts(), new StepData.SqlExplained(sql, text)));
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
    if (s.attempt >= AgentGraph.MAX_ATTEMPTS) throw new IllegalStateException("attempt " + (s.attempt + 1) + " past the cap");
    if (System.currentTimeMillis() > startedAt + settings.questionTimeoutMs() || control.deadlinePassed()) {
      throw new InfrastructureFailure("timeout", "the question's deadline of " + settings.questionTimeoutMs() + " ms passed");
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
  private Future<Answer> ended(Throwable err) {
    RunState s = current;
    RunContext run = context;
    if (control.cancelled()) {
      String text = "The question was cancelled" + (control.cancelledBy() == null ? "" : " by " + control.cancelledBy())
          + " before it was answered; nothing is left running.";
      Answer answer = run.answerOf(s, text, s.lastSql, false, false, true, null);
      events.finished(Node.CANCELLED, s.attempt, answer);
      return Future.succeededFuture(answer);
    }
    Outcome last;
    if (err instanceof RunControl.Stopped || control.deadlinePassed()) {
      last = Outcome.failure("timeout", "the question's deadline of " + settings.questionTimeoutMs() + " ms passed",
          null, null, s.lastSql);
    } else if (err instanceof InfrastructureFailure infra) {
      last = Outcome.failure(infra.errorType, infra.getMessage(), null, null, null);
    } else {
      last = Outcome.failure("unknown", "internal error: " + err.getClass().getSimpleName(), null, null, null);
    }
    RunState givingUp = s.with(c -> c.outcome = last);
    return steps.get(Node.GIVE_UP).apply(givingUp).map(after -> {
      publish(Node.GIVE_UP, after);
      return after.answer;
    });
  }
}
