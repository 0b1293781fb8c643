package dev.sqlagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.publisher.Mono;

/**
 * What an MCP client sees of the nine tools on the real pipeline (gate, retrieval, agent on the test
 * database, the model faked), the same over every transport: each tool answers, every attack through
 * run_query is refused as it is through the HTTP API, the query log and the system catalogues are
 * invisible, and ask sends each step of its run as it happens. The SDK's async client: its notification consumers
 * run in the order the notifications arrive (the sync client's run on a pool, in any order).
 */
final class McpToolScenario {

  static final String COUNT_BILLS = "SELECT count(*) AS n FROM bills";
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final McpAsyncClient client;
  private final Notices notices;

  McpToolScenario(McpAsyncClient client, Notices notices) {
    this.client = client;
    this.notices = notices;
  }

  /** What the server sent besides replies: progress and log notifications, in the order they arrived. */
  static final class Notices {
    final List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
    final List<McpSchema.LoggingMessageNotification> logs = new CopyOnWriteArrayList<>();

    /** An async client for {@code transport} that records them. */
    McpAsyncClient client(io.modelcontextprotocol.spec.McpClientTransport transport) {
      return McpClient.async(transport).initializationTimeout(Duration.ofSeconds(120)).requestTimeout(TIMEOUT)
          .progressConsumer(n -> Mono.fromRunnable(() -> progress.add(n)))
          .loggingConsumer(n -> Mono.fromRunnable(() -> logs.add(n)))
          .build();
    }

    void clear() {
      progress.clear();
      logs.clear();
    }
  }

  /** The model answers every question with {@link #COUNT_BILLS}. */
  static void script(FakeModelServer model) {
    model.respondWith(req -> FakeModelServer.Reply.sql(COUNT_BILLS, "count the bills"));
  }

  void runAll() {
    listsTheNineTools();
    listTablesShowsTheDatabaseTablesOnly();
    describeTableWritesCreateTable();
    sampleRowsShowsRealRows();
    runQueryRunsOneSelect();
    runQueryRefusesAttacksAsRejected();
    theQueryLogAndTheCataloguesAreInvisible();
    askAnswersWithTheSqlAndHistory();
    askSendsEachStepAsProgressWhenGivenAToken();
    exportGivesTheWholeResultAsCsv();
  }

  void listsTheNineTools() {
    assertThat(client.listTools().block(TIMEOUT).tools()).extracting(McpSchema.Tool::name)
        .containsExactly("list_tables", "describe_table", "sample_rows", "run_query", "ask", "feedback", "verify", "choose_reading",
            "export");
  }

  void listTablesShowsTheDatabaseTablesOnly() {
    JsonObject tables = ok("list_tables", Map.of());
    List<String> names = names(tables.getJsonArray("tables"));
    assertThat(names).contains("bills", "bill_items", "customers", "products", "payments");
    assertThat(names).doesNotContain("agent_query_log").noneMatch(n -> n.startsWith("pg_") || n.contains("."));
    JsonObject bills = (JsonObject) tables.getJsonArray("tables").stream()
        .filter(t -> ((JsonObject) t).getString("name").equals("bills")).findFirst().orElseThrow();
    assertThat(bills.getString("note")).isNotBlank();
    assertThat(bills.getValue("row_count")).isInstanceOf(Number.class);
  }

  void describeTableWritesCreateTable() {
    CallToolResult r = call("describe_table", Map.of("name", "bills"));
    assertThat(r.isError()).isFalse();
    assertThat(text(r)).contains("CREATE TABLE bills (", "PRIMARY KEY (bill_id)", "REFERENCES customers");
  }

  void sampleRowsShowsRealRows() {
    JsonObject sample = ok("sample_rows", Map.of("name", "bills", "n", 2));
    assertThat(sample.getJsonArray("rows")).hasSize(2);
    assertThat(sample.getJsonArray("columns")).isNotEmpty();
    assertThat(ok("sample_rows", Map.of("name", "customers")).getJsonArray("rows")).hasSize(3);
  }

  void runQueryRunsOneSelect() {
    JsonObject result = ok("run_query", Map.of("sql", COUNT_BILLS));
    assertThat(result.getBoolean("ok")).isTrue();
    assertThat(result.getJsonArray("rows")).hasSize(1);
    assertThat(result.getString("sql")).containsIgnoringCase("LIMIT");
    // The text is for a reader: numbers with separators, a year as it is; the structured rows stay exact.
    CallToolResult scaled = call("run_query", Map.of("sql", "SELECT 2025 AS year, count(*) * 1000 AS n FROM customers"));
    assertThat(text(scaled)).contains("year |       n", "2025 | 150,000", "(1 row)", "SQL: SELECT 2025").doesNotContain("2,025");
    assertThat(structured(scaled).getJsonArray("rows").getJsonArray(0).encode()).isEqualTo("[2025,150000]");
  }

  void runQueryRefusesAttacksAsRejected() {
    String before = billCount();
    for (String attack : List.of("DELETE FROM bills", "SELECT 1 FROM bills; DROP TABLE bills",
        "UPDATE bills SET total = 0", "WITH gone AS (DELETE FROM bills RETURNING *) SELECT count(*) FROM gone",
        "SELECT * INTO stolen FROM bills", "SELECT * FROM bills FOR UPDATE")) {
      JsonObject error = error("run_query", Map.of("sql", attack));
      assertThat(error.getString("error_type")).as(attack).isEqualTo("rejected");
      assertThat(error.getBoolean("repairable")).as(attack).isFalse();
      assertThat(error.getString("message")).as(attack).isNotBlank();
    }
    assertThat(billCount()).isEqualTo(before);
  }

  void theQueryLogAndTheCataloguesAreInvisible() {
    for (String hidden : List.of("agent_query_log", "pg_class", "pg_catalog.pg_authid", "pg_roles",
        "information_schema.tables")) {
      JsonObject described = error("describe_table", Map.of("name", hidden));
      assertThat(described.getString("error_type")).as(hidden).isEqualTo("unknown_table");
      assertThat(described.getString("message")).as(hidden).contains("bills");
      assertThat(error("sample_rows", Map.of("name", hidden)).getString("error_type")).as(hidden).isEqualTo("unknown_table");
    }
    for (String sql : List.of("SELECT * FROM agent_query_log", "SELECT * FROM public.agent_query_log",
        "SELECT rolname, rolpassword FROM pg_authid", "SELECT * FROM pg_catalog.pg_roles",
        "SELECT table_name FROM information_schema.tables", "SELECT b.id FROM bills b JOIN agent_query_log l ON true")) {
      assertThat(error("run_query", Map.of("sql", sql)).getString("error_type")).as(sql).isEqualTo("unknown_table");
    }
  }

  void askAnswersWithTheSqlAndHistory() {
    JsonObject answer = ok("ask", Map.of("question", "How many bills are there?"));
    assertThat(answer.getString("sql")).containsIgnoringCase("count(*)").containsIgnoringCase("bills");
    assertThat(answer.getBoolean("gave_up")).isFalse();
    assertThat(answer.getBoolean("refused")).isFalse();
    assertThat(answer.getJsonArray("rows")).hasSize(1);
    assertThat(answer.getJsonArray("history")).isNotNull();
    assertThat(answer.getString("answer")).isNotBlank();
    assertThat(answer.getInteger("attempts")).isEqualTo(1);
  }

  /**
   * With a progress token, each step of the run arrives while it runs, before the answer: a progress notification
   * (progress 1, 2, 3, ...) whose message is the step's one-line summary, and the same line as an info log message.
   * Without one, the log messages only.
   */
  void askSendsEachStepAsProgressWhenGivenAToken() {
    notices.clear();
    CallToolResult r = client.callTool(McpSchema.CallToolRequest.builder().name("ask")
        .arguments(Map.of("question", "How many bills are there?")).progressToken("ask-1").build()).block(TIMEOUT);
    assertThat(r.isError()).as(text(r)).isFalse();

    List<String> steps = notices.progress.stream().map(McpSchema.ProgressNotification::message).toList();
    assertThat(notices.progress).allSatisfy(n -> assertThat(n.progressToken()).isEqualTo("ask-1"));
    assertThat(notices.progress).extracting(McpSchema.ProgressNotification::progress)
        .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, steps.size()).mapToObj(i -> (double) i).toList());
    assertThat(steps).as("the run's steps in order").containsSubsequence(
        "select_schema started", "generate_sql started", "validate_sql started", "validate_sql finished: passed the gate's checks",
        "execute_sql started");
    assertThat(steps).anySatisfy(s -> assertThat(s).startsWith("select_schema finished: tables ").contains("bills"));
    assertThat(steps).anySatisfy(s -> assertThat(s).isEqualToIgnoringCase("generate_sql finished: " + COUNT_BILLS));
    assertThat(steps).anySatisfy(s -> assertThat(s).matches("execute_sql finished: 1 row in \\d+ ms"));
    assertThat(steps.get(steps.size() - 1)).as("the last step, sent before the result").startsWith("answer finished: ");
    assertThat(notices.logs).allSatisfy(n -> {
      assertThat(n.level()).isEqualTo(McpSchema.LoggingLevel.INFO);
      assertThat(n.logger()).isEqualTo("sql-agent");
    });
    assertThat(notices.logs).extracting(McpSchema.LoggingMessageNotification::data).containsExactlyElementsOf(steps);
    lastRunSteps = steps;
    lastRunId = structured(r).getString("run_id");

    notices.clear();
    ok("ask", Map.of("question", "How many bills are there?"));
    assertThat(notices.progress).as("no progress token, no progress").isEmpty();
    assertThat(notices.logs).extracting(McpSchema.LoggingMessageNotification::data).last().asString()
        .startsWith("answer finished: ");
  }

  /** The steps the progress notifications of the last ask with a token named, and its run. */
  List<String> lastRunSteps;
  String lastRunId;

  void exportGivesTheWholeResultAsCsv() {
    JsonObject csv = ok("export", Map.of("sql", "SELECT cat_name FROM categories ORDER BY 1"));
    assertThat(csv.getString("format")).isEqualTo("csv");
    assertThat(csv.getInteger("row_count")).isEqualTo(6);
    assertThat(csv.getBoolean("truncated")).isFalse();
    assertThat(csv.getString("csv")).startsWith("cat_name\r\n").hasLineCount(7);
    assertThat(error("export", Map.of("sql", "DELETE FROM bills")).getString("error_type")).isEqualTo("rejected");
    assertThat(error("export", Map.of()).getString("message")).contains("run_id").contains("sql");
  }

  private String billCount() {
    return String.valueOf(ok("run_query", Map.of("sql", COUNT_BILLS)).getJsonArray("rows").getJsonArray(0).getValue(0));
  }

  CallToolResult call(String tool, Map<String, Object> args) {
    return client.callTool(new McpSchema.CallToolRequest(tool, args)).block(TIMEOUT);
  }

  /** A result: not an error, its structured content as JSON (and the text says the same, or is the DDL). */
  JsonObject ok(String tool, Map<String, Object> args) {
    CallToolResult r = call(tool, args);
    assertThat(r.isError()).as("%s %s: %s", tool, args, text(r)).isFalse();
    return structured(r);
  }

  /** A tool error: isError, with the structured error. */
  JsonObject error(String tool, Map<String, Object> args) {
    CallToolResult r = call(tool, args);
    assertThat(r.isError()).as("%s %s should be a tool error: %s", tool, args, text(r)).isTrue();
    JsonObject error = structured(r);
    assertThat(error.getBoolean("ok")).isFalse();
    assertThat(new JsonObject(text(r))).isEqualTo(error);
    return error;
  }

  static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  static JsonObject structured(CallToolResult r) {
    return new JsonObject(io.vertx.core.json.Json.encode(r.structuredContent()));
  }

  private static List<String> names(JsonArray tables) {
    return tables.stream().map(t -> ((JsonObject) t).getString("name")).toList();
  }
}
