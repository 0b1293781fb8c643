package dev.sqlagent.agent;

import dev.sqlagent.contract.FirstSqlMutator;
import dev.sqlagent.contract.ModelException;
import dev.sqlagent.contract.Attempt;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.display.ColumnFormat;
import dev.sqlagent.display.ResultText;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.generation.ModelReply;
import dev.sqlagent.users.User;
import dev.sqlagent.verified.WorkedExamples;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One question through the graph:
 * {@code select_schema → generate_sql → validate_sql → execute_sql → inspect_result → decide →
 * (answer | prepare_repair → generate_sql | give_up)}. One node at a time, each a request over the event
 * bus, each published as a started and a finished (or failed) event.
 *
 * <p>No path ends in an exception: model outages, timeouts and malformed output end in an honest give-up
 * or refusal, with every query tried and why it failed.
 */
final class AgentRun {

  /**
   * What one execution (or its refusal) came to, as inspect_result and decide see it: the gate's result, or
   * why there is none and whether it was a write the gate refused.
   */
  record Outcome(boolean ok, GateReply.Result result, String errorType, String message, String hint, Integer position,
      String sql, boolean writeRefused) {
    static Outcome failure(String errorType, String message, String hint, Integer position, String sql) {
      return new Outcome(false, null, errorType, message, hint, position, sql, false);
    }

    static Outcome fromGate(GateReply reply) {
      if (reply.ok()) return new Outcome(true, reply.result(), null, null, null, null, reply.sql(), false);
      GateError e = reply.error();
      return new Outcome(false, null, e.type().wireName(), e.message(), e.hint(), e.position(), e.sql(),
          reply.writeRefused());
    }
  }

  /** A failure outside the agent's control (the model down, out of quota, too slow): ends the run. */
  static final class Infrastructure extends RuntimeException {
    final String errorType;

    Infrastructure(String errorType, String message) {
      super(message, null, false, false);
      this.errorType = errorType;
    }
  }

  private final Vertx vertx;
  private final AgentSettings settings;
  private final RunEvents events;
  private final String runId;
  private final String question;
  private final boolean agentMode;
  private final String source;
  private final FirstSqlMutator mutator;
  private final String faultKey;
  private final long startedAt = System.currentTimeMillis();
  private final long deadline;
  private final User user;
  private final RunControl control;
  private String lastSql;

  private JsonObject retrieval;
  private boolean widened;
  private boolean probed;
  private int attempt;
  private final List<Attempt> history = new ArrayList<>();
  private long promptTokens;
  private long completionTokens;
  private double costUsd;
  private String model;
  private JsonObject injectedFault;
  private int candidates;
  private boolean lookupVerified = true;
  /** The last candidate round, for the answer's {@code candidates}; null with one candidate. */
  private JsonArray lastCandidates;
  /** The conversation this question belongs to, and its earlier turns as prompt text. */
  private String conversationId;
  private String conversationText;
  /** The closest verified queries (worked examples), and the one that answered when one did. */
  private JsonArray verifiedMatches = new JsonArray();
  private JsonObject verifiedUsed;

  AgentRun(Vertx vertx, AgentSettings settings, RunEvents events, String runId, String question, String mode,
      String source, FirstSqlMutator mutator, String faultKey, User user) {
    this.vertx = vertx;
    this.settings = settings;
    this.events = events;
    this.runId = runId;
    this.question = question;
    this.agentMode = !"baseline".equals(mode);
    this.source = source;
    this.mutator = mutator;
    this.faultKey = faultKey;
    this.model = settings.model();
    this.deadline = startedAt + settings.questionTimeoutMs();
    this.candidates = settings.candidates();
    this.user = user;
    this.control = new RunControl(vertx, runId);
  }

  /** Whether the verified queries are looked up (true unless the asker says otherwise: evaluation measures the model). */
  AgentRun lookupVerified(boolean lookup) {
    this.lookupVerified = lookup;
    return this;
  }

  /** Overrides the configured number of SQL candidates per attempt (evaluation compares several). */
  AgentRun candidates(int n) {
    this.candidates = n;
    return this;
  }

  /** Stops this run (see {@link RunControl}); false when it was already stopped. */
  boolean cancel(String by) {
    return control.cancel(by);
  }

  /** The question belongs to a conversation whose earlier turns are {@code earlierTurns} (prompt text). */
  AgentRun inConversation(String id, String earlierTurns) {
    this.conversationId = id;
    this.conversationText = earlierTurns;
    return this;
  }

  Future<Answer> run() {
    long deadlineTimer = vertx.setTimer(settings.questionTimeoutMs(), t -> control.deadline());
    // The tables are retrieved while the verified queries are looked up, not after: select_schema's events still
    // come after lookup_verified's, and a question a verified query answers leaves the retrieval unused.
    Future<JsonObject> tables = verifiedLookedUp() ? retrieve() : null;
    return lookupVerified()
        .compose(direct -> direct == null ? Future.succeededFuture((Answer) null) : answerVerified(direct))
        .compose(done -> done != null ? Future.succeededFuture(done) : selectSchema(tables).compose(v -> attemptOnce()))
        .recover(err -> {
          if (control.cancelled()) return cancelled();
          if (err instanceof RunControl.Stopped || control.deadlinePassed()) {
            return giveUp(Outcome.failure("timeout", "the question's deadline of " + settings.questionTimeoutMs()
                + " ms passed", null, null, lastSql));
          }
          if (err instanceof Infrastructure infra) return giveUp(Outcome.failure(infra.errorType, infra.getMessage(), null, null, null));
          return giveUp(Outcome.failure("unknown", "internal error: " + err.getClass().getSimpleName(), null, null, null));
        })
        .onComplete(done -> vertx.cancelTimer(deadlineTimer));
  }

  // --- lookup_verified → (validate_sql → execute_sql → answer, without the model) -----------------

  /**
   * The verified queries closest to the question: the few closest become worked examples; a near-exact one
   * (its score at the threshold, naming the same values) is returned to answer with. Evaluation never uses
   * them (it measures the model). Shown as events only when the library has something to compare.
   */
  private Future<JsonObject> lookupVerified() {
    if (!verifiedLookedUp()) return Future.succeededFuture(null);
    String node = "lookup_verified";
    // Not node-local: clustered, the library lives on the one node that holds the singleton duties.
    return vertx.eventBus().<JsonObject>request(Addresses.VERIFIED_LOOKUP, new JsonObject().put("question", question),
            new DeliveryOptions().setSendTimeout(Math.max(1, settings.stepTimeoutMs())))
        .map(msg -> {
          JsonObject reply = msg.body();
          if (reply.getInteger("candidates", 0) == 0) return (JsonObject) null;
          verifiedMatches = reply.getJsonArray("matches", new JsonArray());
          JsonObject direct = reply.getJsonObject("direct");
          JsonArray scores = new JsonArray();
          for (Object o : verifiedMatches) {
            JsonObject m = (JsonObject) o;
            scores.add(new JsonObject().put("verified_id", m.getLong("verified_id")).put("question", m.getString("question"))
                .put("score", m.getDouble("score")).put("same_values", m.getBoolean("same_values")));
          }
          events.started(node, "retriever", attempt, new JsonObject().put("question", question));
          events.finished(node, "retriever", attempt, new JsonObject().put("threshold", reply.getDouble("threshold"))
              .put("candidates", reply.getInteger("candidates")).put("matches", scores)
              .put("direct", direct == null ? null : direct.getLong("verified_id")));
          return direct;
        })
        .otherwise(err -> (JsonObject) null);  // no library (or it failed): the model answers, as before
  }

  /** Whether this question looks the verified queries up (evaluation never does). */
  private boolean verifiedLookedUp() {
    return lookupVerified;
  }

  /**
   * Answers with a verified query's SQL through the whole gate, worded without the model. Null when the gate
   * refuses it (it is then retired: the schema moved under it) or it fails to run: the model answers instead.
   */
  private Future<Answer> answerVerified(JsonObject match) {
    attempt = 1;
    String sql = match.getString("sql");
    // One request to the gate, as for the model's SQL: each stage's verdict, and the rows when all passed.
    events.started("validate_sql", "guardrail", attempt, new JsonObject().put("sql", sql));
    return gate(sql).map(reply -> {
      Outcome o = reportGate(reply);
      if (!o.ok()) {
        // Refused by a check (not a gate that did not answer, nor an execution that failed): the schema moved under it.
        if (!reply.passedChecks() && reply.failedStage().isPresent()) {
          vertx.eventBus().request(Addresses.VERIFIED_RETIRE, new JsonObject().put("verified_id", match.getLong("verified_id"))
              .put("reason", o.errorType() + ": " + o.message()));
        }
        attempt = 0;
        return (Answer) null;
      }
      verifiedUsed = match;
      GateReply.Result r = o.result();
      events.started("answer", "answer", attempt, new JsonObject());
      Answer answer = answerOf(plainSummary(r), o.sql(), false, false, false, r);
      events.finished("answer", "answer", attempt, answer.toJson());
      return answer;
    });
  }

  // --- select_schema -----------------------------------------------------------------------------

  private Future<Void> selectSchema() {
    return selectSchema(null);
  }

  /** select_schema, with the retrieval already asked for ({@code asked}), or asked for now (null). */
  private Future<Void> selectSchema(Future<JsonObject> asked) {
    String node = "select_schema";
    events.started(node, "retriever", attempt, new JsonObject().put("question", question).put("widen", widened));
    return (asked != null ? asked : retrieve())
        .map(reply -> {
          retrieval = reply;
          events.finished(node, "retriever", attempt, new JsonObject()
              .put("tables", reply.getJsonArray("tables")).put("top_k", reply.getInteger("top_k"))
              .put("value_matches", reply.getJsonArray("value_matches", new JsonArray())));
          return (Void) null;
        })
        .recover(err -> {
          if (err instanceof RunControl.Stopped) return Future.failedFuture(err);
          events.failed(node, "retriever", attempt, new JsonObject().put("message", describe(err)));
          return Future.failedFuture(new Infrastructure("retrieval_failed", "schema retrieval failed: " + describe(err)));
        });
  }

  /** The tables for the question (widened after an unknown table or column), as the asking user's role sees them. */
  private Future<JsonObject> retrieve() {
    return request(Addresses.RETRIEVE, new JsonObject().put("question", question).put("widen", widened)
        .put("db_role", user == null ? null : user.dbRole()), settings.stepTimeoutMs());
  }

  // --- generate_sql → validate_sql → execute_sql → inspect_result → decide ------------------------

  private Future<Answer> attemptOnce() {
    attempt++;
    if (System.currentTimeMillis() > deadline) {
      throw new Infrastructure("timeout", "the question's deadline of " + settings.questionTimeoutMs() + " ms passed");
    }
    if (candidates > 1 && agentMode) return candidateAttempt();
    return generate().compose(generated -> {
      if (generated.invalid() != null) {
        return decide(Outcome.failure(ErrorType.MODEL_OUTPUT_INVALID.wireName(), generated.invalid(), null, null,
            clip(generated.raw(), 2_000)));
      }
      ModelReply reply = generated.reply();
      if (reply.refused()) return refuse(reply.explanation(), null);
      String sql = maybeInjectFault(reply.sql());
      return validateAndExecute(sql)
          .compose(this::inspect)
          .compose(this::decide);
    });
  }

  /**
   * generate_sql with several candidates ({@link CandidateRound}): the vote's winner goes on to inspect_result;
   * when none succeeded, the most informative failure is repaired with every other candidate's error in the
   * history before it.
   */
  private Future<Answer> candidateAttempt() {
    String instruction = history.isEmpty() ? null : repairInstruction(history.get(history.size() - 1).errorType());
    JsonArray messages = PromptBuilder.sqlMessages(question, retrieval, history, instruction);
    CandidateRound.Steps steps = new CandidateRound.Steps() {
      @Override
      public Future<JsonObject> generate(JsonObject request) {
        return AgentRun.this.request(Addresses.GENERATE, request, remaining())
            .recover(err -> Future.failedFuture(modelFailure(err)))
            .map(reply -> {
              account(reply);
              return reply;
            });
      }

      @Override
      public Future<GateReply> gate(String sql) {
        return AgentRun.this.gate(sql);
      }
    };
    return new CandidateRound(events, attempt, steps, this::maybeInjectFault)
        .run(runId, messages, candidates, settings.candidateTemperature(),
            new JsonObject().put("model", model).put("repair", !history.isEmpty()))
        .recover(err -> {
          if (err instanceof Infrastructure infra) {
            events.failed("generate_sql", "generation", attempt, new JsonObject().put("error_type", infra.errorType)
                .put("message", infra.getMessage()));
          }
          return Future.failedFuture(err);
        })
        .compose(round -> {
          lastCandidates = round.toJson();
          if (round.allRefused()) return refuse(round.candidates().get(0).explanation(), null);
          round.others().forEach(o -> record(o, null));
          return inspect(round.chosen()).compose(this::decide);
        });
  }

  /** The model's reply, or why it could not be used (with the raw text, for the history). */
  private record Generated(ModelReply reply, String invalid, String raw) {}

  private Future<Generated> generate() {
    String node = "generate_sql";
    String instruction = history.isEmpty() ? null : repairInstruction(history.get(history.size() - 1).errorType());
    JsonArray messages = PromptBuilder.sqlMessages(question, retrieval, history, instruction,
        WorkedExamples.render(verifiedMatches, retrieval.getJsonArray("terms")), conversationText);
    events.started(node, "generation", attempt, new JsonObject().put("model", model).put("repair", !history.isEmpty()));
    MessageConsumer<JsonObject> deltas = vertx.eventBus().localConsumer(Addresses.generationDeltas(runId),
        m -> events.progress(node, "generation", attempt, new JsonObject().put("delta", m.body().getString("text"))));
    return request(Addresses.GENERATE, new JsonObject().put("run_id", runId).put("messages", messages).put("stream", true),
        remaining())
        .eventually(deltas::unregister)
        .recover(err -> {
          if (err instanceof RunControl.Stopped) return Future.failedFuture(err);
          Infrastructure infra = modelFailure(err);
          events.failed(node, "generation", attempt, new JsonObject().put("error_type", infra.errorType).put("message", infra.getMessage()));
          return Future.failedFuture(infra);
        })
        .map(reply -> {
          account(reply);
          String content = reply.getString("content", "");
          JsonObject data = new JsonObject().put("model", model)
              .put("prompt_tokens", reply.getLong("prompt_tokens", 0L))
              .put("completion_tokens", reply.getLong("completion_tokens", 0L))
              .put("latency_ms", reply.getLong("latency_ms", 0L));
          try {
            ModelReply parsed = ModelReply.parse(content);
            events.finished(node, "generation", attempt, data.put("sql", parsed.sql()).put("explanation", parsed.explanation()));
            return new Generated(parsed, null, content);
          } catch (ModelReply.InvalidModelOutput invalid) {
            events.failed(node, "generation", attempt, data.put("error_type", invalid.errorType()).put("message", invalid.reason()));
            return new Generated(null, invalid.reason(), content);
          }
        });
  }

  private String maybeInjectFault(String sql) {
    if (attempt != 1 || mutator == null) return sql;
    return mutator.mutate(sql, faultKey).map(m -> {
      injectedFault = new JsonObject().put("fault", m.fault()).put("original_sql", sql).put("mutated_sql", m.sql());
      events.finished("inject_fault", "tool", attempt, injectedFault.copy());
      return m.sql();
    }).orElse(sql);
  }

  /**
   * validate_sql and execute_sql from one request to the gate, whose reply holds each stage's verdict: the
   * static check, limit and plan make validate_sql's, the execution execute_sql's. The gate runs the model's
   * SQL, not a checked text, so it knows the cap is its own and its probe row can report {@code truncated}.
   */
  private Future<Outcome> validateAndExecute(String sql) {
    lastSql = sql;
    events.started("validate_sql", "guardrail", attempt, new JsonObject().put("sql", sql));
    return gate(sql).map(this::reportGate);
  }

  /** validate_sql's and execute_sql's events from the gate's one reply, and what it came to. */
  private Outcome reportGate(GateReply reply) {
    Outcome o = Outcome.fromGate(reply);
    if (!reply.passedChecks()) {
      events.failed("validate_sql", "guardrail", attempt, errorData(o));
      return o;
    }
    String boundedSql = reply.boundedSql();
    events.finished("validate_sql", "guardrail", attempt, new JsonObject().put("sql", boundedSql)
        .put("static_check", reply.staticCheckVerdict()));
    events.started("execute_sql", "tool", attempt, new JsonObject().put("sql", boundedSql));
    if (o.ok()) {
      GateReply.Result r = o.result();
      events.finished("execute_sql", "tool", attempt, new JsonObject().put("sql", reply.sql())
          .put("row_count", r.rowCount()).put("truncated", r.truncated())
          .put("elapsed_ms", r.elapsedMs()).put("columns", r.columns()));
    } else {
      events.failed("execute_sql", "tool", attempt, errorData(o));
    }
    return o;
  }

  /**
   * inspect_result: zero rows is an answer, not a failure. One diagnostic, not a loop: when the query
   * filters a column by a string literal, re-run it once case- and space-insensitively; if rows appear,
   * the filter was wrong ({@code empty_filter}); otherwise nothing matches, honestly. A result whose
   * aggregates are all zero or NULL ({@link EmptyAggregate}) is probed the same way: an aggregate that moves
   * under the relaxed filter is an {@code empty_filter} too, one that stays is the honest zero.
   */
  private Future<Outcome> inspect(Outcome o) {
    if (!o.ok() || !agentMode || probed) return inspected(o);
    if (o.result().rowCount() == 0) return probe(o, List.of());
    if (!EmptyAggregate.mayBeEmpty(o.result())) return inspected(o);
    return vertx.executeBlocking(() -> EmptyAggregate.aggregateColumns(o.sql()), false)
        .compose(aggregates -> EmptyAggregate.isEmpty(o.result(), aggregates) ? probe(o, aggregates) : inspected(o));
  }

  private Future<Outcome> inspected(Outcome o) {
    events.finished("inspect_result", "decision", attempt, new JsonObject().put("ok", o.ok())
        .put("row_count", o.ok() ? o.result().rowCount() : null));
    return Future.succeededFuture(o);
  }

  /** The one relaxed re-run; {@code aggregates} empty: the result had no rows, else its all-zero aggregate columns. */
  private Future<Outcome> probe(Outcome o, List<Integer> aggregates) {
    String node = "inspect_result";
    String probe = aggregates.isEmpty() ? "empty_result" : "empty_aggregate";
    probed = true;
    events.started(node, "tool", attempt, new JsonObject().put("probe", probe));
    return vertx.executeBlocking(() -> FilterRelaxer.relax(o.sql()), false).compose(relaxed -> {
      if (relaxed.isEmpty()) {
        events.finished(node, "tool", attempt, new JsonObject().put("probe", probe).put("verdict", "no_text_filter")
            .put("row_count", o.result().rowCount()));
        return Future.succeededFuture(o);
      }
      return gate(relaxed.get().sql()).map(reply -> {
        GateReply.Result relaxedResult = reply.ok() ? reply.result() : null;
        int rows = relaxedResult == null ? 0 : relaxedResult.rowCount();
        boolean moved = aggregates.isEmpty() ? rows > 0 : rows > 0 && !EmptyAggregate.isEmpty(relaxedResult, aggregates);
        JsonObject data = new JsonObject().put("probe", probe).put("relaxed_sql", relaxed.get().sql())
            .put("filters", new JsonArray(relaxed.get().filters())).put("probe_rows", rows);
        if (!moved) {
          events.finished(node, "tool", attempt, data.put("verdict", "empty_confirmed"));
          return o;
        }
        events.finished(node, "tool", attempt, data.put("verdict", "filter_too_strict"));
        String found = aggregates.isEmpty()
            ? "the query returned no rows, but with its text filters compared case- and space-insensitively it returns "
                + rows + (rows == 1 ? " row" : " rows")
            : "the query's aggregates came to zero or NULL, but with its text filters compared case- and"
                + " space-insensitively they do not (first row: " + relaxedResult.rows().getJsonArray(0).encode() + ")";
        return Outcome.failure(ErrorType.EMPTY_FILTER.wireName(), found + ": " + String.join(", ", relaxed.get().filters()),
            "stored values differ in case or spacing from the literals used; match the stored form exactly",
            null, o.sql());
      });
    });
  }

  private Future<Answer> decide(Outcome o) {
    if (control.cancelled() || control.deadlinePassed()) return Future.failedFuture(new RunControl.Stopped("stopped"));
    ErrorType type = o.ok() ? null : ErrorType.fromWireName(o.errorType());
    boolean refusal = !o.ok() && o.writeRefused();
    Decision.Next next = Decision.decide(o.ok(), type != null && type.repairable(), refusal, attempt, agentMode);
    events.finished("decide", "decision", attempt, new JsonObject().put("next", next.name().toLowerCase(Locale.ROOT))
        .put("error_type", o.errorType()).put("attempts_left", Decision.MAX_ATTEMPTS - attempt));
    switch (next) {
      case ANSWER:
        return answer(o);
      case REFUSE:
        record(o, null);
        return refuse("This service only reads data; the request needs a change to the database, so it was not run.", o);
      case REPAIR:
        return prepareRepair(o, type).compose(v -> attemptOnce());
      default:
        return giveUp(o);
    }
  }

  // --- prepare_repair ------------------------------------------------------------------------------

  private Future<Void> prepareRepair(Outcome o, ErrorType type) {
    String node = "prepare_repair";
    record(o, type.strategy());
    events.started(node, "decision", attempt, new JsonObject().put("error_type", type.wireName()).put("strategy", type.strategy()));
    boolean widen = (type == ErrorType.UNKNOWN_COLUMN || type == ErrorType.UNKNOWN_TABLE) && !widened;
    Future<Void> prep = Future.succeededFuture();
    if (widen) {
      widened = true;
      prep = selectSchema();
    }
    return prep.map(v -> {
      events.finished(node, "decision", attempt, new JsonObject().put("error_type", type.wireName())
          .put("strategy", type.strategy()).put("instruction", type.repairInstruction()).put("widened", widen));
      return (Void) null;
    });
  }

  private void record(Outcome o, String strategy) {
    history.add(new Attempt(attempt, o.sql(), o.errorType(), o.message(), o.hint(), o.position(), strategy));
  }

  private static String repairInstruction(String errorType) {
    return ErrorType.fromWireName(errorType).repairInstruction();
  }

  // --- answer | give_up | refuse -----------------------------------------------------------------

  private Future<Answer> answer(Outcome o) {
    String node = "answer";
    GateReply.Result r = o.result();
    events.started(node, "answer", attempt, new JsonObject());
    Future<String> words = settings.modelSummary()
        ? wordAnswer(o.sql(), r).recover(err -> err instanceof RunControl.Stopped ? Future.failedFuture(err)
            : Future.succeededFuture(plainSummary(r)))
        : Future.succeededFuture(plainSummary(r));
    return words.map(text -> {
      Answer answer = answerOf(text, o.sql(), false, false, false, r);
      events.finished(node, "answer", attempt, answer.toJson());
      return answer;
    });
  }

  private Future<String> wordAnswer(String sql, GateReply.Result r) {
    JsonArray messages = PromptBuilder.answerMessages(question, sql, r.columns(), r.rows(), r.rowCount(), r.truncated());
    return request(Addresses.GENERATE, new JsonObject().put("run_id", runId).put("messages", messages).put("stream", false),
        Math.max(1_000, remaining()))
        .map(reply -> {
          account(reply);
          String text = reply.getString("content", "").strip();
          return isProse(text) ? text : plainSummary(r);
        });
  }

  private static final Pattern SQL_START = Pattern.compile(
      "(?is)^(select\\b|with\\s+(recursive\\s+)?\\S+\\s*(\\([^)]*\\)\\s*)?as\\s*(not\\s+)?(materialized\\s*)?\\()");

  /**
   * Whether the model's wording of an answer is prose to show as it is. Not prose: nothing, JSON (an object or
   * an array), SQL (it starts with SELECT or a WITH clause) or anything holding a code fence; the
   * deterministic summary stands in for those.
   */
  static boolean isProse(String text) {
    if (text == null || text.isBlank()) return false;
    String t = text.strip();
    if (t.contains("```") || SQL_START.matcher(t).find()) return false;
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        io.vertx.core.json.Json.decodeValue(t);
        return false;
      } catch (RuntimeException notJson) {
        return true;
      }
    }
    return true;
  }

  /** A deterministic wording of the result, used when the model is not asked (or fails) to word it. */
  static String plainSummary(GateReply.Result r) {
    return ResultText.summary(r.columns(), r.rows(), r.rowCount(), r.truncated());
  }

  /** A cancelled run: what was tried so far, and the event every watcher sees. */
  private Future<Answer> cancelled() {
    String text = "The question was cancelled" + (control.cancelledBy() == null ? "" : " by " + control.cancelledBy())
        + " before it was answered; nothing is left running.";
    Answer answer = answerOf(text, lastSql, false, false, true, null);
    events.finished("cancelled", "answer", attempt, answer.toJson());
    return Future.succeededFuture(answer);
  }

  private Future<Answer> giveUp(Outcome last) {
    record(last, null);
    String reason = last.errorType() == null ? "unknown" : last.errorType();
    String text = "I could not answer this question" + (attempt > 0 ? " after " + attempt + (attempt == 1 ? " attempt" : " attempts") : "")
        + ". The last error was " + reason + ": " + last.message() + "."
        + (history.stream().anyMatch(a -> a.sql() != null && !a.sql().isBlank())
            ? " Every query tried is in the history." : " No query was run.");
    Answer answer = answerOf(text, last.sql(), false, true, false, null);
    events.finished("give_up", "answer", attempt, answer.toJson());
    return Future.succeededFuture(answer);
  }

  private Future<Answer> refuse(String explanation, Outcome o) {
    String text = explanation == null || explanation.isBlank()
        ? "The database cannot answer this question." : explanation;
    Answer answer = answerOf(text, o == null ? null : o.sql(), true, false, false, null);
    events.finished("answer", "answer", attempt, answer.toJson());
    return Future.succeededFuture(answer);
  }

  /**
   * The run's answer, built in this one place: the words, the SQL, the result when there is one, whose run it
   * is, and for a cancelled run how long the cancel took to leave nothing running.
   */
  private Answer answerOf(String text, String sql, boolean refused, boolean gaveUp, boolean cancelled,
      GateReply.Result result) {
    long now = System.currentTimeMillis();
    return new Answer(question, text, sql, attempt, tablesUsed(sql), refused, gaveUp, cancelled,
        result == null ? new JsonArray() : ColumnFormat.annotate(result.columns()),
        result == null ? new JsonArray() : result.rows(),
        result == null ? 0 : result.rowCount(), result != null && result.truncated(), history,
        new Answer.Tokens(promptTokens, completionTokens), costUsd, now - startedAt, runId,
        agentMode ? "agent" : "baseline", model, source, user == null ? null : user.name(), injectedFault,
        cancelled ? Long.valueOf(now - control.cancelledAt()) : null,
        lastCandidates == null ? null : lastCandidates.copy(), conversationId,
        verifiedUsed != null ? "verified" : "model",
        verifiedUsed == null ? null : verifiedUsed.getLong("verified_id"),
        verifiedUsed == null ? null : verifiedUsed.getString("question"),
        verifiedUsed == null ? null : verifiedUsed.getDouble("score"));
  }

  /** The retrieved tables the SQL names. */
  private List<String> tablesUsed(String sql) {
    List<String> tables = new ArrayList<>();
    if (retrieval != null && sql != null) {
      String lower = sql.toLowerCase(Locale.ROOT);
      for (Object t : retrieval.getJsonArray("tables", new JsonArray())) {
        String name = ((JsonObject) t).getString("name");
        if (Pattern.compile("\\b" + Pattern.quote(name.toLowerCase(Locale.ROOT)) + "\\b").matcher(lower).find()) tables.add(name);
      }
    }
    return tables;
  }

  // --- plumbing -------------------------------------------------------------------------------------

  /**
   * The whole gate, one request: every stage's verdict, and the rows when all passed. The run's id lets a
   * cancel reach the statement; the user's database role (if any) is the one the statement runs as.
   */
  private Future<GateReply> gate(String sql) {
    JsonObject body = new JsonObject().put("sql", sql).put("run", true).put("run_id", runId)
        .put("db_role", user == null ? null : user.dbRole());
    return request(Addresses.EXECUTE, body, settings.stepTimeoutMs())
        .map(GateReply::fromJson)
        .recover(err -> err instanceof RunControl.Stopped ? Future.failedFuture(err)
            : Future.succeededFuture(GateReply.failed(GateError.of(ErrorType.UNKNOWN,
                "the gate did not answer: " + describe(err), null, null).withSql(sql), List.of(), false)));
  }

  private Future<JsonObject> request(String address, JsonObject body, long timeoutMs) {
    // Clustered, a run's steps stay on its worker: a node that leaves takes only its own runs with it.
    return control.guard(() -> vertx.eventBus()
        .<JsonObject>request(address, body, new DeliveryOptions().setSendTimeout(Math.max(1, timeoutMs))
            .setLocalOnly(settings.onOneNode()))
        .map(m -> m.body()));
  }

  private void account(JsonObject reply) {
    promptTokens += reply.getLong("prompt_tokens", 0L);
    completionTokens += reply.getLong("completion_tokens", 0L);
    costUsd += reply.getDouble("cost_usd", 0.0);
    if (reply.getString("model") != null) model = reply.getString("model");
  }

  private long remaining() {
    return Math.max(1, deadline - System.currentTimeMillis());
  }

  private static Infrastructure modelFailure(Throwable err) {
    if (err instanceof ReplyException re && re.failureType() == io.vertx.core.eventbus.ReplyFailure.TIMEOUT) {
      return new Infrastructure("model_timeout", "the model did not answer before the question's deadline");
    }
    if (!(err instanceof ReplyException)) return new Infrastructure("model_unavailable", describe(err));
    ModelException e = ModelException.of(err);
    return new Infrastructure(e.errorType(), e.getMessage());
  }

  private static JsonObject errorData(Outcome o) {
    return new JsonObject().put("error_type", o.errorType()).put("message", o.message()).put("hint", o.hint())
        .put("position", o.position()).put("sql", o.sql());
  }

  private static String describe(Throwable err) {
    return err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
  }

  private static String clip(String s, int max) {
    if (s == null) return null;
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
