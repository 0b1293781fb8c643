package dev.sqlagent.retrieval;

import dev.sqlagent.contract.LearnedMessages;
import dev.sqlagent.contract.ScoredTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Join-path completion over small foreign-key graphs, and the adaptive number of tables offered. */
class JoinPathsTest {

  /** A table with an id and one foreign key per referenced table. */
  private static TableInfo table(String name, String... refs) {
    List<TableInfo.Column> cols = new ArrayList<>(List.of(TableInfo.Column.of("id", "integer", false, null)));
    List<TableInfo.ForeignKey> fks = new ArrayList<>();
    for (String r : refs) {
      String col = r.replaceAll("^.*\\.", "") + "_id";
      cols.add(TableInfo.Column.of(col, "integer", false, null));
      fks.add(new TableInfo.ForeignKey(List.of(col), r, List.of("id")));
    }
    return TableInfo.of(name, null, 10L, cols, List.of("id"), fks);
  }

  /** MusicBrainz's shape: an artist reaches a release group only through the credit tables. */
  private static final Catalogue MUSIC = Catalogue.of(List.of(
      table("artist", "area"),
      table("area"),
      table("artist_credit"),
      table("artist_credit_name", "artist_credit", "artist"),
      table("release_group", "artist_credit"),
      table("release", "release_group", "artist_credit"),
      table("recording", "artist_credit"),
      table("label", "area")));

  private static List<ScoredTable> scored(String... names) {
    List<ScoredTable> out = new ArrayList<>();
    for (int i = 0; i < names.length; i++) out.add(new ScoredTable(names[i], 0.9 - i * 0.01));
    return out;
  }

  private static List<String> names(List<ScoredTable> tables) {
    return tables.stream().map(ScoredTable::name).toList();
  }

  @Test
  void artistAndReleaseGroupBringTheCreditTablesThatLinkThem() {
    List<ScoredTable> chosen = scored("artist", "release_group");
    List<ScoredTable> done = JoinPaths.complete(JoinPaths.graph(MUSIC), chosen, chosen, 4);
    assertThat(names(done)).containsExactly("artist", "release_group", "artist_credit_name", "artist_credit");
    assertThat(done.subList(0, 2)).allSatisfy(t -> assertThat(t.via()).isNull());
    assertThat(done.get(2).via()).isEqualTo("join path: artist - artist_credit_name - artist_credit - release_group");
    assertThat(done.get(2).toJson().getString("via")).startsWith("join path: ");
    assertThat(ScoredTable.fromJson(done.get(3).toJson())).isEqualTo(new ScoredTable("artist_credit", 0.0, done.get(3).via()));
  }

  @Test
  void alreadyConnectedChoicesGetNothing() {
    List<ScoredTable> chosen = scored("release", "release_group", "artist_credit");
    assertThat(JoinPaths.complete(JoinPaths.graph(MUSIC), chosen, chosen, 4)).isEqualTo(chosen);
    assertThat(JoinPaths.complete(JoinPaths.graph(MUSIC), scored("artist", "release_group"), List.of(), 0))
        .extracting(ScoredTable::name).containsExactly("artist", "release_group");
  }

  @Test
  void aChosenTableInTheMiddleIsNotAddedTwice() {
    // artist -> artist_credit_name is chosen, so only artist_credit is missing to reach release_group.
    List<ScoredTable> chosen = scored("artist", "release_group", "artist_credit_name");
    List<ScoredTable> done = JoinPaths.complete(JoinPaths.graph(MUSIC), chosen, chosen, 4);
    assertThat(names(done)).containsExactly("artist", "release_group", "artist_credit_name", "artist_credit");
  }

  @Test
  void pathsLongerThanThreeHopsAreNotFollowed() {
    // label - area - artist - artist_credit_name - artist_credit: 4 hops.
    List<ScoredTable> chosen = scored("label", "artist_credit");
    assertThat(JoinPaths.complete(JoinPaths.graph(MUSIC), chosen, chosen, 4)).isEqualTo(chosen);
    assertThat(JoinPaths.shortestPath(JoinPaths.graph(MUSIC), "label", "artist_credit", Map.of())).isNull();
    assertThat(JoinPaths.shortestPath(JoinPaths.graph(MUSIC), "label", "artist", Map.of()))
        .containsExactly("label", "area", "artist");
  }

  @Test
  void amongEquallyShortPathsTheMoreRelevantIntermediateWins() {
    Catalogue shop = Catalogue.of(List.of(
        table("customers"), table("products"),
        table("bills", "customers"), table("bill_items", "bills", "products"),
        table("returns", "customers", "products"), table("wishlists", "customers", "products")));
    Map<String, Set<String>> g = JoinPaths.graph(shop);
    List<ScoredTable> chosen = scored("customers", "products");
    // Two 2-hop paths (returns, wishlists) and a 3-hop one (bills, bill_items): the shorter, more relevant one.
    List<ScoredTable> ranked = List.of(new ScoredTable("customers", 0.9), new ScoredTable("products", 0.8),
        new ScoredTable("wishlists", 0.7), new ScoredTable("bills", 0.6), new ScoredTable("bill_items", 0.5),
        new ScoredTable("returns", 0.1));
    List<ScoredTable> done = JoinPaths.complete(g, chosen, ranked, 4);
    assertThat(names(done)).containsExactly("customers", "products", "wishlists");
    assertThat(done.get(2).score()).isEqualTo(0.7);
  }

  @Test
  void aHubDoesNotFloodTheChoiceAndTheCapHolds() {
    // Ten leaves all hang off one hub: choosing four leaves adds the hub once (it connects all of them).
    List<TableInfo> tables = new ArrayList<>(List.of(table("hub")));
    for (int i = 0; i < 10; i++) tables.add(table("leaf" + i, "hub"));
    Map<String, Set<String>> g = JoinPaths.graph(Catalogue.of(tables));
    List<ScoredTable> chosen = scored("leaf1", "leaf2", "leaf3", "leaf4");
    assertThat(names(JoinPaths.complete(g, chosen, chosen, 2))).containsExactly("leaf1", "leaf2", "leaf3", "leaf4", "hub");

    // Four separate chains of two hops each would need four linking tables; the cap of 2 stops at two.
    List<TableInfo> chains = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      chains.add(table("a" + i));
      chains.add(table("b" + i));
      chains.add(table("link" + i, "a" + i, "b" + i));
    }
    List<ScoredTable> pairs = scored("a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3");
    List<ScoredTable> done = JoinPaths.complete(JoinPaths.graph(Catalogue.of(chains)), pairs, pairs, 2);
    assertThat(done).hasSize(10);
    assertThat(names(done).subList(8, 10)).containsExactly("link0", "link1");
  }

  @Test
  void selfReferencesAndUnknownTablesAreNotEdges() {
    Catalogue c = Catalogue.of(List.of(table("employees", "employees", "gone.elsewhere")));
    assertThat(JoinPaths.graph(c)).isEmpty();
  }

  @Test
  void theNumberOfTablesGrowsSlowlyWithTheSchema() {
    assertThat(TableChoice.topK(12, false)).isEqualTo(5);
    assertThat(TableChoice.topK(30, false)).isEqualTo(5);
    assertThat(TableChoice.topK(30, true)).isEqualTo(9);
    assertThat(TableChoice.topK(60, false)).isEqualTo(7);
    assertThat(TableChoice.topK(100, false)).isEqualTo(8);
    assertThat(TableChoice.topK(300, false)).isEqualTo(12);
    assertThat(TableChoice.topK(1000, false)).isEqualTo(12);
    assertThat(TableChoice.topK(50_000, false)).isEqualTo(12);
    assertThat(TableChoice.topK(1000, true)).isEqualTo(16);
    for (int n = 1; n < 5000; n++) {
      assertThat(TableChoice.topK(n + 1, false)).isGreaterThanOrEqualTo(TableChoice.topK(n, false));
    }
    assertThat(JoinPaths.maxAdded(5)).isEqualTo(2);
    assertThat(TableChoice.joinTables(15, 5)).isZero();  // the demo's size: the top 5 hold the joins
    assertThat(TableChoice.joinTables(31, 5)).isEqualTo(2);
    assertThat(TableChoice.joinTables(1000, 12)).isEqualTo(6);
    assertThat(JoinPaths.maxAdded(12)).isEqualTo(6);
  }

  /** The music schema with every foreign key dropped: the columns stay, the keys are gone. */
  private static Catalogue withoutKeys(Catalogue c) {
    return Catalogue.of(c.tables().stream().map(t -> TableInfo.of(t.name(), null, 10L, t.columns(), t.primaryKey(),
        List.of())).toList());
  }

  private static LearnedMessages.Join learned(String t, String c, String rt, String rc, long count) {
    return new LearnedMessages.Join(t, c, rt, rc, count, null,
        List.of(new LearnedMessages.Evidence("pg_stat_statements", count, null)));
  }

  @Test
  void learnedJoinsCompleteWhatDroppedKeysNoLongerDo() {
    Catalogue bare = withoutKeys(MUSIC);
    List<ScoredTable> chosen = scored("artist", "release_group");
    assertThat(JoinPaths.complete(JoinPaths.graph(bare, List.of()), chosen, chosen, 4)).isEqualTo(chosen);
    List<LearnedMessages.Join> workload = List.of(
        learned("artist", "id", "artist_credit_name", "artist_id", 40),
        learned("artist_credit", "id", "artist_credit_name", "artist_credit_id", 35),
        learned("artist_credit", "id", "release_group", "artist_credit_id", 12),
        learned("gone_table", "id", "artist", "id", 99));  // a relation the catalogue no longer has: left out
    List<ScoredTable> done = JoinPaths.complete(JoinPaths.graph(bare, workload), chosen, chosen, 4);
    assertThat(names(done)).containsExactly("artist", "release_group", "artist_credit_name", "artist_credit");
    assertThat(done.get(2).via()).startsWith("join path: artist - artist_credit_name - artist_credit - release_group (learned: ")
        .contains("artist.id = artist_credit_name.artist_id, run 40 times", "artist_credit.id = release_group.artist_credit_id, run 12 times");
  }

  @Test
  void declaredKeysRankAboveLearnedJoins() {
    // The workload joins artist to release_group directly (one hop); the keys go through the credit tables.
    List<LearnedMessages.Join> workload = List.of(learned("artist", "id", "release_group", "artist_credit_id", 500));
    JoinPaths.Graph g = JoinPaths.graph(MUSIC, workload);
    assertThat(g.learned()).hasSize(1);
    List<ScoredTable> chosen = scored("artist", "release_group", "label");
    // connected by the learned edge already: nothing is added for that pair
    assertThat(names(JoinPaths.complete(g, chosen, chosen, 4))).containsExactly("artist", "release_group", "label", "area");
    // a pair the keys join is joined by the keys, even where an equally short learned path has likelier tables
    JoinPaths.Graph keysFirst = JoinPaths.graph(MUSIC, List.of(learned("area", "id", "recording", "id", 900),
        learned("artist_credit_name", "id", "recording", "id", 900), learned("label", "area_id", "area", "id", 1)));
    assertThat(keysFirst.learned()).hasSize(2);  // label-area is declared: the learned copy adds nothing
    List<ScoredTable> pair = scored("area", "artist_credit_name");
    List<ScoredTable> ranked = List.of(new ScoredTable("recording", 0.8), new ScoredTable("artist", 0.1));
    List<ScoredTable> done = JoinPaths.complete(keysFirst, pair, ranked, 4);
    assertThat(done.get(2).via()).isEqualTo("join path: area - artist - artist_credit_name");
  }
}
