package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.SelectedTables;
import dev.sqlagent.testing.StoredValuesReady;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Values link the schema on a database that is not the demo (several schemas, a table named {@code customers},
 * mixed-case names, tables about spending that resemble the question more than {@code customers} does): a name
 * in lower case, or with one typo, brings the table that stores it into the prompt, the model reads the stored
 * form, and the select_schema event says why. The target is only read.
 */
class OwnValueLinksTest {

  static OwnDatabase own;
  static TreeSet<String> before;
  static FakeModelServer model;
  static OwnService service;

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
    own.addPeopleAndSpending();
    before = own.fingerprint();
    model = FakeModelServer.start();
    service = OwnService.start(own.config(own.roUrl(), model.env()));
    StoredValuesReady.await(service.vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
      if (own != null) own.assertUnchanged(before);
    } finally {
      if (own != null) own.close();
    }
  }

  @BeforeEach
  void resetModel() {
    model.reset();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS n FROM customers"));
  }

  String prompt() {
    return FakeModelServer.allText(model.requests().get(0).body());
  }

  @Test
  void aNameInLowerCaseBringsCustomersIntoThePromptAsStored() throws Exception {
    SelectedTables selected = SelectedTables.of(service.vertx, service.ask("How much has pooja patil spent with us in total?"));
    assertThat(selected.table("customers").getString("value_link")).isEqualTo("'pooja patil' = customers.display_name");
    // added on top of the similarity picks: by similarity alone it was not chosen
    assertThat(selected.similarityPicks()).isEqualTo(selected.topK());
    assertThat(selected.valueLinks()).containsExactly("customers: 'pooja patil' = customers.display_name");
    assertThat(prompt()).contains("CREATE TABLE customers (")
        .contains("-- 'pooja patil' → customers.display_name = 'Pooja Patil'");
  }

  @Test
  void aNameWithATypoFindsTheWholeNameNotTwoOthersWordByWord() throws Exception {
    SelectedTables selected = SelectedTables.of(service.vertx, service.ask("How much has Suresh Kulkarny spent in total?"));
    assertThat(selected.table("customers").getString("value_link"))
        .isEqualTo("'Suresh Kulkarny' ≈ customers.display_name 'Suresh Kulkarni'");
    assertThat(selected.valueLinks()).containsExactly(
        "customers: 'Suresh Kulkarny' ≈ customers.display_name 'Suresh Kulkarni'");
    assertThat(prompt()).contains("CREATE TABLE customers (")
        .contains("-- 'Suresh Kulkarny' → customers.display_name = 'Suresh Kulkarni'")
        .doesNotContain("'Suresh Bhosale'").doesNotContain("'Kulkarni Builders'");
  }

  @Test
  void aValueOfAMixedCaseTableLinksItQuotedAsSqlWritesIt() throws Exception {
    SelectedTables selected = SelectedTables.of(service.vertx, service.ask("How much has meena joshi spent in total?"));
    assertThat(selected.table("sales.\"Staff\"").getString("value_link"))
        .isEqualTo("'meena joshi' = sales.\"Staff\".\"StaffName\"");
    assertThat(prompt()).contains("CREATE TABLE sales.\"Staff\" (")
        .contains("-- 'meena joshi' → sales.\"Staff\".\"StaffName\" = 'Meena Joshi'");
  }
}
