package dev.sqlagent.tools;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.Deadlines;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /** The tools and their arguments, in the order they are listed. */
  public static final Map<String, List<String>> ARGUMENTS = arguments();

  public static final int DEFAULT_SAMPLE_ROWS = 3;
  public static final int MAX_SAMPLE_ROWS = 10;
  public static final int MAX_QUESTION_CHARS = AskRules.MAX_QUESTION_CHARS;
  /** Longest table name worth sending on (PostgreSQL's limit is 63, leave room for quotes and a schema). */
  static final int MAX_NAME_CHARS = 140;

  private static Map<String, List<String>> arguments() {
    Map<String, List<String>> a = new LinkedHashMap<>();
    a.put(LIST_TABLES, List.of());
    a.put(DESCRIBE_TABLE, List.of("name"));
    a.put(SAMPLE_ROWS, List.of("name", "n"));
    a.put(RUN_QUERY, List.of("sql"));
    a.put(ASK, List.of("question"));
    return java.util.Collections.unmodifiableMap(a);
  }

  private final BusClient catalogue;
  private final BusClient sampler;
  private final BusClient gate;
  private final BusClient agent;

  /** @param deadlines how long the quick tools and {@code ask} wait, as every edge waits */
  public ShopTools(Vertx vertx, Deadlines deadlines) {
    this.catalogue = new BusClient(vertx, "the schema catalogue", deadlines.queryMs());
    this.sampler = new BusClient(vertx, "the sampler", deadlines.queryMs());
    this.gate = new BusClient(vertx, "the query gate", deadlines.queryMs());
    this.agent = new BusClient(vertx, "the agent", deadlines.askMs());
  }

  /** Calls a tool by name with JSON arguments, checking that only its own arguments are given. */
  public Future<ToolResult> call(String tool, JsonObject arguments) {
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
      case LIST_TABLES -> listTables();
      case DESCRIBE_TABLE -> describeTable(args.getValue("name"));
      case SAMPLE_ROWS -> sampleRows(args.getValue("name"), args.getValue("n"));
      case RUN_QUERY -> runQuery(args.getValue("sql"));
      default -> ask(args.getValue("question"));
    };
  }

  /** Every visible shop table with its one-line note and approximate row count. */
  public Future<ToolResult> listTables() {
    return catalogue.<JsonObject>request(Addresses.SCHEMA, new JsonObject())
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
    String problem = tableNameProblem(name);
    if (problem != null) return Future.succeededFuture(badArgument(problem));
    return catalogue.<JsonObject>request(Addresses.DESCRIBE, new JsonObject().put("name", name))
        .map(reply -> ToolResult.ok(reply, reply.getString("ddl")))
        .otherwise(ShopTools::tableFailure);
  }

  /** A few real rows of one table (values clipped), so value formats are learned rather than guessed. */
  public Future<ToolResult> sampleRows(Object name, Object n) {
    String problem = tableNameProblem(name);
    if (problem == null) problem = rowCountProblem(n);
    if (problem != null) return Future.succeededFuture(badArgument(problem));
    int rows = n == null ? DEFAULT_SAMPLE_ROWS : ((Number) n).intValue();
    return sampler.<JsonObject>request(Addresses.SAMPLE, new JsonObject().put("name", name).put("n", rows))
        .map(ToolResult::ok)
        .otherwise(ShopTools::tableFailure);
  }

  /**
   * One SELECT through the whole gate: the rows, or the gate's structured error. Any string goes to the gate,
   * blank ones too, so every refusal (an empty statement is {@code rejected}) is the gate's, exactly as
   * through the HTTP API; only a missing or non-string sql is refused here.
   */
  public Future<ToolResult> runQuery(Object sql) {
    if (!(sql instanceof String s)) {
      return Future.succeededFuture(badArgument("sql must be one SELECT statement, as a string"));
    }
    return gate.<JsonObject>request(Addresses.EXECUTE, new JsonObject().put("sql", s).put("run", true))
        .map(reply -> reply.getBoolean("ok", false) ? ToolResult.ok(reply) : ToolResult.error(reply))
        .otherwise(ShopTools::failure);
  }

  /** The whole agent: the answer JSON, with the SQL that produced it and the history of every attempt. */
  public Future<ToolResult> ask(Object question) {
    AskRules.Refusal refused = AskRules.question(question);
    if (refused != null) return Future.succeededFuture(ToolResult.error(refused.toJson()));
    JsonObject request = new JsonObject().put("question", question).put("mode", "agent").put("source", "mcp");
    return agent.<JsonObject>request(Addresses.ASK, request)
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

  /** A service that refused the request, failed or did not answer, as a tool error (the edges' error_type). */
  private static ToolResult failure(Throwable err) {
    return ToolResult.error(BusError.of(err, "the service").toJson());
  }

  /** The same, except that the catalogue's and the sampler's "not found" is a table the shop does not have. */
  private static ToolResult tableFailure(Throwable err) {
    BusError e = BusError.of(err, "the service");
    return e.failure() == BusFailure.NOT_FOUND ? ToolResult.error("unknown_table", e.getMessage()) : failure(e);
  }
}
