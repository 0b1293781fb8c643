package dev.sqlagent.cluster;

import dev.sqlagent.testing.Percentiles;
import static dev.sqlagent.testing.BenchmarkMachine.loadAverage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Questions per second with the instant fake model: today's single process ({@code serve}, role all, no
 * cluster) vs the same node clustered alone (the journal and the dispatcher, no network hop) vs an edge with
 * one worker vs an edge with two, each a set of child JVMs on this machine; and the latency one question gains
 * from the clustered bus (one client, one question at a time: p50 and p99). The load average is written with
 * each line: numbers taken while the machine is busy are upper bounds. On 2 cores every JVM shares the same CPU, so more
 * workers cannot add throughput here: the numbers show the cost of the hops, not the scaling.
 * Size: {@code -Dcluster.clients=16 -Dcluster.seconds=15 -Dcluster.sequential=200 -Dcluster.warmup=100}.
 */
@Tag("benchmark")
class ClusterBenchmark {

  static final int CLIENTS = Integer.getInteger("cluster.clients", 16);
  static final int SECONDS = Integer.getInteger("cluster.seconds", 15);
  static final int SEQUENTIAL = Integer.getInteger("cluster.sequential", 200);
  static final int WARMUP = Integer.getInteger("cluster.warmup", 100);

  record Result(String setup, double perSecond, int answered, int failed, long p50, long p99, long seqP50, long seqP99,
      String load) {
    String line() {
      return String.format("%-40s %7.1f q/s  (%d answered, %d failed in %d s, %d clients; p50 %d ms, p99 %d ms)"
              + "  one at a time: p50 %d ms, p99 %d ms  [load average %s]", setup, perSecond, answered, failed, SECONDS,
          CLIENTS, p50, p99, seqP50, seqP99, load);
    }
  }

  @Test
  void throughputAndAddedLatencyOfTheClusteredBus() throws Exception {
    TestDatabase db = TestDatabase.get();
    Vertx vertx = Vertx.vertx();
    FakeModelServer model = FakeModelServer.start(vertx);
    model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills", "counted the bills"));
    Map<String, String> env = new HashMap<>(db.env(model.env()));
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_ASK_PER_CLIENT", "1000");
    String loadBefore = loadAverage();
    List<Result> results = new ArrayList<>();
    try {
      results.add(measure(vertx, env, "one node (serve --role all, no cluster)", -1));
      results.add(measure(vertx, env, "one node clustered (--role all, alone)", 0));
      results.add(measure(vertx, env, "edge + 1 worker", 1));
      results.add(measure(vertx, env, "edge + 2 workers", 2));
    } finally {
      model.close();
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    StringBuilder report = new StringBuilder("cluster benchmark (instant fake model, plain summary, child JVMs on loopback, "
        + Runtime.getRuntime().availableProcessors() + " cores; load average before: " + loadBefore + ", after: "
        + loadAverage() + ")\n");
    results.forEach(r -> report.append(r.line()).append('\n'));
    Result one = results.get(0);
    Result split = results.get(2);
    report.append(String.format("added latency per question of the clustered bus (edge + 1 worker vs one node, one"
            + " question at a time): p50 %+d ms (%d vs %d), p99 %+d ms (%d vs %d)%n", split.seqP50() - one.seqP50(),
        split.seqP50(), one.seqP50(), split.seqP99() - one.seqP99(), split.seqP99(), one.seqP99()));
    report.append(String.format("throughput relative to one node: clustered alone %.2fx, edge + 1 worker %.2fx,"
            + " edge + 2 workers %.2fx%n", results.get(1).perSecond() / one.perSecond(), split.perSecond() / one.perSecond(),
        results.get(3).perSecond() / one.perSecond()));
    System.err.print(report);
    Files.createDirectories(Path.of("target", "benchmarks"));
    Files.writeString(Path.of("target", "benchmarks", "cluster.txt"), report);
    assertThat(results).allSatisfy(r -> assertThat(r.answered()).isPositive());
  }


  /** @param workers -1: the single process (no cluster); 0: one clustered node of role all; n: an edge and n workers */
  private Result measure(Vertx vertx, Map<String, String> env, String setup, int workers) throws Exception {
    try (ClusterNodes nodes = new ClusterNodes(env, Math.max(1, workers + 1))) {
      ClusterNodes.Node front = workers < 0 ? nodes.startAlone() : workers == 0 ? nodes.start("all") : nodes.start("edge");
      front.awaitReady(400);
      List<ClusterNodes.Node> started = new ArrayList<>();
      for (int i = 0; i < workers; i++) started.add(nodes.start("worker"));
      for (ClusterNodes.Node w : started) w.awaitReady(400);
      WebClient client = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(CLIENTS));
      // Warm up until every worker answers (retrieval's index, the JIT), then a few seconds of load.
      long warm = System.currentTimeMillis() + 300_000;
      java.util.Set<String> answeredBy = new java.util.HashSet<>();
      int warmed = 0;
      while (System.currentTimeMillis() < warm && (answeredBy.size() < Math.max(1, workers) || warmed < WARMUP)) {
        HttpResponse<Buffer> r = ask(client, front.httpPort, "warm-up");
        if (r.statusCode() == 200) {
          answeredBy.add(r.bodyAsJsonObject().getString("worker", "the node"));
          warmed++;
        } else {
          Thread.sleep(200);
        }
      }
      List<Long> seq = new ArrayList<>();
      for (int i = 0; i < SEQUENTIAL; i++) {
        long t0 = System.nanoTime();
        if (ask(client, front.httpPort, "one at a time " + i).statusCode() == 200) seq.add((System.nanoTime() - t0) / 1_000_000);
      }
      List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger failed = new AtomicInteger();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int id = c;
        Thread t = new Thread(() -> {
          int i = 0;
          while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            try {
              HttpResponse<Buffer> r = ask(client, front.httpPort, "load " + id + "." + i++);
              if (r.statusCode() == 200 && !r.bodyAsJsonObject().getBoolean("gave_up")) {
                latencies.add((System.nanoTime() - t0) / 1_000_000);
              } else {
                failed.incrementAndGet();
              }
            } catch (Exception e) {
              failed.incrementAndGet();
            }
          }
        });
        t.start();
        threads.add(t);
      }
      for (Thread t : threads) t.join();
      client.close();
      return new Result(setup, latencies.size() / (double) SECONDS, latencies.size(), failed.get(),
          percentile(latencies, 50), percentile(latencies, 99), percentile(seq, 50), percentile(seq, 99), loadAverage());
    }
  }

  private static HttpResponse<Buffer> ask(WebClient client, int port, String question) throws Exception {
    return client.post(port, "127.0.0.1", "/api/ask").timeout(60_000)
        .sendJsonObject(new JsonObject().put("question", "How many bills are there? " + question)).await(70, TimeUnit.SECONDS);
  }

  private static long percentile(List<Long> values, int p) {
    return values.isEmpty() ? -1 : Percentiles.of(values, p);
  }
}
