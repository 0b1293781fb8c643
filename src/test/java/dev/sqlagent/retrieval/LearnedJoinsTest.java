package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.contract.LearnedMessages;
import dev.sqlagent.learn.Learner;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The joins the workload teaches, as retrieval uses them: the prompt names only those between offered tables that no
 * foreign key already declares, and the join graph is made again when the catalogue or what was learned changes,
 * never for each question.
 */
class LearnedJoinsTest {

  /** A table with an id and one foreign key per referenced table. */
  static TableInfo table(String name, String... refs) {
    List<TableInfo.Column> cols = new ArrayList<>(List.of(TableInfo.Column.of("id", "integer", false, null)));
    List<TableInfo.ForeignKey> fks = new ArrayList<>();
    for (String r : refs) {
      cols.add(TableInfo.Column.of(r + "_id", "integer", false, null));
      fks.add(new TableInfo.ForeignKey(List.of(r + "_id"), r, List.of("id")));
    }
    return TableInfo.of(name, null, 10L, cols, List.of("id"), fks);
  }

  static LearnedMessages.Join join(String table, String column, String refTable, long count) {
    return new LearnedMessages.Join(table, column, refTable, "id", count, null, List.of());
  }

  static final Catalogue SHOP = Catalogue.of(List.of(
      table("orders", "customers"), table("customers"), table("parcels"), table("couriers")));

  @Test
  void thePromptNamesTheUndeclaredJoinsBetweenOfferedTables() {
    List<LearnedMessages.Join> learned = List.of(
        join("parcels", "order_ref", "orders", 42),       // no key declares it: named
        join("orders", "customers_id", "customers", 7),   // the foreign key says it already
        join("customers", "id", "orders", 3),             // the same key, seen from the other side
        join("parcels", "courier_ref", "couriers", 5));   // couriers is not offered
    String text = LearnedJoins.promptText(learned, List.of("orders", "customers", "parcels"), SHOP);
    assertThat(text).isEqualTo("\n-- Joins this database's workload runs (learned; no foreign key declares them):\n"
        + "-- parcels.order_ref = orders.id (run 42 times)\n");
    assertThat(LearnedJoins.promptText(learned, List.of("orders", "customers"), SHOP)).isEmpty();
    assertThat(LearnedJoins.promptText(List.of(), List.of("orders", "parcels"), SHOP)).isEmpty();
  }

  @Test
  void theJoinGraphIsKeptUntilTheCatalogueOrWhatWasLearnedChanges() throws Exception {
    Vertx vertx = Vertx.vertx();
    TargetReader reader = TargetReader.open(vertx, TestDatabase.get().target(), new TargetReader.Timeouts(10_000, 1_000),
        1, "learned-joins-test");
    try {
      LearnedJoins joins = new LearnedJoins(vertx, new Learner(reader, null, TestDatabase.get().target().key()));
      JoinPaths.Graph graph = joins.graph(SHOP);
      assertThat(joins.graph(SHOP)).as("the same catalogue, nothing learned since").isSameAs(graph);
      Catalogue other = Catalogue.of(SHOP.tables());
      assertThat(joins.graph(other)).as("another catalogue").isNotSameAs(graph);
      JoinPaths.Graph forOther = joins.graph(other);

      LearnedMessages.Report before = joins.learned();
      LearnedMessages.Report report = joins.relearn(other).await(60, TimeUnit.SECONDS);
      assertThat(joins.learned()).isSameAs(report).isNotSameAs(before);
      assertThat(joins.graph(other)).as("learned again").isNotSameAs(forOther);
    } finally {
      reader.close().await(30, TimeUnit.SECONDS);
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}
