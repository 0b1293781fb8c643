package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TableNamesTest {

  static final List<String> KNOWN = List.of(
      "customers", "sales.orders", "\"Sales\".\"Orders\"", "sales.\"Line Items\"", "archive.orders",
      "\"Web Orders\"", "\"MixedCase\"");

  @Test
  void bareNamesMatchWhateverTheCase() {
    assertThat(TableNames.resolve("customers", KNOWN)).contains("customers");
    assertThat(TableNames.resolve("Customers", KNOWN)).contains("customers");
    assertThat(TableNames.resolve("CUSTOMERS", KNOWN)).contains("customers");
    assertThat(TableNames.resolve("\"customers\"", KNOWN)).contains("customers");
    // Quoted with another case: not the same table to PostgreSQL, but nothing else fits better.
    assertThat(TableNames.resolve("\"Customers\"", KNOWN)).contains("customers");
  }

  @Test
  void publicIsTheSchemaOfABareKnownName() {
    assertThat(TableNames.resolve("public.customers", KNOWN)).contains("customers");
    assertThat(TableNames.resolve("PUBLIC.Customers", KNOWN)).contains("customers");
    assertThat(TableNames.match("crm.customers", KNOWN)).isInstanceOf(TableNames.NotFound.class);
  }

  @Test
  void quotedNamesPreferTheExactTableOverOneThatDiffersInCase() {
    assertThat(TableNames.resolve("\"Sales\".\"Orders\"", KNOWN)).contains("\"Sales\".\"Orders\"");
    assertThat(TableNames.resolve("sales.orders", KNOWN)).contains("sales.orders");
    assertThat(TableNames.resolve("SALES.ORDERS", KNOWN)).contains("sales.orders");
    assertThat(TableNames.resolve("Sales.Orders", KNOWN)).contains("sales.orders");
  }

  @Test
  void quotedNamesWithSpacesAndMixedCase() {
    assertThat(TableNames.resolve("sales.\"Line Items\"", KNOWN)).contains("sales.\"Line Items\"");
    assertThat(TableNames.resolve("Sales.\"line items\"", KNOWN)).contains("sales.\"Line Items\"");
    assertThat(TableNames.resolve("\"Line Items\"", KNOWN)).contains("sales.\"Line Items\"");
    assertThat(TableNames.resolve("\"Web Orders\"", KNOWN)).contains("\"Web Orders\"");
    assertThat(TableNames.resolve("Web Orders", KNOWN)).contains("\"Web Orders\"");
    assertThat(TableNames.resolve("web orders", KNOWN)).contains("\"Web Orders\"");
    assertThat(TableNames.resolve("MixedCase", KNOWN)).contains("\"MixedCase\"");
    assertThat(TableNames.resolve("mixedcase", KNOWN)).contains("\"MixedCase\"");
  }

  @Test
  void aBareNameInTwoSchemasIsAmbiguous() {
    assertThat(TableNames.match("orders", KNOWN)).isEqualTo(
        new TableNames.Ambiguous(List.of("sales.orders", "archive.orders")));
    assertThat(TableNames.resolve("archive.orders", KNOWN)).contains("archive.orders");
  }

  @Test
  void suggestsACloseName() {
    assertThat(TableNames.match("custmers", KNOWN)).isEqualTo(new TableNames.NotFound(Optional.of("customers")));
    assertThat(TableNames.match("sales.ordres", KNOWN))
        .isEqualTo(new TableNames.NotFound(Optional.of("sales.orders")));
    assertThat(TableNames.match("crm.customers", KNOWN))
        .isEqualTo(new TableNames.NotFound(Optional.of("customers")));
    assertThat(TableNames.match("invoices", KNOWN)).isEqualTo(new TableNames.NotFound(Optional.empty()));
  }

  @Test
  void columnsMatchStoredOrQuotedNamesForgivingCase() {
    Set<String> cols = Set.of("status", "Order Id", "\"CreatedAt\"");
    assertThat(TableNames.matchColumn("status", cols)).contains("status");
    assertThat(TableNames.matchColumn("STATUS", cols)).contains("status");
    assertThat(TableNames.matchColumn("\"Order Id\"", cols)).contains("Order Id");
    assertThat(TableNames.matchColumn("order id", cols)).contains("Order Id");
    assertThat(TableNames.matchColumn("createdat", cols)).contains("\"CreatedAt\"");
    assertThat(TableNames.matchColumn("stauts", cols)).isEmpty();
    assertThat(TableNames.suggestColumn("stauts", cols)).contains("status");
  }

  @Test
  void namesThatAreNotSqlNamesAreRefusedPlainly() {
    assertThatThrownBy(() -> TableNames.QualifiedName.parse("a.b.c"))
        .hasMessage("'a.b.c' is not a table name: write table or schema.table");
    assertThatThrownBy(() -> TableNames.QualifiedName.parse("\"Sales.orders"))
        .hasMessage("'\"Sales.orders' has a quote that is never closed");
    assertThat(TableNames.QualifiedName.parse("\"a \"\"b\"\"\".c").schema().text()).isEqualTo("a \"b\"");
  }
}
