package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import dev.sqlagent.testing.Percentiles;
import static dev.sqlagent.testing.BenchmarkMachine.loadAverage;
import static dev.sqlagent.testing.BenchmarkMachine.settle;

import dev.sqlagent.db.PgEnvironment;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TlsServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * TLS against plain on the same server, same role (SCRAM), same machine; measures, asserts nothing about time.
 * Run: {@code mvn -B test -Dtest=ConnectBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 * <ol>
 *   <li>connection set-up (TCP, TLS handshake when on, authentication, first query), JDBC and reactive,
 *       {@code sslmode=verify-full} with the CA file against {@code sslmode=disable}, interleaved;
 *   <li>the gate's whole path per query (static check, prepare, EXPLAIN, execution, reset) on a pool over TLS
 *       against one over plain TCP, interleaved, after a warm-up.
 * </ol>
 * Prints the numbers and writes them to target/connect-benchmark.txt.
 */
@Tag("benchmark")
class ConnectBenchmark {

  static final List<String> QUERIES = List.of(
      "SELECT name FROM items WHERE id = 3",
      "SELECT count(*) AS n FROM items",
      "SELECT id, name, price FROM items ORDER BY price DESC LIMIT 5",
      "SELECT sum(price) AS total FROM items WHERE id BETWEEN 2 AND 12");

  @Test
  void tlsAgainstPlain() throws Exception {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "machine: %d cores, %s %s; load average at start: %s%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.version"),
        loadAverage()));
    try (TlsServer server = TlsServer.start()) {
      server.allowPlain();
      PgEnvironment env = new PgEnvironment(Map.of(), Files.createTempDirectory("bench-home"), "bench");
      String base = "postgresql://" + TlsServer.READER + ":" + TlsServer.PASSWORD + "@localhost:" + server.port() + "/"
          + TlsServer.TARGET_DB;
      PgUrl tls = PgUrl.parse(base + "?sslmode=verify-full&sslrootcert=" + server.ca, env);
      PgUrl plain = PgUrl.parse(base + "?sslmode=disable", env);

      // 1. set-up, JDBC
      int n = 60;
      long[][] jdbc = new long[2][n];
      for (int i = -10; i < n; i++) {
        for (int side = 0; side < 2; side++) {
          long s = System.nanoTime();
          try (Connection c = (side == 0 ? tls : plain).connect("bench"); var st = c.createStatement()) {
            st.execute("SELECT 1");
          }
          if (i >= 0) jdbc[side][i] = System.nanoTime() - s;
        }
      }
      // 1. set-up, reactive
      Vertx vertx = Vertx.vertx();
      try {
        long[][] reactive = new long[2][n];
        for (int i = -10; i < n; i++) {
          for (int side = 0; side < 2; side++) {
            long s = System.nanoTime();
            PgConnection c = PgConnection.connect(vertx, (side == 0 ? tls : plain).options("bench")).await(30, TimeUnit.SECONDS);
            c.query("SELECT 1").execute().await(30, TimeUnit.SECONDS);
            if (i >= 0) reactive[side][i] = System.nanoTime() - s;
            c.close().await(10, TimeUnit.SECONDS);
          }
        }
        out.append(line("connection set-up + SELECT 1, JDBC", jdbc, n));
        out.append(line("connection set-up + SELECT 1, reactive", reactive, n));

        // 2. the gate per query
        Gate.Settings settings = Gate.Settings.DEFAULTS;
        Gate gTls = Gate.start(vertx, Gate.Database.of(tls.options("bench-gate")), settings).await(60, TimeUnit.SECONDS);
        Gate gPlain = Gate.start(vertx, Gate.Database.of(plain.options("bench-gate")), settings).await(60, TimeUnit.SECONDS);
        try {
          for (int w = 0; w < 50; w++) {
            for (String q : QUERIES) {
              ok(gTls.submit(GateRequest.run(q)).await(30, TimeUnit.SECONDS).toJson());
              ok(gPlain.submit(GateRequest.run(q)).await(30, TimeUnit.SECONDS).toJson());
            }
          }
          int rounds = 100;
          long[][] gate = new long[2][rounds * QUERIES.size()];
          int k = 0;
          for (int r = 0; r < rounds; r++) {
            for (String q : QUERIES) {
              long s = System.nanoTime();
              ok(gTls.submit(GateRequest.run(q)).await(30, TimeUnit.SECONDS).toJson());
              gate[0][k] = System.nanoTime() - s;
              settle();
              s = System.nanoTime();
              ok(gPlain.submit(GateRequest.run(q)).await(30, TimeUnit.SECONDS).toJson());
              gate[1][k] = System.nanoTime() - s;
              settle();
              k++;
            }
          }
          out.append(line("gate per query (repeats, " + QUERIES.size() + " queries x " + rounds + ")", gate, k));
        } finally {
          gTls.close().await(10, TimeUnit.SECONDS);
          gPlain.close().await(10, TimeUnit.SECONDS);
        }
      } finally {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
    out.append("load average at end: ").append(loadAverage()).append('\n');
    System.out.print(out);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "connect-benchmark.txt"), out);
  }

  private static void ok(JsonObject reply) {
    if (!reply.getBoolean("ok")) throw new AssertionError("refused in the benchmark: " + reply.encode());
  }

  private static String line(String what, long[][] ns, int n) {
    long[] t = Arrays.copyOf(ns[0], n);
    long[] p = Arrays.copyOf(ns[1], n);
    Arrays.sort(t);
    Arrays.sort(p);
    return String.format(Locale.ROOT, "%s: TLS (verify-full) p50 %.2f ms, p99 %.2f ms | plain p50 %.2f ms, p99 %.2f ms"
        + " | TLS - plain at p50 %.2f ms%n", what, pct(t, 50), pct(t, 99), pct(p, 50), pct(p, 99), pct(t, 50) - pct(p, 50));
  }



  private static double pct(long[] sorted, int p) {
    return Percentiles.of(sorted, p) / 1e6;
  }
}
