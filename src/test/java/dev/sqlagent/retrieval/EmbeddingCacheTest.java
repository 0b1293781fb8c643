package dev.sqlagent.retrieval;

import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.state.StateDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.state.StateStore;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The persistent embedding index: the state store's embedding_cache, keyed by model and document SHA-256. */
class EmbeddingCacheTest {

  private static Catalogue catalogue(String tag, String ordersComment) {
    return Catalogue.of(List.of(
        TableInfo.of(tag + "_orders", ordersComment, 10L, List.of(TableInfo.Column.of("id", "int", false, null),
            TableInfo.Column.of("placed_at", "timestamptz", true, "when the customer ordered")), List.of("id"), List.of()),
        TableInfo.of(tag + "_parcels", "Shipments on their way", 10L, List.of(TableInfo.Column.of("id", "int", false, null),
            TableInfo.Column.of("carrier", "text", true, null)), List.of("id"), List.of()),
        TableInfo.of(tag + "_staff", "People who work here", 10L, List.of(TableInfo.Column.of("id", "int", false, null),
            TableInfo.Column.of("salary", "numeric", true, null)), List.of("id"), List.of())));
  }

  @Test
  void aRestartLoadsEveryVectorAndEmbedsOnlyWhatChanged() throws Exception {
    StateStore state = TestDatabase.get().state();
    Vertx vertx = Vertx.vertx();
    EmbeddingStore store = new EmbeddingRepository(StateDatabase.open(vertx, state, 1).owner());
    String tag = "t" + UUID.randomUUID().toString().substring(0, 8);
    Catalogue cat = catalogue(tag, "Orders customers placed");

    TableSelector first = new TableSelector(new ConcurrentHashMap<>(), store);
    TableSelector.IndexStats cold = first.index(cat);
    assertThat(cold).extracting("documents", "inMemory", "loaded", "embedded").containsExactly(3, 0, 0, 3);
    assertThat(first.index(cat)).extracting("inMemory", "loaded", "embedded").containsExactly(3, 0, 0);

    // A fresh JVM's memory (a restart): all three come from the store, none is embedded, the ranking is the same.
    TableSelector second = new TableSelector(new ConcurrentHashMap<>(), store);
    TableSelector.IndexStats warm = second.index(cat);
    assertThat(warm).extracting("documents", "inMemory", "loaded", "embedded").containsExactly(3, 0, 3, 0);
    assertThat(second.rank(cat, "Which carrier has the most parcels?"))
        .isEqualTo(first.rank(cat, "Which carrier has the most parcels?"));

    // One table's COMMENT changed: only its document is embedded again.
    Catalogue changed = catalogue(tag, "Orders customers placed, cancelled ones included");
    TableSelector third = new TableSelector(new ConcurrentHashMap<>(), store);
    assertThat(third.index(changed)).extracting("loaded", "embedded").containsExactly(2, 1);

    // The rows: keyed by the model and the SHA-256 of the exact document, 384 dimensions.
    try (Connection c = state.ownerConnection();
         PreparedStatement ps = c.prepareStatement(
             "SELECT array_length(vector, 1) FROM embedding_cache WHERE model = ? AND document_sha256 = ?")) {
      ps.setString(1, TableSelector.MODEL);
      ps.setString(2, TableSelector.sha256(TableSelector.document(cat.tables().get(1))));
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(384);
      }
    }
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  void aBrokenStoreMeansEmbeddingAgainNotNoRetrieval() {
    EmbeddingStore broken = new EmbeddingStore() {
      @Override
      public Map<String, float[]> load(String model, Collection<String> sha256s) throws Exception {
        throw new java.sql.SQLException("connection refused");
      }

      @Override
      public int save(String model, Map<String, float[]> vectors) throws Exception {
        throw new java.sql.SQLException("connection refused");
      }
    };
    Catalogue cat = catalogue("b" + UUID.randomUUID().toString().substring(0, 8), "Orders");
    TableSelector s = new TableSelector(new ConcurrentHashMap<>(), broken);
    assertThat(s.index(cat)).extracting("loaded", "embedded").containsExactly(0, 3);
    assertThat(s.select(cat, "parcels by carrier", 1).get(0).name()).endsWith("_parcels");
  }

  @Test
  void aRestartedRetrievalVerticleEmbedsNothing() throws Exception {
    TestDatabase db = TestDatabase.get();
    Vertx vertx = Vertx.vertx();
    try {
      TableSelector.forgetEmbeddedDocuments();
      JsonObject first = deployAndBuild(vertx, db);
      assertThat(first.getInteger("documents")).isPositive();
      TableSelector.forgetEmbeddedDocuments();  // what a new process would not have
      JsonObject second = deployAndBuild(vertx, db);
      assertThat(second.getInteger("embedded")).isZero();
      assertThat(second.getInteger("in_memory")).isZero();
      assertThat(second.getInteger("loaded")).isEqualTo(first.getInteger("documents"));
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  /** Deploys a RetrievalVerticle, waits for its index, undeploys it; returns what the build reported. */
  private static JsonObject deployAndBuild(Vertx vertx, TestDatabase db) throws Exception {
    String id = vertx.deployVerticle(new RetrievalVerticle(db.target(), StateDatabase.open(vertx, db.state(), 2), db.config(java.util.Map.of())), new DeploymentOptions())
        .await(120, TimeUnit.SECONDS);
    new RetrievalClient(vertx, 60_000).retrieve(new Retrieval.Request("How many bills were paid?", false)).await(120, TimeUnit.SECONDS);
    IndexStatus status = new RetrievalClient(vertx, 30_000).status().await(30, TimeUnit.SECONDS);
    vertx.undeploy(id).await(30, TimeUnit.SECONDS);
    assertThat(status.built()).isTrue();
    return status.lastBuild();
  }
}
