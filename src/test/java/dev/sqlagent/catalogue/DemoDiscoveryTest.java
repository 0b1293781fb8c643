package dev.sqlagent.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Discovery as the demo's agent role reads it from pg_catalog on the real shop database. */
class DemoDiscoveryTest {

  static Vertx vertx;
  static Catalogue catalogue;

  @BeforeAll
  static void read() throws Exception {
    vertx = Vertx.vertx();
    Pool pool = PgBuilder.pool().connectingTo(TestDatabase.get().target().roOptions()).using(vertx).build();
    catalogue = new Discovery(pool, java.util.List.of()).read().await(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  private static TableInfo table(String name) {
    return catalogue.find(name).orElseThrow();
  }

  private static TableInfo.Column column(String table, String column) {
    return table(table).columns().stream().filter(c -> c.name().equals(column)).findFirst().orElseThrow();
  }

  @Test
  void listsExactlyTheFifteenShopTables() {
    assertThat(catalogue.names()).containsExactlyElementsOf(DemoShop.SHOP_TABLES.stream().sorted().toList());
    assertThat(catalogue.names()).doesNotContain("agent_query_log").noneMatch(n -> n.startsWith("pg_"));
  }

  @Test
  void columnsCarryTypesWithPrecisionNullabilityAndComments() {
    TableInfo.Column total = column("bills", "total_amt");
    assertThat(total.type()).isEqualTo("numeric(12,2)");
    assertThat(total.nullable()).isTrue();
    assertThat(total.comment()).isEqualTo("Amount billed in rupees after discount: sum of bill_items.line_total minus discount_amt.");
    assertThat(total.base()).isEqualTo("numeric");
    assertThat(total.position()).isEqualTo(6);
    assertThat(column("bills", "bill_no").type()).isEqualTo("character varying(20)");
    assertThat(column("bills", "bill_dt").type()).isEqualTo("timestamp without time zone");
    assertThat(column("tbl_prod_master_old", "active_flag").type()).isEqualTo("character(1)");
    assertThat(column("categories", "cat_name").nullable()).isFalse();
    assertThat(column("bills", "bill_id").nullable()).isFalse();
    assertThat(column("bills", "cust_id").nullable()).isTrue();
    assertThat(table("bills").columns()).extracting(TableInfo.Column::name)
        .containsExactly("bill_id", "bill_no", "cust_id", "emp_id", "bill_dt", "total_amt", "discount_amt", "status");
  }

  @Test
  void primaryAndForeignKeys() {
    assertThat(table("bills").primaryKey()).containsExactly("bill_id");
    assertThat(table("store_settings").primaryKey()).containsExactly("setting_key");
    assertThat(table("bills").foreignKeys()).containsExactlyInAnyOrder(
        new TableInfo.ForeignKey(List.of("cust_id"), "customers", List.of("cust_id")),
        new TableInfo.ForeignKey(List.of("emp_id"), "employees", List.of("emp_id")));
    assertThat(table("employees").foreignKeys())
        .containsExactly(new TableInfo.ForeignKey(List.of("mgr_id"), "employees", List.of("emp_id")));
    assertThat(table("bill_archive").foreignKeys()).isEmpty();
  }

  @Test
  void tableCommentsAndRowCounts() {
    assertThat(table("bill_archive").comment()).startsWith("Sales of 2023-2024 from the old till");
    assertThat(table("bills").rowCount()).isEqualTo(1_400L);
    assertThat(table("bill_archive").rowCount()).isEqualTo(900L);
    assertThat(table("categories").rowCount()).isEqualTo(6L);
    assertThat(catalogue.tables()).allSatisfy(t -> assertThat(t.rowCount()).isNotNull());
  }

  @Test
  void findsTablesTheWayPeopleWriteThem() {
    assertThat(catalogue.find("BILLS")).map(TableInfo::name).contains("bills");
    assertThat(catalogue.find("public.bills")).map(TableInfo::name).contains("bills");
    assertThat(catalogue.find("\"bills\"")).map(TableInfo::name).contains("bills");
    assertThat(catalogue.find("orders")).isEmpty();
    assertThat(catalogue.unknownTable("orders")).startsWith("unknown table 'orders'; the tables are: bill_archive, ")
        .contains("bills", "store_settings");
  }
}
