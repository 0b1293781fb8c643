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
  void unknownRouteIsAStructured404() throws Exception {
    var resp = service.client.get(service.port(), "127.0.0.1", "/nope").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS);
    assertThat(resp.statusCode()).isEqualTo(404);
    assertThat(resp.body().getString("error_type")).isEqualTo("not_found");
  }
}
