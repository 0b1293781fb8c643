package dev.sqlagent.eval;

import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.config.AppConfig;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.SavedRuns;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.web.HttpVerticle;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GET /api/eval/latest over real HTTP, mounted in the service's HttpVerticle and answered from the state
 * store by EvalRunsVerticle. "Latest" is global to the store, so each test starts from an empty one.
 */
class EvalRoutesTest {

  @TempDir
  Path home;
  Vertx vertx;
  HttpVerticle http;

  @BeforeEach
  void start() throws Exception {
    SavedRuns.clearAll();
    vertx = Vertx.vertx();
    http = new HttpVerticle(AppConfig.load(java.util.Map.of("SQLAGENT_HTTP_PORT", "0", "SQLAGENT_HOME", home.toString())));
    vertx.deployVerticle(new EvalRunsVerticle(StateDatabase.open(vertx, TestDatabase.get().state(), 1))).await(30, TimeUnit.SECONDS);
    vertx.deployVerticle(http).await(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    SavedRuns.clearAll();
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
    // Files under the home are not saved runs any more.
    Path legacy = Files.createDirectories(home.resolve("eval").resolve("20250101-100000-000"));
    Files.writeString(legacy.resolve(RunStore.SUMMARY), "{\"run_id\":\"20250101-100000-000\"}");
    assertThat(latest().statusCode()).isEqualTo(404);
  }

  @Test
  void theNewestFinishedRunsSummaryIsServed() throws Exception {
    RunStore store = new RunStore(TestDatabase.get().state());
    SavedRuns.saveSummary("20250101-100000-000", new JsonObject().put("run_id", "20250101-100000-000"));
    JsonObject summary = new JsonObject().put("run_id", "20250102-100000-000-regrade")
        .put("modes", new JsonObject().put("agent", new JsonObject().put("accuracy", 0.9)));
    SavedRuns.saveSummary("20250102-100000-000-regrade", summary);
    // A run still in progress: its run.json and an answer, no summary yet.
    store.writeJson("20250103-100000-000", RunStore.RUN, new JsonObject().put("run_id", "20250103-100000-000"));
    store.append("20250103-100000-000", Map.of(RunStore.ANSWERS, new JsonObject()));
    // Not a run's name: never the latest, whatever it sorts as.
    SavedRuns.saveSummary("notes", new JsonObject().put("run_id", "notes"));

    HttpResponse<JsonObject> r = latest();
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.getHeader("content-type")).startsWith("application/json");
    assertThat(r.body()).isEqualTo(summary);

    // A newer finished run takes over at once: nothing is cached.
    JsonObject newest = new JsonObject().put("run_id", "20250104-100000-000");
    SavedRuns.saveSummary("20250104-100000-000", newest);
    assertThat(latest().body()).isEqualTo(newest);
  }
}
