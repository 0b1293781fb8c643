package dev.sqlagent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.retrieval.Retrieval1000Benchmark;
import dev.sqlagent.testing.BenchmarkMachine;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.ServiceProcess;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Resident memory of the service as an operator runs it ({@code serve} in a child JVM, the fake model answering at
 * once): after start, and after 1,000 questions over HTTP (4 at a time), on the demo and on the generated
 * 1,000-table schema, with the JVM's default heap (a quarter of the machine) and under a 512 MB limit as a container
 * gives it ({@code -XX:MaxRAM=512m}, the heap {@code -XX:MaxRAMPercentage=50} of it, as the deployment examples
 * launch it). Under the limit every question must be answered and the process must stay below it (VmHWM, the most
 * it was ever resident). Writes target/benchmarks/memory.txt.
 *
 * <pre>mvn -B test -Dtest=MemoryBenchmark -Dgroups=benchmark -Dtest.excludedGroups=</pre>
 */
@Tag("benchmark")
class MemoryBenchmark {

  static final int QUESTIONS = Integer.getInteger("memory.questions", 1_000);
  static final int CLIENTS = 4;
  static final long LIMIT_KB = 512 * 1024;
  static final List<String> LIMITED = List.of("-XX:MaxRAM=512m", "-XX:MaxRAMPercentage=50");

  @Test
  void residentMemoryAfterStartAndAfterAThousandQuestions() throws Exception {
    TestDatabase db = TestDatabase.get();
    Retrieval1000Benchmark.create(db);
    String scaleUrl = db.target().url().withDatabase(Retrieval1000Benchmark.DATABASE).withSecret();
    List<String> lines = new ArrayList<>();
    lines.add("memory benchmark: " + QUESTIONS + " questions, " + CLIENTS + " at a time, fake model, plain summary; "
        + "load average before " + BenchmarkMachine.loadAverage() + "; machine " + Runtime.getRuntime().availableProcessors()
        + " cores, " + Files.readAllLines(Path.of("/proc/meminfo")).get(0).replaceAll("\\s+", " "));
    lines.add(String.format("%-12s %-22s %10s %10s %10s %8s %9s", "target", "heap", "start MB", "after MB", "peak MB",
        "answered", "seconds"));
    try (FakeModelServer model = FakeModelServer.start()) {
      for (String target : List.of("demo", "1000-table")) {
        for (boolean limited : List.of(false, true)) {
          model.respondWith(req -> Reply.sql(target.equals("demo") ? "SELECT count(*) AS n FROM customers"
              : "SELECT count(*) AS n FROM music.artist"));
          Map<String, String> settings = new HashMap<>(model.env());
          settings.put("SQLAGENT_ANSWER_SUMMARY", "plain");
          settings.put("SQLAGENT_ASK_PER_CLIENT", String.valueOf(CLIENTS * 2));
          if (target.equals("1000-table")) settings.put("SQLAGENT_DB_URL", scaleUrl);
          Row row = measure(target, limited, db.env(settings));
          lines.add(String.format("%-12s %-22s %10d %10d %10d %8s %9d", target, limited ? "512 MB limit (50%)" : "default",
              row.startKb / 1024, row.afterKb / 1024, row.peakKb / 1024, row.answered + "/" + QUESTIONS, row.seconds));
          System.out.println(lines.get(lines.size() - 1));
          assertThat(row.answered).as("%s, %s: every question answered", target, limited ? "512 MB" : "default heap")
              .isEqualTo(QUESTIONS);
          if (limited) assertThat(row.peakKb).as("%s: resident memory stays under the 512 MB limit", target).isLessThan(LIMIT_KB);
        }
      }
    }
    lines.add("load average after " + BenchmarkMachine.loadAverage());
    String report = String.join("\n", lines) + "\n";
    System.out.println(report);
    Path file = Path.of("target", "benchmarks", "memory.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(file, report);
  }

  record Row(long startKb, long afterKb, long peakKb, int answered, long seconds) {}

  private static Row measure(String target, boolean limited, Map<String, String> env) throws Exception {
    List<String> jvm = limited ? LIMITED : List.of();
    try (ServiceProcess service = ServiceProcess.start("memory-" + target + (limited ? "-512m" : "-default"), jvm, env)) {
      service.awaitReady(900);
      Vertx vertx = Vertx.vertx();
      long start;
      long t0;
      AtomicInteger answered = new AtomicInteger();
      Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
      try {
        WebClient client = WebClient.create(vertx);
        // Ready to answer: the table index built (a first start embeds every table) and the snapshot written.
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
        while (client.get(service.httpPort, "127.0.0.1", "/api/health").timeout(30_000).send().await(40, TimeUnit.SECONDS)
            .statusCode() != 200) {
          assertThat(System.nanoTime()).as("readiness 200 within 15 minutes:\n" + service.output()).isLessThan(until);
          Thread.sleep(1_000);
        }
        Thread.sleep(5_000);  // what start-up left behind settles (stored values, the first GC)
        start = service.rssKb();
        t0 = System.nanoTime();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
          done.add(clients.submit(() -> {
            for (int i = next.getAndIncrement(); i < QUESTIONS; i = next.getAndIncrement()) {
              HttpResponse<Buffer> r = client.post(service.httpPort, "127.0.0.1", "/api/ask")
                  .putHeader("Content-Type", "application/json").timeout(120_000)
                  .sendJsonObject(new JsonObject().put("question", "How many are there, count number " + i + "?"))
                  .await(180, TimeUnit.SECONDS);
              statuses.merge(r.statusCode(), 1, Integer::sum);
              JsonObject a = r.statusCode() == 200 ? r.bodyAsJsonObject() : null;
              if (a != null && !a.getBoolean("gave_up") && !a.getBoolean("refused") && !a.getBoolean("cancelled")) {
                answered.incrementAndGet();
              }
            }
            return null;
          }));
        }
        for (Future<?> f : done) f.get(60, TimeUnit.MINUTES);
        clients.shutdown();
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
      Thread.sleep(2_000);
      assertThat(service.process.isAlive()).as("the service is still running:\n" + service.output()).isTrue();
      System.out.println(target + (limited ? " 512 MB" : " default") + ": HTTP statuses " + statuses);
      return new Row(start, service.rssKb(), service.statusKb("VmHWM"), answered.get(), seconds);
    }
  }
}
