package dev.sqlagent.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.RunningService;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whole service starts on the real database and answers over real HTTP. */
class ServiceStartTest {

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
  void livenessAnswers() throws Exception {
    var resp = service.client.get(service.port(), "127.0.0.1", "/health").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.body()).isEqualTo(new JsonObject().put("status", "UP"));
  }

  @Test
  void theGraphsNodesAreServedInOrder() throws Exception {
    var resp = service.client.get(service.port(), "127.0.0.1", "/api/graph").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.body().getJsonArray("nodes").stream().map(n -> ((JsonObject) n).getString("name")).toList())
        .containsExactlyElementsOf(java.util.Arrays.stream(dev.sqlagent.contract.Node.values())
            .map(dev.sqlagent.contract.Node::wireName).toList())
        .contains("select_schema", "generate_sql", "validate_sql", "execute_sql", "give_up");
  }

  @Test
  void unknownRouteIsAStructured404() throws Exception {
    var resp = service.client.get(service.port(), "127.0.0.1", "/nope").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(404);
    assertThat(resp.body().getString("error_type")).isEqualTo("not_found");
  }

  @Test
  void getOnAPostOnlyRouteIsA405WithAllowPost() throws Exception {
    for (String path : new String[] {"/api/ask", "/api/query", "/api/schema/refresh"}) {
      var resp = service.client.get(service.port(), "127.0.0.1", path).as(BodyCodec.jsonObject())
          .send().await(10, TimeUnit.SECONDS);
      assertThat(resp.statusCode()).as(path).isEqualTo(405);
      assertThat(resp.getHeader("Allow")).as(path).isEqualTo("POST");
      assertThat(resp.body().getBoolean("ok")).isFalse();
      assertThat(resp.body().getString("error_type")).isEqualTo("method_not_allowed");
    }
    // POST still reaches the route (an empty body is the client's mistake, not a 405).
    var post = service.client.post(service.port(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
        .sendJsonObject(new JsonObject()).await(10, TimeUnit.SECONDS);
    assertThat(post.statusCode()).isNotEqualTo(405).isNotEqualTo(404);
  }

  @Test
  void theFaviconIsServedAndLinkedFromBothPages() throws Exception {
    for (String path : new String[] {"/favicon.svg", "/favicon.ico"}) {
      var icon = service.client.get(service.port(), "127.0.0.1", path).send().await(10, TimeUnit.SECONDS);
      assertThat(icon.statusCode()).as(path).isEqualTo(200);
      assertThat(icon.getHeader("content-type")).as(path).startsWith("image/svg+xml");
      assertThat(icon.bodyAsString()).as(path).startsWith("<svg");
    }
    for (String page : new String[] {"/", "/watch.html"}) {
      var html = service.client.get(service.port(), "127.0.0.1", page).send().await(10, TimeUnit.SECONDS);
      assertThat(html.bodyAsString()).as(page).contains("<link rel=\"icon\" href=\"favicon.svg\"");
    }
  }
}
