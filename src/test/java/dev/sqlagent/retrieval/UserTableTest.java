package dev.sqlagent.retrieval;

import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.catalogue.TableInfo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A table the shop does not have (as in a user's own database): no hand-written note, a name that needs
 * quoting, never analysed; and one the role may not read. Both are created by the admin and dropped after.
 */
class UserTableTest {

  static Vertx vertx;
  static RetrievalClient client;

  @BeforeAll
  static void create() throws Exception {
    admin("CREATE TABLE \"Web Orders\" (\"Order Id\" int PRIMARY KEY, note text)",
        "COMMENT ON TABLE \"Web Orders\" IS 'Orders placed on the web shop.'",
        "INSERT INTO \"Web Orders\" VALUES (1, 'first'), (2, 'second')",
        "CREATE TABLE hidden_payroll (id int)",
        "REVOKE ALL ON hidden_payroll FROM sql_agent_ro");
    vertx = Vertx.vertx();
    vertx.deployVerticle(new RetrievalVerticle(TestDatabase.get().target(), StateDatabase.open(vertx, TestDatabase.get().state(), 2), TestDatabase.get().config(java.util.Map.of()))).await(60, TimeUnit.SECONDS);
    client = new RetrievalClient(vertx, 60_000);
  }

  @AfterAll
  static void drop() throws Exception {
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      admin("DROP TABLE IF EXISTS \"Web Orders\"", "DROP TABLE IF EXISTS hidden_payroll");
    }
  }

  private static void admin(String... statements) throws Exception {
    TestDatabase db = TestDatabase.get();
    try (Connection c = db.shopAdmin(); Statement s = c.createStatement()) {
      for (String sql : statements) s.execute(sql);
    }
  }

  @Test
  void aTableWithoutNoteIsDescribedByItsCommentAndCountedExactly() throws Exception {
    TableInfo web = client.tables(new RetrievalMessages.SchemaRequest(null)).await(30, TimeUnit.SECONDS).tables().stream()
        .filter(t -> t.name().equals("\"Web Orders\"")).findFirst().orElseThrow();
    assertThat(web.note()).isEqualTo("Orders placed on the web shop.");
    assertThat(web.rowCount()).isEqualTo(2L);
    assertThat(web.primaryKey()).containsExactly("Order Id");
    assertThat(client.describe(new RetrievalMessages.DescribeRequest("web orders", null)).await(30, TimeUnit.SECONDS).ddl())
        .contains("-- \"Web Orders\": Orders placed on the web shop.", "CREATE TABLE \"Web Orders\" (",
            "\"Order Id\" integer NOT NULL,", "PRIMARY KEY (\"Order Id\")")
        .doesNotContain("COMMENT:");
    assertThat(client.sample(new RetrievalMessages.SampleRequest("Web Orders", 5, null)).await(30, TimeUnit.SECONDS).rows())
        .containsExactly(List.of("1", "first"), List.of("2", "second"));
  }

  @Test
  void aTableTheRoleCannotReadIsInvisible() throws Exception {
    assertThat(client.tables(new RetrievalMessages.SchemaRequest(null)).await(30, TimeUnit.SECONDS).tables()).extracting(TableInfo::name)
        .doesNotContain("hidden_payroll", "agent_query_log");
    Retrieval r = client.retrieve(new Retrieval.Request("How much payroll is hidden?", true)).await(60, TimeUnit.SECONDS);
    assertThat(r.tableNames()).doesNotContain("hidden_payroll");
  }
}
