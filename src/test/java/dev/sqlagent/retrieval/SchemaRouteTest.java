package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.codec.BodyCodec;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** GET /api/schema over real HTTP on the whole service. */
class SchemaRouteTest {

  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
  }

  @Test
  void schemaListsTheShopTablesWithNotesAndRowCounts() throws Exception {
    var resp = service.client.get(service.port(), "127.0.0.1", "/api/schema").as(BodyCodec.jsonObject())
        .send().await(30, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.getHeader("content-type")).startsWith("application/json");
    var tables = resp.body().getJsonArray("tables").stream().map(o -> (JsonObject) o).toList();
    assertThat(tables).extracting(t -> t.getString("name")).containsExactlyInAnyOrderElementsOf(DemoShop.SHOP_TABLES);
    assertThat(tables).allSatisfy(t -> {
      assertThat(t.getString("note")).isNotBlank();
      assertThat(t.getLong("row_count")).isNotNull();
      assertThat(t.getJsonArray("columns")).isNotEmpty();
    });
    JsonObject settings = tables.stream().filter(t -> t.getString("name").equals("store_settings")).findFirst().orElseThrow();
    assertThat(settings.getString("note")).contains("no business data");
  }
}
