package dev.sqlagent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, item 6: 40 concurrent questions from 40 clients (40 loopback addresses) against a model that
 * takes 4 s per call. With the model client's old pool of 5 connections this took 8–65 s; every question
 * should now finish in about one model call.
 */
@Tag("benchmark")
class ConcurrencyBenchmark {

  static final int CLIENTS = 40;
  static final long MODEL_MS = 4_000;

  @Test
  void fortyConcurrentQuestionsWithAFourSecondModel() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      List<Long> arrivals = new java.util.concurrent.CopyOnWriteArrayList<>();
      model.respondWith(req -> {
        arrivals.add(System.nanoTime() / 1_000_000);
        return Reply.sql("SELECT count(*) AS bills FROM bills").delayed(MODEL_MS);
      });
      Map<String, String> env = new java.util.HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      try (RunningService service = RunningService.start(env)) {
        // Warm up: one question end to end (retrieval's index, the gate, the JIT).
        service.client.post(service.port(), "127.0.0.1", "/api/ask").putHeader("content-type", "application/json")
            .sendJsonObject(new JsonObject().put("question", "How many bills are there?")).await(120, TimeUnit.SECONDS);
        arrivals.clear();
        List<WebClient> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
          clients.add(WebClient.create(service.vertx, new WebClientOptions().setLocalAddress("127.0.0." + (10 + i))));
        }
        long t0 = System.nanoTime();
        List<Future<HttpResponse<Buffer>>> asks = new ArrayList<>();
        List<Long> done = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (WebClient c : clients) {
          asks.add(c.post(service.port(), "127.0.0.1", "/api/ask").putHeader("content-type", "application/json")
              .sendJsonObject(new JsonObject().put("question", "How many bills are there?"))
              .onSuccess(r -> done.add((System.nanoTime() - t0) / 1_000_000)));
        }
        int ok = 0;
        for (Future<HttpResponse<Buffer>> a : asks) {
          HttpResponse<Buffer> r = a.await(120, TimeUnit.SECONDS);
          if (r.statusCode() == 200 && !r.bodyAsJsonObject().getBoolean("gave_up")) ok++;
        }
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        done.sort(null);
        // Model calls in flight at once: arrivals within one call's duration of each other.
        List<Long> at = new ArrayList<>(arrivals);
        at.sort(null);
        int peak = 0;
        for (int i = 0; i < at.size(); i++) {
          int n = 0;
          for (int j = i; j < at.size() && at.get(j) - at.get(i) < MODEL_MS; j++) n++;
          peak = Math.max(peak, n);
        }
        String report = String.format("%d concurrent questions from %d clients, model %d ms per call: all done in %d ms "
                + "(first %d ms, median %d ms, last %d ms); %d answered; at most %d model calls in flight%n",
            CLIENTS, CLIENTS, MODEL_MS, wallMs, done.get(0), done.get(done.size() / 2), done.get(done.size() - 1), ok,
            peak);
        System.out.print(report);
        Files.createDirectories(Path.of("target/benchmarks"));
        Files.writeString(Path.of("target/benchmarks/concurrency.txt"), report);
        assertThat(ok).isEqualTo(CLIENTS);
        assertThat(wallMs).isLessThan(10_000);
      }
    }
  }
}
