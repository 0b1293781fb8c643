package dev.sqlagent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.NoInternals;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, item 6: questions in flight are bounded service-wide. Past the bound a question waits in a
 * short queue; a full queue, or a wait longer than a quarter of the question's deadline, is answered 503
 * with Retry-After at once rather than left to age past its deadline.
 */
class AskQueueTest {

  @Test
  void pastTheBoundQuestionsWaitBrieflyOrAreToldToComeBack() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills").delayed(3_500));
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      env.put("SQLAGENT_ASK_IN_FLIGHT", "1");
      env.put("SQLAGENT_ASK_QUEUE", "1");
      env.put("SQLAGENT_ASK_PER_CLIENT", "10");
      env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "8000");  // a queued question waits at most 2 s
      try (RunningService service = RunningService.start(env)) {
        // Warm up (retrieval's index, the gate): the timings below are the queue's, not a cold start's.
        service.client.post(service.port(), "127.0.0.1", "/api/ask").putHeader("content-type", "application/json")
            .sendJsonObject(new JsonObject().put("question", "How many bills are there?")).await(120, TimeUnit.SECONDS);
        long t0 = System.nanoTime();
        List<Future<HttpResponse<Buffer>>> asks = new ArrayList<>();
        List<Long> at = new java.util.concurrent.CopyOnWriteArrayList<>(new Long[] {0L, 0L, 0L});
        for (int i = 0; i < 3; i++) {
          int n = i;
          asks.add(service.client.post(service.port(), "127.0.0.1", "/api/ask").putHeader("content-type", "application/json")
              .sendJsonObject(new JsonObject().put("question", "How many bills are there?"))
              .onComplete(r -> at.set(n, (System.nanoTime() - t0) / 1_000_000)));
          Thread.sleep(150);  // in this order: running, queued, refused
        }
        List<HttpResponse<Buffer>> r = new ArrayList<>();
        for (Future<HttpResponse<Buffer>> a : asks) r.add(a.await(60, TimeUnit.SECONDS));
        assertThat(r.get(0).statusCode()).as(r.get(0).bodyAsString()).isEqualTo(200);
        for (int i = 1; i < 3; i++) {
          assertThat(r.get(i).statusCode()).as(r.get(i).bodyAsString()).isEqualTo(503);
          assertThat(r.get(i).getHeader("Retry-After")).isNotBlank();
          assertThat(r.get(i).bodyAsJsonObject().getString("error_type")).isEqualTo("busy");
          NoInternals.assertNone(r.get(i).bodyAsString());
        }
        long fast = Math.min(at.get(1), at.get(2));
        long waited = Math.max(at.get(1), at.get(2));
        assertThat(fast).as("a full queue answers at once").isLessThan(1_500);
        assertThat(waited).as("a queued question is told to come back before the running one ends")
            .isBetween(1_500L, at.get(0));
        // The slots are given back: the next question is answered.
        HttpResponse<Buffer> again = service.client.post(service.port(), "127.0.0.1", "/api/ask")
            .putHeader("content-type", "application/json")
            .sendJsonObject(new JsonObject().put("question", "How many bills are there?")).await(60, TimeUnit.SECONDS);
        assertThat(again.statusCode()).isEqualTo(200);
      }
    }
  }
}
