package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.codec.BodyCodec;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** GET /api/schema and POST /api/schema/refresh over real HTTP on the whole service. */
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
    assertThat(resp.body().getString("database")).isEqualTo("shop");
  }

  /** A table added after start is unknown until a refresh re-discovers it; then retrieval, the gate and the schema know it. */
  @Test
  void refreshRediscoversTheTargetAndTheGateFollows() throws Exception {
    String sql = "SELECT count(*) AS n FROM delivery_slots";
    try {
      admin("CREATE TABLE delivery_slots (slot_id int PRIMARY KEY, starts_at time)",
          "COMMENT ON TABLE delivery_slots IS 'Delivery windows offered to customers.'",
          "INSERT INTO delivery_slots VALUES (1, '09:00'), (2, '14:00')");
      assertThat(names()).doesNotContain("delivery_slots");
      var refreshed = service.client.post(service.port(), "127.0.0.1", "/api/schema/refresh")
          .putHeader("content-type", "application/json").as(BodyCodec.jsonObject())
          .sendJsonObject(new JsonObject()).await(120, TimeUnit.SECONDS);
      assertThat(refreshed.statusCode()).as(refreshed.bodyAsString()).isEqualTo(200);
      assertThat(refreshed.body().getBoolean("built")).isTrue();
      assertThat(refreshed.body().getInteger("tables")).isEqualTo(DemoShop.SHOP_TABLES.size() + 1);
      assertThat(names()).contains("delivery_slots");
      JsonObject ran = query(sql);
      assertThat(ran.getBoolean("ok")).as(ran.encode()).isTrue();
      assertThat(ran.getJsonArray("rows").getJsonArray(0).getLong(0)).isEqualTo(2L);
    } finally {
      admin("DROP TABLE IF EXISTS delivery_slots");
      service.client.post(service.port(), "127.0.0.1", "/api/schema/refresh").putHeader("content-type", "application/json")
          .sendJsonObject(new JsonObject()).await(120, TimeUnit.SECONDS);
    }
    assertThat(names()).doesNotContain("delivery_slots");
  }

  private static java.util.List<String> names() throws Exception {
    return service.client.get(service.port(), "127.0.0.1", "/api/schema").as(BodyCodec.jsonObject()).send()
        .await(30, TimeUnit.SECONDS).body().getJsonArray("tables").stream().map(o -> ((JsonObject) o).getString("name")).toList();
  }

  private static JsonObject query(String sql) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", "/api/query").as(BodyCodec.jsonObject())
        .sendJsonObject(new JsonObject().put("sql", sql)).await(30, TimeUnit.SECONDS).body();
  }

  private static void admin(String... statements) throws Exception {
    try (var c = TestDatabase.get().shopAdmin(); var s = c.createStatement()) {
      for (String q : statements) s.execute(q);
    }
  }
}
