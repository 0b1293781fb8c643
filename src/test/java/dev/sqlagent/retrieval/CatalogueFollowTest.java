package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.RetrievalMessages.SchemaRequest;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Retrieval follows the process's catalogue: a new version read for any reason (not only a schema refresh sent
 * to retrieval; the gate may ask for one) is embedded when retrieval sees its news, and a version of the same
 * shape is taken without rebuilding the index.
 */
class CatalogueFollowTest {

  static Vertx vertx;
  static Target copy;
  static CatalogueHolder catalogue;

  @BeforeAll
  static void deploy() throws Exception {
    copy = DatabaseCopy.of("catalogue_follow");
    admin("DROP TABLE IF EXISTS public.follow_probe");
    vertx = Vertx.vertx();
    catalogue = CatalogueHolder.open(vertx, copy, List.of());
    vertx.deployVerticle(new RetrievalVerticle(copy, dev.sqlagent.state.StateDatabase.open(vertx, TestDatabase.get().state(), 2), TestDatabase.get().config(Map.of()), null,
        catalogue)).await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
    admin("DROP TABLE IF EXISTS public.follow_probe");
  }

  static void admin(String... statements) throws Exception {
    DatabaseCopy.exec(copy, statements);
  }

  static IndexStatus status() throws Exception {
    return new RetrievalClient(vertx, 30_000).status().await(30, TimeUnit.SECONDS);
  }

  static List<String> schemaNames() throws Exception {
    return new RetrievalClient(vertx, 30_000).tables(new SchemaRequest(null)).await(30, TimeUnit.SECONDS)
        .tables().stream().map(TableInfo::name).toList();
  }

  static IndexStatus builtFrom(long version) throws Exception {
    long until = System.currentTimeMillis() + 60_000;
    IndexStatus s = status();
    while (System.currentTimeMillis() < until) {
      s = status();
      if (s.built() && s.catalogue().version() == version) return s;
      Thread.sleep(50);
    }
    throw new AssertionError("the index was not built from catalogue version " + version + ": " + s.toJson().encode());
  }

  @Test
  void aNewVersionIsEmbeddedAndOneOfTheSameShapeIsOnlyTaken() throws Exception {
    IndexStatus first = builtFrom(catalogue.snapshot().version());
    admin("CREATE TABLE public.follow_probe (probe_id int PRIMARY KEY, label text)",
        "GRANT SELECT ON public.follow_probe TO " + copy.role());
    CatalogueSnapshot added = catalogue.refresh().await(30, TimeUnit.SECONDS);
    IndexStatus rebuilt = builtFrom(added.version());
    assertThat(rebuilt.tables()).isEqualTo(first.tables() + 1);
    assertThat(rebuilt.builtAt()).isNotEqualTo(first.builtAt());
    assertThat(schemaNames()).contains("follow_probe");

    CatalogueSnapshot same = catalogue.refresh().await(30, TimeUnit.SECONDS);
    assertThat(same.fingerprint()).isEqualTo(added.fingerprint());
    Thread.sleep(500);  // its news has reached retrieval by now
    IndexStatus after = status();
    assertThat(after.builtAt()).as("no rebuild for the same shape").isEqualTo(rebuilt.builtAt());
    assertThat(after.catalogue().version()).isEqualTo(added.version());
  }
}
