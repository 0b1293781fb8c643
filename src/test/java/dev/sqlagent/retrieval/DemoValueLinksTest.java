package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.SelectedTables;
import dev.sqlagent.testing.StoredValuesReady;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demo shop loaded as a plain database, without its notes file, as a new user would try it: a customer's name
 * in lower case, or with a typo, brings {@code customers} into the prompt though nothing else in the question
 * resembles it, the model reads the name as stored, and the select_schema event says why.
 */
class DemoValueLinksTest {

  static FakeModelServer model;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    Target demo = TestDatabase.get().target();
    service = RunningService.on(new Target(demo.url(), false, false, null), model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
    StoredValuesReady.await(service.vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    if (model != null) model.close();
  }

  @BeforeEach
  void resetModel() {
    model.reset();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS n FROM customers"));
  }

  static int stored(String table, String column, String value) throws Exception {
    try (Connection c = TestDatabase.get().target().roConnection();
         PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE " + column + " = ?")) {
      ps.setString(1, value);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  static JsonObject ask(String question) throws Exception {
    return new AgentClient(service.vertx, 60_000).ask(AskRequest.of(question, null)).await(70, TimeUnit.SECONDS).toJson();
  }

  @Test
  void aNameInLowerCaseBringsItsTableIntoThePromptAsStored() throws Exception {
    assertThat(stored("customers", "cust_name", "Pooja Patil")).isEqualTo(1);
    SelectedTables selected = SelectedTables.of(service.vertx, ask("How much has pooja patil spent with us in total?"));
    assertThat(selected.table("customers").getString("value_link")).isEqualTo("'pooja patil' = customers.cust_name");
    // added on top of the similarity picks: by similarity alone it was not chosen
    assertThat(selected.similarityPicks()).isEqualTo(selected.topK());
    // the old till's flattened bills hold customer names too
    assertThat(selected.valueLinks()).contains("customers: 'pooja patil' = customers.cust_name");
    String prompt = FakeModelServer.allText(model.requests().get(0).body());
    assertThat(prompt).contains("CREATE TABLE customers (")
        .containsPattern("-- 'pooja patil' → .*customers\\.cust_name = 'Pooja Patil'");
  }

  @Test
  void aNameWithATypoFindsTheWholeNameNotTwoOthersWordByWord() throws Exception {
    assertThat(stored("customers", "cust_name", "Suresh Kulkarni")).isEqualTo(1);
    SelectedTables selected = SelectedTables.of(service.vertx, ask("How many bills does Suresh Kulkarny have?"));
    assertThat(selected.table("customers").getString("value_link"))
        .isEqualTo("'Suresh Kulkarny' ≈ customers.cust_name 'Suresh Kulkarni'");
    String prompt = FakeModelServer.allText(model.requests().get(0).body());
    assertThat(prompt).contains("CREATE TABLE customers (")
        .containsPattern("-- 'Suresh Kulkarny' → .*customers\\.cust_name = 'Suresh Kulkarni'")
        .doesNotContain("→ employees.emp_name = 'Suresh")
        .doesNotContain("Kulkarni Builders'");
  }

  @Test
  void aQuestionNamingNoStoredValueLinksNothing() throws Exception {
    SelectedTables selected = SelectedTables.of(service.vertx, ask("How many bills were there in total?"));
    assertThat(selected.valueLinks()).isEmpty();
    assertThat(selected.tables()).noneMatch(t -> t.containsKey("value_link"));
  }
}
