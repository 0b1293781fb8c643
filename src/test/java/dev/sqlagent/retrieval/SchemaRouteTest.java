package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.db.Setup;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** GET /api/schema over real HTTP on the whole service. */
class SchemaRouteTest {

  static Vertx vertx;
  static MainVerticle main;

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    main = new MainVerticle(db.config(Map.of()), db.target());
    vertx.deployVerticle(main).await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  void schemaListsTheShopTablesWithNotesAndRowCounts() throws Exception {
    var resp = WebClient.create(vertx).get(main.httpPort(), "127.0.0.1", "/api/schema").as(BodyCodec.jsonObject())
        .send().await(30, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.getHeader("content-type")).startsWith("application/json");
    var tables = resp.body().getJsonArray("tables").stream().map(o -> (JsonObject) o).toList();
    assertThat(tables).extracting(t -> t.getString("name")).containsExactlyInAnyOrderElementsOf(Setup.SHOP_TABLES);
    assertThat(tables).allSatisfy(t -> {
      assertThat(t.getString("note")).isNotBlank();
      assertThat(t.getLong("row_count")).isNotNull();
      assertThat(t.getJsonArray("columns")).isNotEmpty();
    });
    JsonObject settings = tables.stream().filter(t -> t.getString("name").equals("store_settings")).findFirst().orElseThrow();
    assertThat(settings.getString("note")).contains("no business data");
  }
}
