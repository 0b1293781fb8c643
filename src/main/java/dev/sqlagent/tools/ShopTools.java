package dev.sqlagent.tools;

import dev.sqlagent.agent.AgentVerticle;
import dev.sqlagent.agent.Answer;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.display.ResultText;
import dev.sqlagent.execution.GateReply;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The five shop tools as plain functions over the event bus: the MCP server registers them, tests call them
 * directly. Each validates its arguments, calls the service that owns the work (retrieval for the schema,
 * the gate for SQL, the agent for questions; there is no other route to the database) and returns a
 * {@link ToolResult}. The returned future never fails: every failure becomes a tool error with a message.
 */
public final class ShopTools {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShopTools.class);

  public static final String LIST_TABLES = "list_tables";
  public static final String DESCRIBE_TABLE = "describe_table";
  public static final String SAMPLE_ROWS = "sample_rows";
  public static final String RUN_QUERY = "run_query";
  public static final String ASK = "ask";
  public static final String FEEDBACK = "feedback";
  public static final String VERIFY = "verify";

  /** The tools and their arguments, in the order they are listed. */
  public static final Map<String, List<String>> ARGUMENTS = arguments();

  public static final int DEFAULT_SAMPLE_ROWS = 3;
  public static final int MAX_SAMPLE_ROWS = 10;
  public static final int MAX_QUESTION_CHARS = AgentVerticle.MAX_QUESTION_CHARS;
  /** Longest table name worth sending on (PostgreSQL's limit is 63, leave room for quotes and a schema). */
  static final int MAX_NAME_CHARS = 140;

  private static Map<String, List<String>> arguments() {
    Map<String, List<String>> a = new LinkedHashMap<>();
    a.put(LIST_TABLES, List.of());
    a.put(DESCRIBE_TABLE, List.of("name"));
    a.put(SAMPLE_ROWS, List.of("name", "n"));
    a.put(RUN_QUERY, List.of("sql"));
    a.put(ASK, List.of("question", "conversation_id"));
    a.put(FEEDBACK, List.of("run_id", "rating", "comment"));
    a.put(VERIFY, List.of("run_id", "question"));
    return java.util.Collections.unmodifiableMap(a);
  }

  private final Vertx vertx;
  private final DeliveryOptions quick;
  private final DeliveryOptions askOptions;

  /** @param config the service's deployment config ({@code AppConfig.toJson()}): reads questionTimeoutMs */
  public ShopTools(Vertx vertx, JsonObject config) {
    this.vertx = vertx;
    long statementMs = config.getLong("statementTimeoutMs", 5_000L);
    this.quick = new DeliveryOptions().setSendTimeout(Math.max(30_000L, statementMs * 3));
    this.askOptions = new DeliveryOptions().setSendTimeout(config.getLong("questionTimeoutMs", 180_000L) + 15_000L);
  }

  /** Calls a tool by name with JSON arguments, checking that only its own arguments are given. */
  public Future<ToolResult> call(String tool, JsonObject arguments) {
    return call(tool, arguments, null, null);
  }

  /**
   * The same on behalf of {@code user} (null: no users file), whose database role then applies; an ask runs as
   * {@code runId} when given, so the caller can cancel it.
   */
  public Future<ToolResult> call(String tool, JsonObject arguments, User user, String runId) {
    List<String> known = ARGUMENTS.get(tool);
    if (known == null) {
      return Future.succeededFuture(badArgument("no tool '" + tool + "'; the tools are: " + String.join(", ", ARGUMENTS.keySet())));
    }
    JsonObject args = arguments == null ? new JsonObject() : arguments;
    for (String name : args.fieldNames()) {
      if (!known.contains(name)) {
        return Future.succeededFuture(badArgument("unknown argument '" + name + "'; " + tool
            + (known.isEmpty() ? " takes no arguments" : " takes: " + String.join(", ", known))));
      }
    }
    return switch (tool) {
      case LIST_TABLES -> listTables(role(user));
      case DESCRIBE_TABLE -> describeTable(args.getValue("name"), role(user));
      case SAMPLE_ROWS -> sampleRows(args.getValue("name"), args.getValue("n"), role(user));
      case RUN_QUERY -> runQuery(args.getValue("sql"), user);
      case FEEDBACK -> feedback(args.getValue("run_id"), args.getValue("rating"), args.getValue("comment"), user);
      case VERIFY -> verify(args.getValue("run_id"), args.getValue("question"), user);
      default -> ask(args.getValue("question"), args.getValue("conversation_id"), user, runId);
    };
  }

  /** Every visible shop table with its one-line note and approximate row count. */
  public Future<ToolResult> listTables() {
    return listTables(null);
  }

  private static String role(User user) {
    return user == null ? null : user.dbRole();
  }

  private Future<ToolResult> listTables(String dbRole) {
    return request(Addresses.SCHEMA, new JsonObject().put("db_role", dbRole), quick, "the schema catalogue")
        .map(reply -> {
          JsonArray tables = new JsonArray();
          for (Object o : reply.getJsonArray("tables", new JsonArray())) {
            JsonObject t = (JsonObject) o;
            tables.add(new JsonObject().put("name", t.getString("name")).put("note", t.getString("note"))
                .put("row_count", t.getValue("row_count")));
          }
          return ToolResult.ok(new JsonObject().put("tables", tables));
        })
        .otherwise(ShopTools::failure);
  }

  /** One table as CREATE TABLE: columns, types, nullability, keys and comments. */
  public Future<ToolResult> describeTable(Object name) {
    return describeTable(name, null);
  }

  private Future<ToolResult> describeTable(Object name, String dbRole) {
    String problem = tableNameProblem(name);
    if (problem != null) return Future.succeededFuture(badArgument(problem));
    return request(Addresses.DESCRIBE, new JsonObject().put("name", name).put("db_role", dbRole), quick, "the schema catalogue")
        .map(reply -> ToolResult.ok(reply, reply.getString("ddl")))
        .otherwise(ShopTools::failure);
  }

  /** A few real rows of one table (values clipped), so value formats are learned rather than guessed. */
  public Future<ToolResult> sampleRows(Object name, Object n) {
    return sampleRows(name, n, null);
  }

  private Future<ToolResult> sampleRows(Object name, Object n, String dbRole) {
    String problem = tableNameProblem(name);
    if (problem == null) problem = rowCountProblem(n);
    if (problem != null) return Future.succeededFuture(badArgument(problem));
    int rows = n == null ? DEFAULT_SAMPLE_ROWS : ((Number) n).intValue();
    return request(Addresses.SAMPLE, new JsonObject().put("name", name).put("n", rows).put("db_role", dbRole), quick, "the sampler")
        .map(ToolResult::ok)
        .otherwise(ShopTools::failure);
  }

  /**
   * One SELECT through the whole gate: the rows, or the gate's structured error. Any string goes to the gate,
   * blank ones too, so every refusal (an empty statement is {@code rejected}) is the gate's, exactly as
   * through the HTTP API; only a missing or non-string sql is refused here.
   */
  public Future<ToolResult> runQuery(Object sql) {
    return runQuery(sql, null);
  }

  private Future<ToolResult> runQuery(Object sql, User user) {
    if (!(sql instanceof String s)) {
      return Future.succeededFuture(badArgument("sql must be one SELECT statement, as a string"));
    }
    JsonObject body = new JsonObject().put("sql", s).put("run", true).put("db_role", user == null ? null : user.dbRole());
    return request(Addresses.EXECUTE, body, quick, "the query gate")
        .map(reply -> GateReply.fromJson(reply).ok() ? ToolResult.ok(reply, ResultText.query(reply)) : ToolResult.error(reply))
        .otherwise(ShopTools::failure);
  }

  /** The whole agent: the answer JSON, with the SQL that produced it and the history of every attempt. */
  public Future<ToolResult> ask(Object question) {
    return ask(question, null, null, null);
  }

  /** The same, as a turn of the conversation {@code conversationId} (null: a new conversation). */
  public Future<ToolResult> ask(Object question, Object conversationId) {
    return ask(question, conversationId, null, null);
  }

  private Future<ToolResult> ask(Object question, Object conversationId, User user, String runId) {
    if (!(question instanceof String q) || q.isBlank()) {
      return Future.succeededFuture(badArgument("question must be a non-empty string"));
    }
    if (q.length() > MAX_QUESTION_CHARS) {
      return Future.succeededFuture(badArgument("question is " + q.length() + " characters; the limit is " + MAX_QUESTION_CHARS));
    }
    if (conversationId != null && !(conversationId instanceof String)) {
      return Future.succeededFuture(badArgument("conversation_id must be the string an earlier answer returned"));
    }
    JsonObject request = new JsonObject().put("question", q).put("mode", "agent").put("source", "mcp")
        .put("user", user == null ? null : user.toJson());
    if (runId != null) request.put("run_id", runId);
    if (conversationId != null) request.put("conversation_id", conversationId);
    return request(Addresses.ASK, request, askOptions, "the agent")
        .map(reply -> {
          JsonObject answer = Answer.fromJson(reply).toJson();
          return ToolResult.ok(answer, ResultText.answer(answer));
        })
        .otherwise(ShopTools::failure);
  }

  /** 👍 or 👎 on an answer, by its run id, with an optional comment, given by {@code user} (its owner or an admin). */
  public Future<ToolResult> feedback(Object runId, Object rating, Object comment, User user) {
    if (!(runId instanceof String)) return Future.succeededFuture(badArgument("run_id must be the run_id of an answer"));
    JsonObject request = new JsonObject().put("run_id", runId).put("rating", rating).put("comment", comment)
        .put("user", user == null ? null : user.toJson());
    return request(Addresses.RUN_FEEDBACK, request, quick, "the feedback store")
        .map(ToolResult::ok)
        .otherwise(ShopTools::failure);
  }

  /** Promotes an answer rated up to a verified query, once the gate passes its SQL again (its owner or an admin). */
  public Future<ToolResult> verify(Object runId, Object question, User user) {
    if (!(runId instanceof String)) return Future.succeededFuture(badArgument("run_id must be the run_id of an answer"));
    return request(Addresses.VERIFIED_PROMOTE, new JsonObject().put("run_id", runId).put("question", question)
        .put("user", user == null ? null : user.toJson()), quick,
        "the verified queries")
        .map(ToolResult::ok)
        .otherwise(ShopTools::failure);
  }

  static String tableNameProblem(Object name) {
    if (!(name instanceof String s) || s.isBlank()) return "name must be a table name (list_tables shows them)";
    if (s.length() > MAX_NAME_CHARS) return "name is " + s.length() + " characters; no table name is that long";
    return null;
  }

  static String rowCountProblem(Object n) {
    if (n == null) return null;
    boolean whole = n instanceof Integer || n instanceof Long || n instanceof Short
        || (n instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue()) && !Double.isInfinite(num.doubleValue()));
    if (!whole || ((Number) n).doubleValue() < 1 || ((Number) n).doubleValue() > MAX_SAMPLE_ROWS) {
      return "n must be a whole number from 1 to " + MAX_SAMPLE_ROWS + ", got " + (n instanceof String ? "\"" + n + "\"" : n);
    }
    return null;
  }

  private static ToolResult badArgument(String message) {
    return ToolResult.error("bad_argument", message);
  }

  private Future<JsonObject> request(String address, JsonObject body, DeliveryOptions options, String what) {
    return vertx.eventBus().<JsonObject>request(address, body, options)
        .map(m -> m.body())
        .recover(err -> Future.failedFuture(new ServiceFailure(what, err)));
  }

  /** The services whose 404 means the table named is not one of the shop's. */
  private static final Set<String> UNKNOWN_NAMES = Set.of("the schema catalogue", "the sampler");

  /** A service that refused the request, failed or did not answer, as a tool error. */
  private static ToolResult failure(Throwable err) {
    String what = err instanceof ServiceFailure sf ? sf.what : "the service";
    Throwable cause = err instanceof ServiceFailure ? err.getCause() : err;
    if (cause instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.TIMEOUT) return ToolResult.error("timeout", what + " did not answer in time");
      if (re.failureType() == ReplyFailure.NO_HANDLERS) return ToolResult.error("unavailable", what + " is not running");
      return switch (re.failureCode()) {
        case 400 -> badArgument(re.getMessage());
        case 403 -> ToolResult.error("forbidden", re.getMessage());
        case 404 -> ToolResult.error(UNKNOWN_NAMES.contains(what) ? "unknown_table" : "not_found", re.getMessage());
        case 409 -> ToolResult.error("conflict", re.getMessage());
        case 422 -> ToolResult.error("rejected", re.getMessage());
        case 429 -> ToolResult.error("busy", re.getMessage());
        case 503 -> ToolResult.error("unavailable", re.getMessage());
        default -> ToolResult.error("error", what + " failed: " + re.getMessage());
      };
    }
    // Not a service's own refusal: its text may name Java classes, so the client gets plain words.
    LOG.warn("{} failed: {}", what, String.valueOf(cause));
    return ToolResult.error("error", what + " failed unexpectedly; try again");
  }

  private static final class ServiceFailure extends RuntimeException {
    final String what;

    ServiceFailure(String what, Throwable cause) {
      super(what + ": " + cause.getMessage(), cause, false, false);
      this.what = what;
    }
  }
}
