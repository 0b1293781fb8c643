package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The model's context read from a real HTTP server where it says: llama.cpp's /props, else /v1/models. */
class ModelContextTest {

  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A server answering GET path → body (anything else 404); its /v1 base URL. */
  static String serve(Map<String, JsonObject> routes) throws Exception {
    HttpServer server = vertx.createHttpServer().requestHandler(req -> {
      JsonObject body = routes.get(req.path());
      if (body == null) req.response().setStatusCode(404).end("{\"error\": \"not found\"}");
      else req.response().putHeader("content-type", "application/json").end(body.encode());
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return "http://127.0.0.1:" + server.actualPort() + "/v1";
  }

  static Integer probe(String base, String model) throws Exception {
    return ModelContext.probe(vertx, base, model, null, 5_000).await(10, TimeUnit.SECONDS);
  }

  @Test
  void llamaCppsPropsAtTheServersRootComesFirst() throws Exception {
    String base = serve(Map.of(
        "/props", new JsonObject().put("default_generation_settings", new JsonObject().put("n_ctx", 4096)),
        "/v1/models", models("local", new JsonObject().put("n_ctx_train", 32768))));
    assertThat(probe(base, "local")).isEqualTo(4096);
  }

  @Test
  void withoutPropsTheModelsEntryOfTheConfiguredModelSays() throws Exception {
    JsonObject list = new JsonObject().put("object", "list").put("data", new JsonArray()
        .add(new JsonObject().put("id", "other").put("meta", new JsonObject().put("n_ctx", 1024)))
        .add(new JsonObject().put("id", "mine").put("meta", new JsonObject().put("n_ctx", 8192).put("n_ctx_train", 32768))));
    assertThat(probe(serve(Map.of("/v1/models", list)), "mine")).isEqualTo(8192);
    assertThat(probe(serve(Map.of("/v1/models", models("m", new JsonObject().put("n_ctx_train", 2048)))), "m"))
        .isEqualTo(2048);
  }

  @Test
  void aServerThatSaysNothingOrIsNotThereLeavesItUnknown() throws Exception {
    assertThat(probe(serve(Map.of("/v1/models", models("m", null))), "m")).isNull();
    assertThat(probe("http://127.0.0.1:1/v1", "m")).isNull();
  }

  static JsonObject models(String id, JsonObject meta) {
    JsonObject m = new JsonObject().put("id", id).put("object", "model");
    if (meta != null) m.put("meta", meta);
    return new JsonObject().put("object", "list").put("data", new JsonArray().add(m));
  }
}
