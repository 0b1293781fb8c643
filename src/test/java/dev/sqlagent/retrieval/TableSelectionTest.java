package dev.sqlagent.retrieval;

import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.Catalogue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Table selection by embedding similarity over the real shop catalogue and the real model. */
class TableSelectionTest {

  static Vertx vertx;
  static Catalogue catalogue;
  static TableSelector selector;

  @BeforeAll
  static void load() throws Exception {
    vertx = Vertx.vertx();
    Pool pool = PgBuilder.pool().connectingTo(TestDatabase.get().target().roOptions()).using(vertx).build();
    catalogue = TableNotes.fromResource(DemoShop.NOTES_RESOURCE).annotate(new Discovery(pool, java.util.List.of()).read().await(30, TimeUnit.SECONDS));
    selector = new TableSelector();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  private static List<ScoredTable> top(String question, int k) {
    List<ScoredTable> chosen = selector.select(catalogue, question, k);
    System.err.println("Q: " + question);
    chosen.forEach(s -> System.err.printf("   %-20s %.4f%n", s.name(), s.score()));
    return chosen;
  }

  private static List<String> names(List<ScoredTable> tables) {
    return tables.stream().map(ScoredTable::name).toList();
  }

  @Test
  void revenueIn2023FindsTheArchive() {
    assertThat(names(top("What was the total revenue in 2023?", 5))).contains("bill_archive");
  }

  @Test
  void inactiveSupplierPutsSuppliersFirst() {
    assertThat(top("Which supplier is inactive?", 5).get(0).name()).isEqualTo("suppliers");
  }

  @Test
  void stockLostToTheftFindsAdjustments() {
    assertThat(names(top("How much stock was lost to theft?", 5))).contains("stock_adjustments");
  }

  @Test
  void billedVersusCollectedFindsBillsAndPayments() {
    assertThat(names(top("How much was billed versus collected in March 2025?", 5)))
        .contains("bills", "payments");
  }

  @Test
  void salesByCategoryFindsTheWholeJoinPath() {
    assertThat(names(top("Revenue by product category in 2025", 5)))
        .contains("bills", "bill_items", "products", "categories");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "What was the total revenue in 2023?",
      "Which supplier is inactive?",
      "How much stock was lost to theft?",
      "Top 5 customers by amount billed last year",
      "Which products are below their reorder level?",
      "Which cashier made the most sales in 2025?",
      "How many purchase orders are still open?",
      "Average discount per bill by month",
      "Which employees report to the owner?",
      "How much did we pay suppliers for cement deliveries?"})
  void storeSettingsIsNeverPickedForABusinessQuestion(String question) {
    assertThat(names(top(question, 5))).doesNotContain("store_settings");
  }

  @Test
  void widenedSelectionHasNineBestFirst() {
    List<ScoredTable> narrow = top("What was the total revenue in 2023?", 5);
    List<ScoredTable> wide = top("What was the total revenue in 2023?", 9);
    assertThat(wide).hasSize(9).startsWith(narrow.toArray(ScoredTable[]::new));
    assertThat(wide).isSortedAccordingTo((a, b) -> Double.compare(b.score(), a.score()));
  }

  @Test
  void scoresAreCosineSimilaritiesOfEveryTable() {
    List<ScoredTable> ranked = selector.rank(catalogue, "Which supplier is inactive?");
    assertThat(names(ranked)).containsExactlyInAnyOrderElementsOf(catalogue.names());
    assertThat(ranked).allSatisfy(s -> assertThat(s.score()).isBetween(-1.0, 1.0));
  }
}
