package dev.sqlagent.agent;

import dev.sqlagent.contract.VerifiedMessages;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.StepData;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where a run stands between two nodes: what it learned so far. Immutable: a node returns a new state ({@link #with}),
 * so what one node saw is what it was given; the graph ({@link AgentGraph}) reads the next node from it.
 */
final class RunState {

  /** Model usage of the whole run. */
  record Usage(long promptTokens, long completionTokens, double costUsd, String model) {
    Usage plus(Completion reply) {
      return new Usage(promptTokens + reply.promptTokens(), completionTokens + reply.completionTokens(),
          costUsd + reply.costUsd(), reply.model() != null ? reply.model() : model);
    }
  }

  /**
   * The event a node ends with, published by the driver: finished or failed; {@code kind} null: the node's own;
   * {@code announced}, when the node announced nothing before it ran, its started event's data, published first.
   */
  record Report(boolean failed, StepData data, String kind, StepData announced) {
    static Report finished(StepData data) {
      return new Report(false, data, null, null);
    }

    static Report failed(StepData data) {
      return new Report(true, data, null, null);
    }

    static Report announced(StepData started, StepData finished) {
      return new Report(false, finished, null, started);
    }

    /** The same event under another kind of work than the node's usual one. */
    Report as(String kind) {
      return new Report(failed, data, kind, announced);
    }
  }

  /** The fields, for {@link #with}: set what changed. */
  static final class Change {
    int attempt;
    Retrieval retrieval;
    Future<Retrieval> retrievalAsked;
    boolean widened;
    boolean needsTables;
    boolean probed;
    List<Attempt> history;
    Usage usage;
    String sql;
    String lastSql;
    String refusal;
    Outcome outcome;
    GateCall gateCall;
    List<Candidate> candidates;
    JsonArray lastCandidates;
    StepData.FaultInjected injectedFault;
    List<VerifiedMessages.Match> verifiedMatches;
    VerifiedMessages.Match verifiedDirect;
    VerifiedMessages.Match verifiedUsed;
    boolean modelReadings;
    List<Candidate> split;
    Decision.Next decision;
    Report report;
    Answer answer;

    /** One more failed attempt in the history. */
    void record(Attempt a) {
      history = new ArrayList<>(history);
      history.add(a);
    }
  }

  final int attempt;
  /** The retrieval's reply: the tables, their schema, samples and conventions. */
  final Retrieval retrieval;
  /** A retrieval asked for before select_schema runs (while the verified queries are looked up), or null. */
  final Future<Retrieval> retrievalAsked;
  final boolean widened;
  /**
   * The model is to write SQL from tables the run does not have yet (a verified query failed) or that must be chosen
   * again, wider (an unknown table or column): select_schema runs first.
   */
  final boolean needsTables;
  /** inspect_result's one relaxed re-run has been made. */
  final boolean probed;
  /** Every failed attempt, oldest first. */
  final List<Attempt> history;
  final Usage usage;
  /** The SQL to check and run next. */
  final String sql;
  /** The last SQL tried, for an answer that ends without a result (cancelled, timed out). */
  final String lastSql;
  /** The model's refusal to write SQL, when it refused. */
  final String refusal;
  /** What the last execution (or its refusal) came to. */
  final Outcome outcome;
  /** The gate request in flight between validate_sql and execute_sql. */
  final GateCall gateCall;
  /** The candidates written by the model, before the vote. */
  final List<Candidate> candidates;
  /** The last vote's candidates, for the answer; null with one candidate. */
  final JsonArray lastCandidates;
  final StepData.FaultInjected injectedFault;
  /** The closest verified queries (worked examples). */
  final List<VerifiedMessages.Match> verifiedMatches;
  /** A verified query close enough to answer with, being tried. */
  final VerifiedMessages.Match verifiedDirect;
  /** The verified query that answered. */
  final VerifiedMessages.Match verifiedUsed;
  /** The candidates are the readings the model listed (not n replies): the vote asks back when they differ. */
  final boolean modelReadings;
  /** The last vote's candidates, with their results, when they split with no majority: clarify asks among them. */
  final List<Candidate> split;
  /** What decide made of the last outcome. */
  final Decision.Next decision;
  /** The event the last node ends with; the driver publishes it. */
  final Report report;
  /** The run's answer, once a node ended it. */
  final Answer answer;

  private RunState(Change c) {
    attempt = c.attempt;
    retrieval = c.retrieval;
    retrievalAsked = c.retrievalAsked;
    widened = c.widened;
    needsTables = c.needsTables;
    probed = c.probed;
    history = List.copyOf(c.history);
    usage = c.usage;
    sql = c.sql;
    lastSql = c.lastSql;
    refusal = c.refusal;
    outcome = c.outcome;
    gateCall = c.gateCall;
    candidates = c.candidates == null ? null : List.copyOf(c.candidates);
    lastCandidates = c.lastCandidates;
    injectedFault = c.injectedFault;
    verifiedMatches = c.verifiedMatches;
    verifiedDirect = c.verifiedDirect;
    verifiedUsed = c.verifiedUsed;
    modelReadings = c.modelReadings;
    split = c.split == null ? null : List.copyOf(c.split);
    decision = c.decision;
    report = c.report;
    answer = c.answer;
  }

  /** A run about to take its first step. */
  static RunState start(String model) {
    Change c = new Change();
    c.history = List.of();
    c.usage = new Usage(0, 0, 0.0, model);
    c.verifiedMatches = List.of();
    return new RunState(c);
  }

  /** This state with {@code change} applied; the report is cleared unless the change sets one. */
  RunState with(Consumer<Change> change) {
    Change c = new Change();
    c.attempt = attempt;
    c.retrieval = retrieval;
    c.retrievalAsked = retrievalAsked;
    c.widened = widened;
    c.needsTables = needsTables;
    c.probed = probed;
    c.history = history;
    c.usage = usage;
    c.sql = sql;
    c.lastSql = lastSql;
    c.refusal = refusal;
    c.outcome = outcome;
    c.gateCall = gateCall;
    c.candidates = candidates;
    c.lastCandidates = lastCandidates;
    c.injectedFault = injectedFault;
    c.verifiedMatches = verifiedMatches;
    c.verifiedDirect = verifiedDirect;
    c.verifiedUsed = verifiedUsed;
    c.modelReadings = modelReadings;
    c.split = split;
    c.decision = decision;
    change.accept(c);
    return new RunState(c);
  }

  /** The run ends with {@code answer}, {@code report} its last event. */
  RunState ended(Answer answer, Report report) {
    return with(c -> {
      c.answer = answer;
      c.report = report;
    });
  }

  /** The same state, with {@code report} as the event the node just run ends with (null: none). */
  RunState reported(Report report) {
    return with(c -> c.report = report);
  }
}
