package dev.sqlagent.mcp;

import dev.sqlagent.tools.DatabaseTools;
import dev.sqlagent.users.User;
import dev.sqlagent.tools.ToolResult;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import reactor.core.publisher.Mono;

/**
 * The MCP face of {@link DatabaseTools}: the nine tools with their descriptions and input schemas, registered
 * on an SDK server over whichever transport the caller gives (stdio or Vert.x Streamable HTTP). The tool
 * bodies live in DatabaseTools; this class only describes and registers them.
 */
public final class DatabaseMcpServer {

  private DatabaseMcpServer() {}

  static final String NAME = "sql-agent";
  static final String VERSION = "0.1.0";

  private static final String INSTRUCTIONS = """
      Read-only access to a PostgreSQL database: the tables, views and columns its read-only role can see. \
      Start with list_tables, read a table with describe_table and sample_rows, then either run one \
      SELECT with run_query or let the agent answer a plain-English question with ask. Nothing here can \
      change data: every query passes the same gate (one SELECT, a forced LIMIT, a cost limit, a \
      read-only role).""";

  /** The SDK's JSON mapper (Jackson 3, found through its service loader). */
  public static McpJsonMapper jsonMapper() {
    return McpJsonDefaults.getMapper();
  }

  /** Registers the tools on a server being built and builds it. */
  public static McpAsyncServer build(McpServer.AsyncSpecification<?> spec, Vertx vertx, DatabaseTools tools,
      Duration requestTimeout) {
    McpJsonMapper json = jsonMapper();
    return spec
        .serverInfo(NAME, VERSION)
        .instructions(INSTRUCTIONS)
        // Logging: the steps of a run, as log messages a client can turn down with logging/setLevel.
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).logging().build())
        .jsonMapper(json)
        // DatabaseTools checks arguments itself, with messages that say what to send instead.
        .validateToolInputs(false)
        .requestTimeout(requestTimeout)
        .tools(specifications(vertx, tools, json))
        .build();
  }

  /** Loads what the first request would otherwise load on an event loop (serialising a tool list). */
  static void warmUp() {
    try {
      jsonMapper().writeValueAsString(new McpSchema.ListToolsResult(
          specifications(null, null, jsonMapper()).stream().map(AsyncToolSpecification::tool).toList(), null));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static List<AsyncToolSpecification> specifications(Vertx vertx, DatabaseTools tools, McpJsonMapper json) {
    return List.of(
        spec(vertx, tools, json, tool(DatabaseTools.LIST_TABLES, "List tables",
            "List every table and view of the database with a one-line note on what it holds and its approximate "
                + "row count. Start here: the other tools take these names.",
            Map.of(), List.of(), true)),
        spec(vertx, tools, json, tool(DatabaseTools.DESCRIBE_TABLE, "Describe a table",
            "Describe one table as a CREATE TABLE statement: columns with types and nullability, primary and "
                + "foreign keys, and the comments that explain columns and codes. An unknown name is an error "
                + "that lists the real tables.",
            Map.of("name", Map.of("type", "string", "description", "table name, as list_tables shows it")),
            List.of("name"), true)),
        spec(vertx, tools, json, tool(DatabaseTools.SAMPLE_ROWS, "Sample rows",
            "Show a few real rows of one table (values clipped to 40 characters) so value formats, codes and "
                + "spellings are read rather than guessed. n is 1 to " + DatabaseTools.MAX_SAMPLE_ROWS
                + ", default " + DatabaseTools.DEFAULT_SAMPLE_ROWS + ".",
            Map.of("name", Map.of("type", "string", "description", "table name, as list_tables shows it"),
                "n", Map.of("type", "integer", "minimum", 1, "maximum", DatabaseTools.MAX_SAMPLE_ROWS,
                    "default", DatabaseTools.DEFAULT_SAMPLE_ROWS, "description", "how many rows")),
            List.of("name"), true)),
        spec(vertx, tools, json, tool(DatabaseTools.RUN_QUERY, "Run a query",
            "Run one read-only SELECT (a WITH, UNION or VALUES query is fine) and get the columns and rows. "
                + "The whole gate applies: exactly one statement, nothing that writes or locks, only the database's "
                + "tables, a LIMIT forced to the row cap (the result says truncated when more rows exist), a "
                + "planner-cost limit and a statement timeout. A refused or failed query is an error carrying "
                + "error_type (rejected, syntax_error, unknown_column, unknown_table, timeout, ...), the "
                + "database's message, a hint and whether rewriting can fix it.",
            Map.of("sql", Map.of("type", "string", "description", "one SELECT statement")),
            List.of("sql"), true)),
        spec(vertx, tools, json, tool(DatabaseTools.ASK, "Ask the agent",
            "Ask a plain-English question about the data. The agent picks the tables, writes one SELECT, "
                + "runs it through the same gate, repairs it from the database's error (at most three attempts) "
                + "and returns the answer JSON: the answer, the SQL that produced it, columns and rows, and the "
                + "history of every failed attempt with its error type. A question is at most "
                + DatabaseTools.MAX_QUESTION_CHARS + " characters; an answer can take up to a few minutes. When the "
                + "question has several readings whose results differ, the answer's outcome is needs_clarification "
                + "and its clarification lists them (numbered, each with a description, its SQL, row count and a "
                + "sample): answer with choose_reading. Each step of the run is sent as it happens: as a progress "
                + "notification when the call carries a progress token, and as an info log message.",
            Map.of("question", Map.of("type", "string", "maxLength", DatabaseTools.MAX_QUESTION_CHARS,
                "description", "the question, in plain English"),
                "conversation_id", Map.of("type", "string", "description", "continue this conversation (the "
                    + "conversation_id of an earlier answer): follow-ups like 'and for 2024?' then build on it")),
            List.of("question"), false)),
        spec(vertx, tools, json, tool(DatabaseTools.FEEDBACK, "Rate an answer",
            "Rate an answer up or down by its run_id, with an optional comment. An answer rated up can then be "
                + "verified.",
            Map.of("run_id", Map.of("type", "string", "description", "the run_id of the answer"),
                "rating", Map.of("type", "string", "enum", List.of("up", "down")),
                "comment", Map.of("type", "string", "description", "what was right or wrong")),
            List.of("run_id", "rating"), true)),
        spec(vertx, tools, json, tool(DatabaseTools.VERIFY, "Verify an answer",
            "Save an answer rated up as a verified query: its question and SQL, checked through the gate first. "
                + "Verified queries answer close paraphrases without the model and teach it by example.",
            Map.of("run_id", Map.of("type", "string", "description", "the run_id of an answer rated up"),
                "question", Map.of("type", "string", "description", "the question in full, for an answer to a "
                    + "follow-up (default: the question as asked)")),
            List.of("run_id"), true)),
        spec(vertx, tools, json, tool(DatabaseTools.CHOOSE_READING, "Choose a reading",
            "Answer a question the agent asked back about (an ask answer with a clarification): the reading chosen "
                + "by its number runs through the gate again, without the model, and its answer is returned like ask's, "
                + "as the next turn of the same conversation.",
            Map.of("run_id", Map.of("type", "string", "description", "the run_id of the answer that asked back"),
                "reading", Map.of("type", "integer", "minimum", 1, "description", "the number of the reading chosen")),
            List.of("run_id", "reading"), false)),
        spec(vertx, tools, json, tool(DatabaseTools.EXPORT, "Export a result as CSV",
            "Export the whole result of an answer (run_id) or of one SELECT (sql) as CSV (RFC 4180, a header line): "
                + "the SQL runs again through the same gate with the export's own row cap instead of the row cap that "
                + "cut the answer, up to " + DatabaseTools.MCP_EXPORT_MAX_ROWS + " rows here; when a cap cuts it, the last "
                + "line says so and truncated is true. Cells that a spreadsheet would read as a formula start with '.",
            Map.of("run_id", Map.of("type", "string", "description", "the run_id of an answer to export"),
                "sql", Map.of("type", "string", "description", "one SELECT statement to export instead")),
            List.of(), true)));
  }

  /** Feedback and verification write to the service's own store (never the database): not read-only tools. */
  private static final java.util.Set<String> WRITES_STATE = java.util.Set.of(DatabaseTools.FEEDBACK, DatabaseTools.VERIFY);

  private static Tool tool(String name, String title, String description, Map<String, Object> properties,
      List<String> required, boolean idempotent) {
    return Tool.builder()
        .name(name)
        .title(title)
        .description(description)
        .inputSchema(new McpSchema.JsonSchema("object", properties, required, false, null, null))
        // Declared so clients may read structuredContent; loose on purpose: the text content says the rest.
        .outputSchema(Map.of("type", "object", "properties", OUTPUT.get(name)))
        .annotations(new ToolAnnotations(title, !WRITES_STATE.contains(name), false, idempotent, false, null))
        .build();
  }

  /** The main fields of each tool's result (any may be null: a loose contract, the text says the rest). */
  private static final Map<String, Map<String, Object>> OUTPUT = Map.of(
      DatabaseTools.LIST_TABLES, Map.of("tables", field("array")),
      DatabaseTools.DESCRIBE_TABLE, Map.of("name", field("string"), "ddl", field("string")),
      DatabaseTools.SAMPLE_ROWS, Map.of("name", field("string"), "columns", field("array"), "rows", field("array")),
      DatabaseTools.RUN_QUERY, Map.of("sql", field("string"), "columns", field("array"), "rows", field("array"),
          "row_count", field("integer"), "truncated", field("boolean")),
      DatabaseTools.ASK, Map.of("answer", field("string"), "sql", field("string"), "rows", field("array"),
          "history", field("array"), "conversation_id", field("string"), "clarification", field("object")),
      DatabaseTools.CHOOSE_READING, Map.of("answer", field("string"), "sql", field("string"), "rows", field("array"),
          "edited_from", field("string"), "chosen_reading", field("integer")),
      DatabaseTools.FEEDBACK, Map.of("run_id", field("string"), "rating", field("string")),
      DatabaseTools.VERIFY, Map.of("verified_id", field("integer"), "question", field("string"), "sql", field("string")),
      DatabaseTools.EXPORT, Map.of("format", field("string"), "row_count", field("integer"), "truncated", field("boolean"),
          "csv", field("string")));

  private static Map<String, Object> field(String type) {
    return Map.of("type", List.of(type, "null"));
  }

  private static AsyncToolSpecification spec(Vertx vertx, DatabaseTools tools, McpJsonMapper json, Tool tool) {
    return AsyncToolSpecification.builder()
        .tool(tool)
        .callHandler((exchange, request) -> Mono
            .fromCompletionStage(() -> call(vertx, tools, tool.name(), exchange, request).toCompletionStage())
            .map(result -> toCallToolResult(result, json)))
        .build();
  }

  /** The tools that start a run of the agent, whose steps the caller is sent as they happen. */
  private static final java.util.Set<String> STARTS_A_RUN = java.util.Set.of(DatabaseTools.ASK, DatabaseTools.CHOOSE_READING);

  private static Future<ToolResult> call(Vertx vertx, DatabaseTools tools, String name, McpAsyncServerExchange exchange,
      CallToolRequest request) {
    User user = (User) exchange.transportContext().get(VertxStreamableHttpTransport.USER);
    String client = (String) exchange.transportContext().get(VertxStreamableHttpTransport.CLIENT);
    String runId = (String) exchange.transportContext().get(VertxStreamableHttpTransport.RUN_ID);
    if (!STARTS_A_RUN.contains(name)) return tools.call(name, arguments(request.arguments()), user, runId, client);
    // Named here when the transport did not (stdio), so the run's steps can be watched from its first.
    String run = runId != null ? runId : UUID.randomUUID().toString();
    return StepNotifications.during(vertx, exchange, request.progressToken(), run,
        () -> tools.call(name, arguments(request.arguments()), user, run, client));
  }

  private static JsonObject arguments(Map<String, Object> arguments) {
    return arguments == null ? new JsonObject() : new JsonObject(arguments);
  }

  /** Text for any client, the same JSON as structured content for clients that read it. */
  static CallToolResult toCallToolResult(ToolResult result, McpJsonMapper json) {
    Map<String, Object> structured;
    try {
      structured = json.readValue(result.data().encode(), new TypeRef<Map<String, Object>>() {});
    } catch (java.io.IOException e) {
      throw new IllegalStateException("a tool result that is not JSON", e);
    }
    return CallToolResult.builder()
        .addTextContent(result.text())
        .structuredContent(structured)
        .isError(result.error())
        .build();
  }
}
