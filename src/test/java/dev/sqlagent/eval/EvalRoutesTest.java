package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /api/eval/latest over real HTTP, mounted in the service's HttpVerticle. */
class EvalRoutesTest {

  @TempDir
  Path home;
  Vertx vertx;
  HttpVerticle http;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    http = new HttpVerticle();
    vertx.deployVerticle(http, new DeploymentOptions().setConfig(new JsonObject().put("httpPort", 0)
        .put("home", home.toString()))).await(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  HttpResponse<JsonObject> latest() throws Exception {
    return WebClient.create(vertx).get(http.actualPort(), "127.0.0.1", "/api/eval/latest").as(BodyCodec.jsonObject())
        .send().await(10, TimeUnit.SECONDS);
  }

  @Test
  void noRunYetIsAClear404() throws Exception {
    HttpResponse<JsonObject> r = latest();
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body().getString("error_type")).isEqualTo("not_found");
    assertThat(r.body().getString("message")).contains("sql-agent eval");
    Files.createDirectories(home.resolve("eval"));
    assertThat(latest().statusCode()).isEqualTo(404);
  }

  @Test
  void theNewestFinishedRunsSummaryIsServed() throws Exception {
    Path eval = home.resolve("eval");
    Path older = Files.createDirectories(eval.resolve("20250101-100000-000"));
    Path newer = Files.createDirectories(eval.resolve("20250102-100000-000-regrade"));
    Path running = Files.createDirectories(eval.resolve("20250103-100000-000"));   // no summary yet
    Files.createDirectories(eval.resolve("notes"));
    RunStore.writeJson(older.resolve(RunStore.SUMMARY), new JsonObject().put("run_id", older.getFileName().toString()));
    JsonObject summary = new JsonObject().put("run_id", newer.getFileName().toString())
        .put("modes", new JsonObject().put("agent", new JsonObject().put("accuracy", 0.9)));
    RunStore.writeJson(newer.resolve(RunStore.SUMMARY), summary);
    RunStore.appendLine(running.resolve(RunStore.ANSWERS), new JsonObject());

    HttpResponse<JsonObject> r = latest();
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.getHeader("content-type")).startsWith("application/json");
    assertThat(r.body()).isEqualTo(summary);
  }
}
