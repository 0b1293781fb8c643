package dev.sqlagent.agent;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.execution.ErrorType;
import dev.sqlagent.generation.ModelReply;
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

  /** What one execution (or its refusal) came to, as inspect_result and decide see it. */
  record Outcome(boolean ok, JsonObject result, String errorType, String message, String hint, Integer position,
      String sql) {
    static Outcome success(JsonObject result) {
      return new Outcome(true, result, null, null, null, null, result.getString("sql"));
    }

    static Outcome failure(String errorType, String message, String hint, Integer position, String sql) {
      return new Outcome(false, null, errorType, message, hint, position, sql);
    }

    static Outcome fromGate(JsonObject reply, String sql) {
      if (reply.getBoolean("ok", false)) return success(reply);
      return failure(reply.getString("error_type", "unknown"), reply.getString("message", "refused"),
          reply.getString("hint"), reply.getInteger("position"), reply.getString("sql", sql));
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

  private static final Pattern WRITE_WORDS = Pattern.compile(
      "(?is)^\\s*(insert|update|delete|drop|alter|create|truncate|grant|revoke|merge|copy|call|do|vacuum|comment)\\b");

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
  /** The conversation this question belongs to, and its earlier turns as prompt text. */
  private String conversationId;
  private String conversationText;
  /** The closest verified queries (worked examples), and the one that answered when one did. */
  private JsonArray verifiedMatches = new JsonArray();
  private JsonObject verifiedUsed;

  AgentRun(Vertx vertx, AgentSettings settings, RunEvents events, String runId, String question, String mode,
      String source, FirstSqlMutator mutator, String faultKey) {
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
  }

  /** The question belongs to a conversation whose earlier turns are {@code earlierTurns} (prompt text). */
  AgentRun inConversation(String id, String earlierTurns) {
    this.conversationId = id;
    this.conversationText = earlierTurns;
    return this;
  }

  Future<JsonObject> run() {
    return lookupVerified()
        .compose(direct -> direct == null ? Future.succeededFuture((JsonObject) null) : answerVerified(direct))
        .compose(done -> done != null ? Future.succeededFuture(done) : selectSchema().compose(v -> attemptOnce()))
        .recover(err -> {
          if (err instanceof Infrastructure infra) return giveUp(Outcome.failure(infra.errorType, infra.getMessage(), null, null, null));
          return giveUp(Outcome.failure("unknown", "internal error: " + err.getClass().getSimpleName(), null, null, null));
        });
  }

  // --- lookup_verified → (validate_sql → execute_sql → answer, without the model) -----------------

  /**
   * The verified queries closest to the question: the few closest become worked examples; a near-exact one
   * (its score at the threshold, naming the same values) is returned to answer with. Evaluation never uses
   * them (it measures the model). Shown as events only when the library has something to compare.
   */
  private Future<JsonObject> lookupVerified() {
    if ("eval".equals(source)) return Future.succeededFuture(null);
    String node = "lookup_verified";
    return request(Addresses.VERIFIED_LOOKUP, new JsonObject().put("question", question), settings.stepTimeoutMs())
        .map(reply -> {
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

  /**
   * Answers with a verified query's SQL through the whole gate, worded without the model. Null when the gate
   * refuses it (it is then retired: the schema moved under it) or it fails to run: the model answers instead.
   */
  private Future<JsonObject> answerVerified(JsonObject match) {
    attempt = 1;
    String sql = match.getString("sql");
    return validate(sql).compose(check -> {
      if (!check.ok()) {
        vertx.eventBus().request(Addresses.VERIFIED_RETIRE, new JsonObject().put("verified_id", match.getLong("verified_id"))
            .put("reason", check.errorType() + ": " + check.message()));
        attempt = 0;
        return Future.succeededFuture((JsonObject) null);
      }
      return execute(sql, check.sql()).map(o -> {
        if (!o.ok()) {
          attempt = 0;
          return null;
        }
        verifiedUsed = match;
        JsonObject r = o.result();
        events.started("answer", "answer", attempt, new JsonObject());
        JsonObject answer = base(plainSummary(r), r.getString("sql"))
            .put("columns", r.getJsonArray("columns")).put("rows", r.getJsonArray("rows"))
            .put("row_count", r.getInteger("row_count")).put("truncated", r.getBoolean("truncated", false));
        finish(answer);
        events.finished("answer", "answer", attempt, answer.copy());
        return answer;
      });
    });
  }

  // --- select_schema -----------------------------------------------------------------------------

  private Future<Void> selectSchema() {
    String node = "select_schema";
    events.started(node, "retriever", attempt, new JsonObject().put("question", question).put("widen", widened));
    return request(Addresses.RETRIEVE, new JsonObject().put("question", question).put("widen", widened), settings.stepTimeoutMs())
        .map(reply -> {
          retrieval = reply;
          events.finished(node, "retriever", attempt, new JsonObject()
              .put("tables", reply.getJsonArray("tables")).put("top_k", reply.getInteger("top_k")));
          return (Void) null;
        })
        .recover(err -> {
          events.failed(node, "retriever", attempt, new JsonObject().put("message", describe(err)));
          return Future.failedFuture(new Infrastructure("retrieval_failed", "schema retrieval failed: " + describe(err)));
        });
  }

  // --- generate_sql → validate_sql → execute_sql → inspect_result → decide ------------------------

  private Future<JsonObject> attemptOnce() {
    attempt++;
    if (System.currentTimeMillis() > deadline) {
      throw new Infrastructure("timeout", "the question's deadline of " + settings.questionTimeoutMs() + " ms passed");
    }
    return generate().compose(generated -> {
      if (generated.invalid() != null) {
        return decide(Outcome.failure(ErrorType.MODEL_OUTPUT_INVALID.wireName(), generated.invalid(), null, null,
            clip(generated.raw(), 2_000)));
      }
      ModelReply reply = generated.reply();
      if (reply.refused()) return refuse(reply.explanation(), null);
      String sql = maybeInjectFault(reply.sql());
      return validate(sql)
          .compose(check -> check.ok() ? execute(sql, check.sql()) : Future.succeededFuture(check))
          .compose(this::inspect)
          .compose(this::decide);
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
    MessageConsumer<JsonObject> deltas = vertx.eventBus().consumer(Addresses.generationDeltas(runId),
        m -> events.progress(node, "generation", attempt, new JsonObject().put("delta", m.body().getString("text"))));
    return request(Addresses.GENERATE, new JsonObject().put("run_id", runId).put("messages", messages).put("stream", true),
        remaining())
        .eventually(deltas::unregister)
        .recover(err -> {
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

  private Future<Outcome> validate(String sql) {
    String node = "validate_sql";
    events.started(node, "guardrail", attempt, new JsonObject().put("sql", sql));
    return gate(sql, false).map(reply -> {
      Outcome o = Outcome.fromGate(reply, sql);
      if (o.ok()) {
        events.finished(node, "guardrail", attempt, new JsonObject().put("sql", reply.getString("sql"))
            .put("static_check", reply.getString("static_check")));
      } else {
        events.failed(node, "guardrail", attempt, errorData(o));
      }
      return o;
    });
  }

  /**
   * Runs the model's SQL, not the checked text: the gate bounds it again and then knows the cap is its own,
   * so its probe row can report {@code truncated} (a re-submitted "LIMIT cap" would read as the user's).
   */
  private Future<Outcome> execute(String sql, String boundedSql) {
    String node = "execute_sql";
    events.started(node, "tool", attempt, new JsonObject().put("sql", boundedSql));
    return gate(sql, true).map(reply -> {
      Outcome o = Outcome.fromGate(reply, boundedSql);
      if (o.ok()) {
        events.finished(node, "tool", attempt, new JsonObject().put("sql", reply.getString("sql"))
            .put("row_count", reply.getInteger("row_count")).put("truncated", reply.getBoolean("truncated"))
            .put("elapsed_ms", reply.getLong("elapsed_ms")).put("columns", reply.getJsonArray("columns")));
      } else {
        events.failed(node, "tool", attempt, errorData(o));
      }
      return o;
    });
  }

  /**
   * inspect_result: zero rows is an answer, not a failure. One diagnostic, not a loop: when the query
   * filters a column by a string literal, re-run it once case- and space-insensitively; if rows appear,
   * the filter was wrong ({@code empty_filter}); otherwise nothing matches, honestly.
   */
  private Future<Outcome> inspect(Outcome o) {
    String node = "inspect_result";
    if (!o.ok() || o.result().getInteger("row_count", 0) > 0 || !agentMode || probed) {
      events.finished(node, "decision", attempt, new JsonObject().put("ok", o.ok())
          .put("row_count", o.ok() ? o.result().getInteger("row_count") : null));
      return Future.succeededFuture(o);
    }
    probed = true;
    events.started(node, "tool", attempt, new JsonObject().put("probe", "empty_result"));
    return vertx.executeBlocking(() -> FilterRelaxer.relax(o.sql()), false).compose(relaxed -> {
      if (relaxed.isEmpty()) {
        events.finished(node, "tool", attempt, new JsonObject().put("probe", "empty_result").put("verdict", "no_text_filter")
            .put("row_count", 0));
        return Future.succeededFuture(o);
      }
      return gate(relaxed.get().sql(), true).map(reply -> {
        int rows = reply.getBoolean("ok", false) ? reply.getInteger("row_count", 0) : 0;
        JsonObject data = new JsonObject().put("probe", "empty_result").put("relaxed_sql", relaxed.get().sql())
            .put("filters", new JsonArray(relaxed.get().filters())).put("probe_rows", rows);
        if (rows == 0) {
          events.finished(node, "tool", attempt, data.put("verdict", "empty_confirmed"));
          return o;
        }
        events.finished(node, "tool", attempt, data.put("verdict", "filter_too_strict"));
        return Outcome.failure(ErrorType.EMPTY_FILTER.wireName(),
            "the query returned no rows, but with its text filters compared case- and space-insensitively it returns "
                + rows + (rows == 1 ? " row" : " rows") + ": " + String.join(", ", relaxed.get().filters()),
            "stored values differ in case or spacing from the literals used; match the stored form exactly",
            null, o.sql());
      });
    });
  }

  private Future<JsonObject> decide(Outcome o) {
    ErrorType type = o.ok() ? null : ErrorType.fromWireName(o.errorType());
    boolean refusal = !o.ok() && isWriteRefusal(type, o.sql());
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

  /** A refused write (by the gate or the database's read-only guarantees) is a refusal of the request. */
  private static boolean isWriteRefusal(ErrorType type, String sql) {
    if (type == ErrorType.PERMISSION_DENIED) return sql != null && WRITE_WORDS.matcher(sql).find();
    return type == ErrorType.REJECTED && sql != null && WRITE_WORDS.matcher(sql).find();
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

  private Future<JsonObject> answer(Outcome o) {
    String node = "answer";
    JsonObject r = o.result();
    events.started(node, "answer", attempt, new JsonObject());
    Future<String> words = settings.modelSummary()
        ? wordAnswer(r).recover(err -> Future.succeededFuture(plainSummary(r)))
        : Future.succeededFuture(plainSummary(r));
    return words.map(text -> {
      JsonObject answer = base(text, r.getString("sql"))
          .put("columns", r.getJsonArray("columns")).put("rows", r.getJsonArray("rows"))
          .put("row_count", r.getInteger("row_count")).put("truncated", r.getBoolean("truncated", false));
      finish(answer);
      events.finished(node, "answer", attempt, answer.copy());
      return answer;
    });
  }

  private Future<String> wordAnswer(JsonObject r) {
    JsonArray messages = PromptBuilder.answerMessages(question, r.getString("sql"), r.getJsonArray("columns"),
        r.getJsonArray("rows"), r.getInteger("row_count", 0), r.getBoolean("truncated", false));
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
  static String plainSummary(JsonObject r) {
    int n = r.getInteger("row_count", 0);
    JsonArray rows = r.getJsonArray("rows", new JsonArray());
    JsonArray cols = r.getJsonArray("columns", new JsonArray());
    if (n == 0) return "No rows match the question.";
    if (n == 1 && cols.size() == 1) return "The answer is " + rows.getJsonArray(0).getValue(0) + ".";
    StringBuilder b = new StringBuilder();
    b.append(n).append(n == 1 ? " row" : " rows").append(r.getBoolean("truncated", false) ? " (more exist)" : "");
    JsonArray first = rows.getJsonArray(0);
    b.append("; the first: ");
    for (int i = 0; i < cols.size(); i++) {
      if (i > 0) b.append(", ");
      b.append(cols.getJsonObject(i).getString("name")).append(" = ").append(first.getValue(i));
    }
    return b.append('.').toString();
  }

  private Future<JsonObject> giveUp(Outcome last) {
    record(last, null);
    String reason = last.errorType() == null ? "unknown" : last.errorType();
    String text = "I could not answer this question" + (attempt > 0 ? " after " + attempt + (attempt == 1 ? " attempt" : " attempts") : "")
        + ". The last error was " + reason + ": " + last.message() + "."
        + (history.stream().anyMatch(a -> a.sql() != null && !a.sql().isBlank())
            ? " Every query tried is in the history." : " No query was run.");
    JsonObject answer = base(text, last.sql()).put("gave_up", true)
        .put("columns", new JsonArray()).put("rows", new JsonArray()).put("row_count", 0).put("truncated", false);
    finish(answer);
    events.finished("give_up", "answer", attempt, answer.copy());
    return Future.succeededFuture(answer);
  }

  private Future<JsonObject> refuse(String explanation, Outcome o) {
    String text = explanation == null || explanation.isBlank()
        ? "The database cannot answer this question." : explanation;
    JsonObject answer = base(text, o == null ? null : o.sql()).put("refused", true)
        .put("columns", new JsonArray()).put("rows", new JsonArray()).put("row_count", 0).put("truncated", false);
    finish(answer);
    events.finished("answer", "answer", attempt, answer.copy().put("refused", true));
    return Future.succeededFuture(answer);
  }

  private JsonObject base(String text, String sql) {
    JsonArray tables = new JsonArray();
    if (retrieval != null && sql != null) {
      String lower = sql.toLowerCase(Locale.ROOT);
      for (Object t : retrieval.getJsonArray("tables", new JsonArray())) {
        String name = ((JsonObject) t).getString("name");
        if (Pattern.compile("\\b" + Pattern.quote(name.toLowerCase(Locale.ROOT)) + "\\b").matcher(lower).find()) tables.add(name);
      }
    }
    return new JsonObject().put("question", question).put("answer", text).put("sql", sql)
        .put("attempts", attempt).put("tables_used", tables).put("refused", false).put("gave_up", false);
  }

  private void finish(JsonObject answer) {
    JsonArray h = new JsonArray();
    history.forEach(a -> h.add(a.toJson()));
    answer.put("history", h)
        .put("tokens", new JsonObject().put("prompt", promptTokens).put("completion", completionTokens))
        .put("cost_usd", costUsd).put("latency_ms", System.currentTimeMillis() - startedAt)
        .put("run_id", runId).put("mode", agentMode ? "agent" : "baseline").put("model", model).put("source", source);
    if (injectedFault != null) answer.put("injected_fault", injectedFault);
    answer.put("conversation_id", conversationId).put("answer_source", verifiedUsed != null ? "verified" : "model");
    if (verifiedUsed != null) {
      answer.put("verified_id", verifiedUsed.getLong("verified_id")).put("verified_question", verifiedUsed.getString("question"))
          .put("verified_score", verifiedUsed.getDouble("score"));
    }
  }

  // --- plumbing -------------------------------------------------------------------------------------

  private Future<JsonObject> gate(String sql, boolean run) {
    return request(Addresses.EXECUTE, new JsonObject().put("sql", sql).put("run", run), settings.stepTimeoutMs())
        .recover(err -> Future.succeededFuture(new JsonObject().put("ok", false).put("error_type", "unknown")
            .put("message", "the gate did not answer: " + describe(err)).put("repairable", false).put("sql", sql)));
  }

  private Future<JsonObject> request(String address, JsonObject body, long timeoutMs) {
    return vertx.eventBus().<JsonObject>request(address, body, new DeliveryOptions().setSendTimeout(Math.max(1, timeoutMs)))
        .map(m -> m.body());
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
    if (err instanceof ReplyException re && re.getMessage() != null && re.getMessage().startsWith("{")) {
      try {
        JsonObject j = new JsonObject(re.getMessage());
        return new Infrastructure(j.getString("error_type", "model_error"), j.getString("message", "the model failed"));
      } catch (RuntimeException ignored) {
        // not our JSON: fall through
      }
    }
    if (err instanceof ReplyException re && re.failureType() == io.vertx.core.eventbus.ReplyFailure.TIMEOUT) {
      return new Infrastructure("model_timeout", "the model did not answer before the question's deadline");
    }
    return new Infrastructure("model_unavailable", describe(err));
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
