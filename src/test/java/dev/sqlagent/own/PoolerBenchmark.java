package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.PgBouncer;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 200 questions at once through {@code POST /api/ask} (the fake model answers at once, so the database path is what
 * is measured), the target reached through PgBouncer in transaction mode with 4 server connections, then the same
 * directly for comparison: every question answered right, none lost, p50 and p99 of a question's time. Writes
 * {@code target/benchmarks/pooler.txt}.
 */
@Tag("benchmark")
class PoolerBenchmark {

  static final int QUESTIONS = 200;

  @Test
  void twoHundredQuestionsAtOnceThroughATransactionPooler() throws Exception {
    try (OwnDatabase own = OwnDatabase.create(); FakeModelServer model = FakeModelServer.start();
         PgBouncer bouncer = PgBouncer.start(TestDatabase.get().adminUrl(), own.name, 4, List.of(own.roUrl()))) {
      model.respondWith(PoolerTest::answer);
      String pooled = run(own, model, bouncer.through(own.roUrl()), "transaction", "through PgBouncer (transaction mode, 4 server connections)");
      String direct = run(own, model, own.roUrl(), "none", "directly (no pooler)");
      String report = pooled + direct;
      System.out.print(report);
      Files.createDirectories(Path.of("target/benchmarks"));
      Files.writeString(Path.of("target/benchmarks/pooler.txt"), report);
    }
  }

  private static String run(OwnDatabase own, FakeModelServer model, PgUrl target, String pooler, String how) throws Exception {
    java.util.Map<String, String> env = PoolerTest.env(model);
    env.put("SQLAGENT_DB_POOLER", pooler);
    try (OwnService service = OwnService.start(own.config(target, env))) {
      service.awaitIndex();
      WebClient client = PoolerTest.wideClient(service.vertx);
      // Warm up: a few questions end to end (the gate's connections, the JIT).
      for (int i = 0; i < 5; i++) service.ask("Count the orders of customer 1");
      long t0 = System.nanoTime();
      List<Future<String>> asks = new ArrayList<>();
      long[] ms = new long[QUESTIONS];
      for (int i = 0; i < QUESTIONS; i++) {
        int customer = 1 + i % 3;
        int n = i;
        long start = System.nanoTime();
        asks.add(client.post(service.port(), "127.0.0.1", "/api/ask").timeout(300_000)
            .sendJsonObject(new JsonObject().put("question", "Count the orders of customer " + customer + " (#" + i + ")"))
            .map((HttpResponse<Buffer> r) -> {
              ms[n] = (System.nanoTime() - start) / 1_000_000;
              return PoolerTest.check(r, "answer", customer);
            }));
      }
      Future.join(asks).await(600, TimeUnit.SECONDS);
      long wallMs = (System.nanoTime() - t0) / 1_000_000;
      List<String> wrong = asks.stream().filter(f -> f.failed() || f.result() != null)
          .map(f -> f.failed() ? String.valueOf(f.cause()) : f.result()).toList();
      long[] sorted = ms.clone();
      java.util.Arrays.sort(sorted);
      String line = String.format("%d questions at once %s: %d answered right, %d lost or wrong; all done in %d ms;"
              + " per question p50 %d ms, p99 %d ms, max %d ms%n", QUESTIONS, how, QUESTIONS - wrong.size(), wrong.size(),
          wallMs, sorted[QUESTIONS / 2], sorted[(int) Math.ceil(QUESTIONS * 0.99) - 1], sorted[QUESTIONS - 1]);
      assertThat(wrong).as(line).isEmpty();
      return line;
    }
  }
}
