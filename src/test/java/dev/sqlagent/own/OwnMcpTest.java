package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MCP tools over Streamable HTTP at {@code /mcp} on a user's own database: list_tables names what the role
 * may read as SQL writes it, describe_table takes quoted, qualified and loosely written names (a mixed-case
 * materialized view included), run_query answers through the gate and refuses writes, and the database is
 * unchanged afterwards.
 */
class OwnMcpTest {

  static OwnDatabase own;
  static TreeSet<String> before;
  static FakeModelServer model;
  static OwnService service;
  static McpSyncClient client;

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
    before = own.fingerprint();
    model = FakeModelServer.start();
    model.respondWith(req -> FakeModelServer.Reply.refusal("not needed here"));
    service = OwnService.start(own.config(own.roUrl(), model.env()));
    var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + service.port()).endpoint("/mcp")
        .requestBuilder(HttpRequest.newBuilder()).build();
    client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
    client.initialize();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (client != null) client.closeGracefully();
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (own != null) own.close();
    }
  }

  private static CallToolResult call(String tool, Map<String, Object> args) {
    return client.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  private static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  private static JsonObject ok(String tool, Map<String, Object> args) {
    CallToolResult r = call(tool, args);
    assertThat(r.isError()).as("%s %s: %s", tool, args, text(r)).isFalse();
    return new JsonObject(Json.encode(r.structuredContent()));
  }

  private static JsonObject error(String tool, Map<String, Object> args) {
    CallToolResult r = call(tool, args);
    assertThat(r.isError()).as("%s %s should be a tool error: %s", tool, args, text(r)).isTrue();
    return new JsonObject(Json.encode(r.structuredContent()));
  }

  @Test
  void theToolsWorkOnQuotedAndQualifiedNamesAndWritesAreRefused() throws Exception {
    JsonArray tables = ok("list_tables", Map.of()).getJsonArray("tables");
    assertThat(tables.stream().map(t -> ((JsonObject) t).getString("name")).toList()).containsExactlyInAnyOrder(
        "customers", "sales.orders", "sales.order_totals", "sales.\"LineItems\"", "\"Reporting\".\"MonthlyRevenue\"");

    for (String name : List.of("\"Reporting\".\"MonthlyRevenue\"", "Reporting.MonthlyRevenue", "reporting.monthlyrevenue")) {
      CallToolResult described = call("describe_table", Map.of("name", name));
      assertThat(described.isError()).as(name + ": " + text(described)).isFalse();
      assertThat(text(described)).as(name).contains("CREATE TABLE \"Reporting\".\"MonthlyRevenue\" (", "\"Month\" date",
          "\"Revenue\" numeric", "Revenue per month, cancelled orders excluded");
    }
    CallToolResult lines = call("describe_table", Map.of("name", "sales.\"LineItems\""));
    assertThat(text(lines)).contains("CREATE TABLE sales.\"LineItems\" (", "\"UnitPrice\" positive_amount NOT NULL",
        "PRIMARY KEY (order_id, order_date, line_no)",
        "FOREIGN KEY (order_id, order_date) REFERENCES sales.orders (order_id, order_date)");
    assertThat(text(call("describe_table", Map.of("name", "sales.orders")))).contains("CREATE TABLE sales.orders (",
        "status sales.order_status NOT NULL", "PRIMARY KEY (order_id, order_date)");

    for (String hidden : List.of("hr.salaries", "salaries", "sales.orders_2024")) {
      assertThat(error("describe_table", Map.of("name", hidden)).getString("error_type")).as(hidden).isEqualTo("unknown_table");
    }

    JsonObject revenue = ok("run_query", Map.of("sql",
        "SELECT r.\"Month\", r.\"Revenue\" FROM \"Reporting\".\"MonthlyRevenue\" r ORDER BY r.\"Month\""));
    assertThat(revenue.getJsonArray("rows").stream().map(Object::toString).toList()).containsExactly(
        "[\"2024-11-01\",\"1250.00\"]", "[\"2025-01-01\",\"20.00\"]", "[\"2025-02-01\",\"949.98\"]");
    JsonObject orders = ok("run_query", Map.of("sql", "SELECT o.status, count(*) AS n FROM sales.orders o GROUP BY o.status ORDER BY o.status"));
    assertThat(orders.getJsonArray("rows").stream().map(Object::toString).toList())
        .containsExactly("[\"pending\",1]", "[\"shipped\",3]", "[\"cancelled\",1]");

    for (String write : List.of("DELETE FROM sales.\"LineItems\"", "UPDATE customers SET display_name = 'x'",
        "DROP TABLE \"Reporting\".\"MonthlyRevenue\"", "REFRESH MATERIALIZED VIEW \"Reporting\".\"MonthlyRevenue\"",
        "SELECT 1; DELETE FROM customers")) {
      JsonObject refused = error("run_query", Map.of("sql", write));
      assertThat(refused.getString("error_type")).as(write).isEqualTo("rejected");
      assertThat(refused.getBoolean("repairable")).as(write).isFalse();
    }
    assertThat(error("run_query", Map.of("sql", "SELECT * FROM hr.salaries")).getString("error_type")).isEqualTo("unknown_table");

    service.awaitIndex();
    own.assertUnchanged(before);
  }
}
