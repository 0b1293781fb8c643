package dev.sqlagent.retrieval;

import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.catalogue.TableInfo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.demo.SeedData;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The four retrieval addresses, answered by the deployed verticle from the real database and model. */
class RetrievalVerticleTest {

  static Vertx vertx;
  static RetrievalClient client;

  @BeforeAll
  static void deploy() throws Exception {
    vertx = Vertx.vertx();
    vertx.deployVerticle(new RetrievalVerticle(TestDatabase.get().target(), StateDatabase.open(vertx, TestDatabase.get().state(), 2), TestDatabase.get().config(java.util.Map.of()))).await(60, TimeUnit.SECONDS);
    client = new RetrievalClient(vertx, 60_000);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /** Raw on purpose: these tests pin retrieval's wire (its keys, its failures); the client is checked against it. */
  private static JsonObject request(String address, JsonObject body) throws Exception {
    return vertx.eventBus().<JsonObject>request(address, body).await(60, TimeUnit.SECONDS).body();
  }

  private static ReplyException failure(String address, Object body) {
    try {
      vertx.eventBus().request(address, body).await(60, TimeUnit.SECONDS);
    } catch (ReplyException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected a ReplyException, got " + e, e);
    }
    throw new AssertionError("expected " + address + " to fail");
  }

  @Test
  void retrieveRepliesWithScoredTablesSchemaSamplesAndConventions() throws Exception {
    JsonObject reply = request(Addresses.RETRIEVE, new JsonObject().put("question", "What was the total revenue in 2023?"));
    assertThat(reply.fieldNames()).containsExactlyInAnyOrder("tables", "schema", "samples", "conventions", "terms", "top_k",
        "schema_tokens", "shortened_tables", "value_matches", "metrics");
    // The business terms travel apart: they sit with the verified queries' worked examples in the prompt.
    assertThat(reply.getJsonArray("terms")).anySatisfy(t -> assertThat(t.toString()).startsWith("\"revenue\" means: "));
    assertThat(reply.getInteger("top_k")).isEqualTo(5);
    JsonArray tables = reply.getJsonArray("tables");
    assertThat(tables).hasSize(5);
    // "ranking" says how the notes moved a table (a 2023 question: the tables dated 2025 on go down).
    assertThat(tables.getJsonObject(0).fieldNames()).contains("name", "score").isSubsetOf("name", "score", "ranking");
    Retrieval r = Retrieval.fromJson(reply);
    assertThat(r.tableNames()).contains("bill_archive").doesNotContain("store_settings", "agent_query_log");
    for (String name : r.tableNames()) {
      assertThat(r.schema()).contains("CREATE TABLE " + name + " (");
      assertThat(r.samples()).contains("-- " + name + ": 3 rows, each value quoted data");
    }
    assertThat(r.schema()).contains("-- bill_archive: Sales of 2023 and 2024", "txn_dt timestamp without time zone");
    assertThat(r.conventions()).anyMatch(c -> c.contains("before 2025")).anyMatch(c -> c.contains("CANCELLED"));
  }

  /** The first-hour case: by similarity alone bill_archive (2023-2024) came before bills for a 2025 question. */
  @Test
  void theNotesDatesPutBillsAboveTheArchiveForA2025Question() throws Exception {
    List<String> names = client.retrieve(new Retrieval.Request("How many bills were paid in 2025?", false)).await(60, TimeUnit.SECONDS)
        .tableNames();
    assertThat(names).contains("bills");
    assertThat(names.indexOf("bill_archive")).as(names.toString()).satisfiesAnyOf(
        i -> assertThat(i).isEqualTo(-1), i -> assertThat(i).isGreaterThan(names.indexOf("bills")));
    List<String> archive = client.retrieve(new Retrieval.Request("How many bills were paid in 2024?", false)).await(60, TimeUnit.SECONDS)
        .tableNames();
    assertThat(archive).contains("bill_archive");
    assertThat(archive.indexOf("bill_archive")).as(archive.toString()).isLessThan(archive.indexOf("bills") == -1
        ? Integer.MAX_VALUE : archive.indexOf("bills"));
  }

  @Test
  void widenGivesNine() throws Exception {
    Retrieval narrow = client.retrieve(new Retrieval.Request("How much stock was lost to theft?", false)).await(60, TimeUnit.SECONDS);
    Retrieval wide = client.retrieve(new Retrieval.Request("How much stock was lost to theft?", true)).await(60, TimeUnit.SECONDS);
    assertThat(narrow.topK()).isEqualTo(5);
    assertThat(wide.topK()).isEqualTo(9);
    assertThat(wide.tables()).hasSize(9);
    assertThat(wide.tableNames()).startsWith(narrow.tableNames().toArray(String[]::new));
    assertThat(narrow.tables().get(0).name()).isEqualTo("stock_adjustments");
  }

  @Test
  void retrieveRefusesABadRequest() {
    assertThat(failure(Addresses.RETRIEVE, new JsonObject()).failureCode()).isEqualTo(400);
    assertThat(failure(Addresses.RETRIEVE, "revenue in 2023").failureCode()).isEqualTo(400);
    assertThat(failure(Addresses.DESCRIBE, "bills").failureCode()).isEqualTo(400);
    assertThat(failure(Addresses.RETRIEVE, new JsonObject().put("question", "  ")).getMessage()).contains("question");
    assertThat(failure(Addresses.RETRIEVE, new JsonObject().put("question", "x").put("widen", "yes")).getMessage())
        .contains("widen");
  }

  @Test
  void schemaListsEveryShopTableWithNotesCountsAndColumns() throws Exception {
    JsonArray tables = request(Addresses.SCHEMA, new JsonObject()).getJsonArray("tables");
    List<String> names = tables.stream().map(o -> ((JsonObject) o).getString("name")).toList();
    assertThat(names).containsExactlyInAnyOrderElementsOf(DemoShop.SHOP_TABLES);
    JsonObject bills = tables.stream().map(o -> (JsonObject) o).filter(t -> t.getString("name").equals("bills"))
        .findFirst().orElseThrow();
    assertThat(bills.getString("note")).startsWith("Sales bills from 2025-01-01 onward");
    assertThat(bills.getLong("row_count")).isEqualTo(1_400L);
    assertThat(bills.getJsonArray("columns").getJsonObject(0)).isEqualTo(new JsonObject()
        .put("name", "bill_id").put("type", "integer").put("nullable", false).put("comment", "Bill id.")
        .put("position", 1).put("base", "int4").put("typmod", -1));
    assertThat(client.tables(new RetrievalMessages.SchemaRequest(null)).await(30, TimeUnit.SECONDS).tables()).hasSize(15);
  }

  @Test
  void describeWritesCreateTable() throws Exception {
    JsonObject reply = request(Addresses.DESCRIBE, new JsonObject().put("name", "payments"));
    assertThat(reply.getString("name")).isEqualTo("payments");
    assertThat(reply.getString("ddl")).contains("-- payments: Money actually collected", "CREATE TABLE payments (",
        "amt numeric(12,2),  -- Amount collected in rupees.", "FOREIGN KEY (bill_id) REFERENCES bills (bill_id)");
    assertThat(client.describe(new RetrievalMessages.DescribeRequest("Payments", null)).await(30, TimeUnit.SECONDS).ddl()).isEqualTo(reply.getString("ddl"));
  }

  @Test
  void describeOfAnUnknownTableListsTheRealOnes() {
    ReplyException e = failure(Addresses.DESCRIBE, new JsonObject().put("name", "orders"));
    assertThat(e.failureCode()).isEqualTo(404);
    assertThat(e.getMessage()).startsWith("unknown table 'orders'; the tables are: ")
        .contains(String.join(", ", DemoShop.SHOP_TABLES.stream().sorted().toList()));
    assertThat(failure(Addresses.DESCRIBE, new JsonObject().put("name", "agent_query_log")).failureCode()).isEqualTo(404);
    assertThat(failure(Addresses.DESCRIBE, new JsonObject().put("name", "pg_class")).failureCode()).isEqualTo(404);
    assertThat(failure(Addresses.DESCRIBE, new JsonObject()).failureCode()).isEqualTo(400);
  }

  @Test
  void sampleReturnsClippedRows() throws Exception {
    SampleRows s = client.sample(new RetrievalMessages.SampleRequest("customers", 10, null)).await(30, TimeUnit.SECONDS);
    assertThat(s.name()).isEqualTo("customers");
    assertThat(s.columns()).extracting(TableInfo.Column::name).startsWith("cust_id", "cust_name", "phone", "address");
    assertThat(s.rows()).hasSize(10).allSatisfy(row -> assertThat(row).hasSize(s.columns().size())
        .allSatisfy(v -> assertThat(v == null ? "" : v).hasSizeLessThanOrEqualTo(40)));
    assertThat(client.sample(new RetrievalMessages.SampleRequest("bills", 1, null)).await(30, TimeUnit.SECONDS).rows()).hasSize(1);
    JsonObject reply = request(Addresses.SAMPLE, new JsonObject().put("name", "store_settings"));
    assertThat(reply.getJsonArray("rows")).hasSize(3);
    assertThat(reply.getJsonArray("columns").getJsonObject(0))
        .isEqualTo(new JsonObject().put("name", "setting_key").put("type", "character varying(40)"));
  }

  @Test
  void sampleRefusesBadArguments() {
    ReplyException zero = failure(Addresses.SAMPLE, new JsonObject().put("name", "bills").put("n", 0));
    assertThat(zero.failureCode()).isEqualTo(400);
    assertThat(zero.getMessage()).contains("from 1 to 10");
    assertThat(failure(Addresses.SAMPLE, new JsonObject().put("name", "bills").put("n", 11)).failureCode()).isEqualTo(400);
    assertThat(failure(Addresses.SAMPLE, new JsonObject().put("name", "bills").put("n", "3")).failureCode()).isEqualTo(400);
    ReplyException unknown = failure(Addresses.SAMPLE, new JsonObject().put("name", "agent_query_log"));
    assertThat(unknown.failureCode()).isEqualTo(404);
    assertThat(unknown.getMessage()).contains("the tables are:").doesNotContain("agent_query_log, ");
  }

  /** The planted instruction and the 1,000-character address, as the prompt's samples block would show them. */
  @Test
  void hostileAndHugeValuesStayClippedData() throws Exception {
    List<String> addresses = new ArrayList<>();
    try (Connection c = TestDatabase.get().target().roConnection(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT address FROM customers WHERE cust_id IN (42, 77) ORDER BY cust_id")) {
      while (rs.next()) addresses.add(rs.getString(1));
    }
    assertThat(addresses.get(0)).isEqualTo(SeedData.INJECTION_ADDRESS);
    assertThat(addresses.get(1)).hasSizeGreaterThan(1_000);
    SampleRows rows = new SampleRows("customers", List.of(TableInfo.Column.of("address", "text", true, null)),
        addresses.stream().map(a -> List.of(SampleRows.clip(a))).toList());
    assertThat(rows.text()).doesNotContain("DROP TABLE").contains("IGNORE PREVIOUS I…");
    // Each line is one quoted value of at most 40 characters (a quote inside it doubled).
    assertThat(rows.text().lines().skip(2)).allSatisfy(line -> assertThat(line).startsWith("'").endsWith("'")
        .hasSizeLessThanOrEqualTo(2 + 2 * 40));
  }
}
