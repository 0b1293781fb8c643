package dev.sqlagent.cancel;

import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 100 cancels of a statement that would otherwise run for minutes: the time from sending the cancel to the
 * agent role's backend no longer active (polled in pg_stat_activity every millisecond or so), and what is left
 * over afterwards (active or idle-in-transaction backends of the agent role). Measures only.
 *
 * <p>{@code mvn -B test -Dtest=CancelBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class CancelBenchmark {

  static final int CANCELS = 100;

  @Test
  void cancelToBackendIdle() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql(CancelTest.ENDLESS));
      Map<String, String> env = CancelTest.endlessEnv(model);
      try (RunningService service = RunningService.start(env);
           Connection admin = TestDatabase.get().adminConnection("postgres"); Statement s = admin.createStatement()) {
        String role = TestDatabase.get().target().role();
        List<Long> micros = new ArrayList<>();
        int cancelledAnswers = 0;
        for (int i = 0; i < CANCELS + 5; i++) {
          String runId = UUID.randomUUID().toString();
          Future<Answer> answer = new AgentClient(service.vertx, 60_000)
              .ask(AskRequest.of("How many pairs of numbers are there?", "http").withRunId(runId));
          long until = System.currentTimeMillis() + 30_000;
          while (active(s, role) == 0 && System.currentTimeMillis() < until) Thread.sleep(1);
          long t0 = System.nanoTime();
          new AgentClient(service.vertx, 10_000).cancel(RunRequest.cancel(runId, null, null)).await(10, TimeUnit.SECONDS);
          while (active(s, role) > 0) Thread.onSpinWait();
          long us = (System.nanoTime() - t0) / 1_000;
          Answer a = answer.await(30, TimeUnit.SECONDS);
          if (i >= 5) {  // the first five warm up
            micros.add(us);
            if (a.cancelled()) cancelledAnswers++;
          }
        }
        Thread.sleep(500);
        int leftovers = count(s, "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + role
            + "' AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')");
        Collections.sort(micros);
        String report = String.format("cancels: %d, answers cancelled: %d%ncancel to backend idle: p50 %.1f ms, p90 %.1f ms,"
                + " p99 %.1f ms, max %.1f ms%nleftover backends of %s (active or in a transaction): %d%n",
            micros.size(), cancelledAnswers, pct(micros, 50), pct(micros, 90), pct(micros, 99),
            micros.get(micros.size() - 1) / 1000.0, role, leftovers);
        System.out.print(report);
        Files.createDirectories(Path.of("target/benchmarks"));
        Files.writeString(Path.of("target/benchmarks/cancel.txt"), report);
      }
    }
  }

  static int active(Statement s, String role) throws Exception {
    return count(s, "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + role + "' AND state = 'active'");
  }

  static int count(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static double pct(List<Long> sorted, int p) {
    return Percentiles.of(sorted, p) / 1000.0;
  }
}
