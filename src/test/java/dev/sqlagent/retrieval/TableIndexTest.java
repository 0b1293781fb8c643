package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.catalogue.CatalogueVersion;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.ScoredTable;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The embedding index: nothing is reported built before its first build, and a build is announced only once its
 * status (tables, version, what the build did) is set, so whoever the announcement tells reads the new status.
 */
class TableIndexTest {

  static TableInfo table(String name, String comment, String... columns) {
    return TableInfo.of(name, comment, 10L,
        java.util.Arrays.stream(columns).map(c -> TableInfo.Column.of(c, "text", true, null)).toList(),
        List.of(), List.of());
  }

  @Test
  void aBuildIsAnnouncedWithItsStatusSetAndQuestionsRankOverIt() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      List<Boolean> builtWhenAnnounced = new ArrayList<>();
      TableIndex[] index = new TableIndex[1];
      index[0] = new TableIndex(vertx, EmbeddingStore.NONE, () -> builtWhenAnnounced.add(index[0].built()));
      assertThat(index[0].built()).isFalse();
      assertThat(index[0].tables()).isZero();
      assertThat(index[0].builtAt()).isNull();
      assertThat(index[0].builtFrom()).isNull();
      assertThat(index[0].lastBuild()).isNull();

      Catalogue catalogue = Catalogue.of(List.of(
          table("suppliers", "Companies the shop buys its stock from.", "supplier_name", "phone"),
          table("invoices", "Invoices sent to customers.", "invoice_no", "total")));
      CatalogueVersion from = CatalogueSnapshot.of(catalogue).describe();
      index[0].loadModel();
      index[0].build(catalogue, from).await(300, TimeUnit.SECONDS);

      assertThat(builtWhenAnnounced).containsExactly(true);
      assertThat(index[0].ready().succeeded()).isTrue();
      assertThat(index[0].tables()).isEqualTo(2);
      assertThat(index[0].builtFrom()).isEqualTo(from);
      assertThat(index[0].builtAt()).isNotNull();
      JsonObject build = index[0].lastBuild();
      assertThat(build.getInteger("documents")).isEqualTo(2);
      assertThat(build.fieldNames()).contains("in_memory", "loaded", "embedded", "model_ms", "ready_ms");
      build.put("documents", 99);
      assertThat(index[0].lastBuild().getInteger("documents")).as("the status hands out copies").isEqualTo(2);

      List<ScoredTable> ranked = vertx.executeBlocking(
          () -> index[0].rank(catalogue, "Which companies do we buy stock from?"), false).await(120, TimeUnit.SECONDS);
      assertThat(ranked).extracting(ScoredTable::name).containsExactly("suppliers", "invoices");
      index[0].settled().await(30, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}
