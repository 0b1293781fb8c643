package dev.sqlagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * What an MCP client sees of the nine tools on the real pipeline (gate, retrieval, agent on the test
 * database, the model faked), the same over every transport: each tool answers, every attack through
 * run_query is refused as it is through the HTTP API, and the query log and the system catalogues are
 * invisible.
 */
final class McpToolScenario {

  static final String COUNT_BILLS = "SELECT count(*) AS n FROM bills";

  private final McpSyncClient client;

  McpToolScenario(McpSyncClient client) {
    this.client = client;
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
    exportGivesTheWholeResultAsCsv();
  }

  void listsTheNineTools() {
    assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name)
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
    return client.callTool(new McpSchema.CallToolRequest(tool, args));
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
