package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code sql-agent serve} on a user's own database as its read-only role: {@code /api/schema} shows exactly
 * what the role may read, with real names (mixed case quoted, other schemas qualified, partitions folded into
 * their parent), enum labels, domain bases, composite keys and comments; questions whose SQL uses the quoted
 * names, the enum and the partitioned table get the right rows; the model's prompt carries the quoted names;
 * writes through {@code /api/query} are refused; and afterwards the database is exactly as it was.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OwnServeTest {

  static final String SHIPPED_2025 = "SELECT count(*) AS shipped FROM sales.orders o"
      + " WHERE o.status = 'shipped' AND o.order_date >= DATE '2025-01-01'";
  static final String MONTHLY = "SELECT r.\"Month\", r.\"Revenue\" FROM \"Reporting\".\"MonthlyRevenue\" r ORDER BY r.\"Month\"";

  static OwnDatabase own;
  static TreeSet<String> before;
  static FakeModelServer model;
  static OwnService service;

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
    before = own.fingerprint();
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req);
      if (q.contains("How many customers")) return Reply.sql(OwnDatabase.COUNT_CUSTOMERS);
      if (q.contains("order 1")) return Reply.sql(OwnDatabase.ORDER_ONE_LINES);
      if (q.contains("shipped in 2025")) return Reply.sql(SHIPPED_2025);
      if (q.contains("revenue per month")) return Reply.sql(MONTHLY);
      return Reply.refusal("not in this database");
    });
    service = OwnService.start(own.config(own.roUrl(), model.env()));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (own != null) own.close();
    }
  }

  private static JsonObject table(JsonArray tables, String name) {
    return tables.stream().map(JsonObject.class::cast).filter(t -> t.getString("name").equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError(name + " is not in /api/schema: " + tables.encode()));
  }

  private static JsonObject column(JsonObject table, String name) {
    return table.getJsonArray("columns").stream().map(JsonObject.class::cast).filter(c -> c.getString("name").equals(name))
        .findFirst().orElseThrow(() -> new AssertionError(name + " is not a column of " + table.encode()));
  }

  @Test
  @Order(1)
  void theSchemaIsExactlyWhatTheRoleMayReadWithRealNames() throws Exception {
    HttpResponse<Buffer> r = service.get("/api/schema");
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    JsonArray tables = r.bodyAsJsonObject().getJsonArray("tables");
    List<String> names = tables.stream().map(t -> ((JsonObject) t).getString("name")).toList();
    // Partitions fold into sales.orders; hr.salaries (schema not granted) is absent; public's table is bare.
    assertThat(names).containsExactlyInAnyOrder("customers", "sales.orders", "sales.order_totals",
        "sales.\"LineItems\"", "\"Reporting\".\"MonthlyRevenue\"");

    assertThat(table(tables, "customers").getString("kind")).isEqualTo("table");
    assertThat(table(tables, "customers").getString("schema")).isEqualTo("public");
    assertThat(table(tables, "customers").getString("comment")).isEqualTo("People and firms who buy from us");
    assertThat(table(tables, "customers").getJsonArray("columns").stream().map(c -> ((JsonObject) c).getString("name")).toList())
        .containsExactly("customer_no", "display_name", "country_code");
    assertThat(column(table(tables, "customers"), "country_code").getString("comment"))
        .isEqualTo("ISO 3166 alpha-2 country of the billing address");
    assertThat(table(tables, "customers").getLong("row_count")).isEqualTo(3L);

    JsonObject orders = table(tables, "sales.orders");
    assertThat(orders.getString("kind")).isEqualTo("partitioned table");
    assertThat(orders.getString("relname")).isEqualTo("orders");
    assertThat(orders.getJsonArray("primary_key")).containsExactly("order_id", "order_date");
    assertThat(orders.getJsonArray("foreign_keys")).containsExactly(new JsonObject()
        .put("columns", new JsonArray().add("customer_no")).put("ref_table", "customers")
        .put("ref_columns", new JsonArray().add("customer_no")));
    JsonObject status = column(orders, "status");
    assertThat(status.getString("type")).isEqualTo("sales.order_status");
    assertThat(status.getJsonArray("enum_labels")).containsExactly("pending", "shipped", "cancelled");
    assertThat(status.getString("comment")).isEqualTo("Where the order is in its life");
    assertThat(status.getBoolean("nullable")).isFalse();

    JsonObject lines = table(tables, "sales.\"LineItems\"");
    assertThat(lines.getString("kind")).isEqualTo("table");
    assertThat(lines.getString("relname")).isEqualTo("LineItems");
    assertThat(lines.getJsonArray("primary_key")).containsExactly("order_id", "order_date", "line_no");
    assertThat(lines.getJsonArray("foreign_keys")).containsExactly(new JsonObject()
        .put("columns", new JsonArray().add("order_id").add("order_date")).put("ref_table", "sales.orders")
        .put("ref_columns", new JsonArray().add("order_id").add("order_date")));
    JsonObject price = column(lines, "UnitPrice");
    assertThat(price.getString("type")).isEqualTo("positive_amount");
    assertThat(price.getString("domain_base")).isEqualTo("numeric(10,2)");
    assertThat(price.getString("comment")).isEqualTo("Price of one unit, in euros");
    assertThat(lines.getString("comment")).isEqualTo("The lines of an order");

    JsonObject totals = table(tables, "sales.order_totals");
    assertThat(totals.getString("kind")).isEqualTo("view");
    assertThat(totals.getString("comment")).isEqualTo("Order value: the sum of its lines");
    assertThat(column(totals, "status").getJsonArray("enum_labels")).containsExactly("pending", "shipped", "cancelled");

    JsonObject monthly = table(tables, "\"Reporting\".\"MonthlyRevenue\"");
    assertThat(monthly.getString("kind")).isEqualTo("materialized view");
    assertThat(monthly.getString("schema")).isEqualTo("Reporting");
    assertThat(monthly.getString("relname")).isEqualTo("MonthlyRevenue");
    assertThat(monthly.getString("comment")).isEqualTo("Revenue per month, cancelled orders excluded");
    assertThat(monthly.getJsonArray("columns").stream().map(c -> ((JsonObject) c).getString("name")).toList())
        .containsExactly("Month", "Revenue");

    assertThat(r.bodyAsString()).doesNotContain("salaries").doesNotContain("orders_2024").doesNotContain("orders_2025");
  }

  @Test
  @Order(2)
  void questionsGetTheRightRowsThroughQuotedNamesTheEnumAndThePartitionedTable() throws Exception {
    JsonObject count = service.ask("How many customers are there?");
    assertThat(count.getBoolean("gave_up")).as(count.encodePrettily()).isFalse();
    assertThat(count.getString("sql")).contains("FROM customers");
    assertThat(count.getJsonArray("rows")).as(count.encodePrettily()).containsExactly(new JsonArray().add(3));
    assertThat(count.getString("answer")).contains("3");

    JsonObject lines = service.ask("What did order 1 contain, and at what unit price?");
    assertThat(lines.getBoolean("gave_up")).as(lines.encodePrettily()).isFalse();
    assertThat(lines.getJsonArray("rows")).as(lines.encodePrettily()).containsExactly(
        new JsonArray().add("Analytical Engine").add(1).add("1200.00"),
        new JsonArray().add("Punched cards").add(100).add("0.50"));
    assertThat(lines.getJsonArray("columns").stream().map(c -> ((JsonObject) c).getString("name")).toList())
        .containsExactly("product", "qty", "UnitPrice");

    JsonObject shipped = service.ask("How many orders were shipped in 2025?");
    assertThat(shipped.getBoolean("gave_up")).as(shipped.encodePrettily()).isFalse();
    assertThat(shipped.getJsonArray("rows")).as(shipped.encodePrettily()).containsExactly(new JsonArray().add(2));

    JsonObject monthly = service.ask("What is the revenue per month?");
    assertThat(monthly.getBoolean("gave_up")).as(monthly.encodePrettily()).isFalse();
    assertThat(monthly.getJsonArray("rows").stream().map(Object::toString).toList()).containsExactly(
        "[\"2024-11-01\",\"1250.00\"]", "[\"2025-01-01\",\"20.00\"]", "[\"2025-02-01\",\"949.98\"]");

    // What the model was shown: the quoted mixed-case names as SQL must write them, the qualified ones, the comments.
    String prompt = model.requests().stream().filter(q -> q.lastUserMessage().contains("order 1")).findFirst()
        .orElseThrow().systemMessage();
    assertThat(prompt).contains("CREATE TABLE sales.\"LineItems\" (", "\"UnitPrice\" positive_amount NOT NULL",
        "CREATE TABLE \"Reporting\".\"MonthlyRevenue\" (", "\"Month\" date", "CREATE TABLE sales.orders (",
        "CREATE TABLE customers (", "FOREIGN KEY (order_id, order_date) REFERENCES sales.orders (order_id, order_date)",
        "Price of one unit, in euros");
    assertThat(prompt).doesNotContain("salaries").doesNotContain("orders_2024");
  }

  @Test
  @Order(3)
  void writesThroughTheQueryApiAreRefusedAndTheUngrantedTableIsUnknown() throws Exception {
    HttpResponse<Buffer> ok = service.post("/api/query", new JsonObject().put("sql",
        "SELECT li.\"UnitPrice\" FROM sales.\"LineItems\" li WHERE li.order_id = 4"));
    assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(200);
    assertThat(ok.bodyAsJsonObject().getJsonArray("rows")).containsExactly(new JsonArray().add("99.99"));

    // A view over the partitioned table: the plan scans partitions and base tables the query does not name.
    HttpResponse<Buffer> view = service.post("/api/query", new JsonObject().put("sql",
        "SELECT t.order_id, t.total FROM sales.order_totals t WHERE t.status = 'shipped' ORDER BY t.order_id"));
    assertThat(view.statusCode()).as(view.bodyAsString()).isEqualTo(200);
    assertThat(view.bodyAsJsonObject().getJsonArray("rows").stream().map(Object::toString).toList())
        .containsExactly("[1,\"1250.00\"]", "[3,\"20.00\"]", "[5,\"750.00\"]");

    for (String write : List.of("DELETE FROM customers", "UPDATE sales.orders SET status = 'cancelled'",
        "INSERT INTO sales.\"LineItems\" VALUES (5, '2025-02-14', 2, 'x', 1, 1)",
        "TRUNCATE sales.orders", "REFRESH MATERIALIZED VIEW \"Reporting\".\"MonthlyRevenue\"",
        "WITH d AS (DELETE FROM sales.orders_2024 RETURNING *) SELECT count(*) FROM d",
        "ALTER TABLE customers ADD COLUMN x int", "SELECT * INTO public.copied FROM customers")) {
      HttpResponse<Buffer> r = service.post("/api/query", new JsonObject().put("sql", write));
      assertThat(r.statusCode()).as(write + ": " + r.bodyAsString()).isEqualTo(422);
      assertThat(r.bodyAsJsonObject().getString("error_type")).as(write).isEqualTo("rejected");
    }
    HttpResponse<Buffer> hidden = service.post("/api/query", new JsonObject().put("sql", "SELECT * FROM hr.salaries"));
    assertThat(hidden.statusCode()).as(hidden.bodyAsString()).isEqualTo(422);
    assertThat(hidden.bodyAsJsonObject().getString("error_type")).isEqualTo("unknown_table");
    // The hint names the tables as SQL must write them: a model that copies it gets a working name.
    assertThat(hidden.bodyAsJsonObject().getString("hint"))
        .contains("sales.\"LineItems\"", "\"Reporting\".\"MonthlyRevenue\"", "sales.orders", "customers");
    HttpResponse<Buffer> column = service.post("/api/query", new JsonObject().put("sql",
        "SELECT li.unitprice FROM sales.\"LineItems\" li"));
    assertThat(column.bodyAsJsonObject().getString("error_type")).as(column.bodyAsString()).isEqualTo("unknown_column");
    assertThat(column.bodyAsJsonObject().getString("hint")).as(column.bodyAsString()).contains("\"UnitPrice\"");
  }

  @Test
  @Order(4)
  void afterAllOfItTheDatabaseIsByteIdentical() throws Exception {
    service.awaitIndex();
    own.assertUnchanged(before);
  }
}
