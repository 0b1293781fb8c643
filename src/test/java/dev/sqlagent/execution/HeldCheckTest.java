package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.TcpProxy;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgConnectOptions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A check held for its run: once it passed, its read-only transaction waits a moment with the statement planned, and
 * the run of the same statement in the same run continues there. Anything else (a run after the wait, another
 * statement, a stopped run) is checked afresh, and the held transaction never outlives its wait. The probe statement
 * tells which transaction it ran in: {@code clock_timestamp() - now()} is how long its transaction had been open.
 */
class HeldCheckTest {

  /** How long the statement's transaction had been open when it ran, ms. */
  static final String IN_TRANSACTION_MS = "SELECT (extract(epoch FROM clock_timestamp() - now()) * 1000)::int AS open_ms, v "
      + "FROM held_probe WHERE id = 1";
  static final long WAIT_MS = 400;

  static Vertx vertx;
  static Target copy;
  static Gate gate;

  @BeforeAll
  static void start() throws Exception {
    copy = DatabaseCopy.of("gate_held");
    DatabaseCopy.exec(copy, "DROP TABLE IF EXISTS public.held_probe",
        "CREATE TABLE public.held_probe (id int PRIMARY KEY, v int)",
        "INSERT INTO public.held_probe VALUES (1, 42)",
        "GRANT SELECT ON public.held_probe TO " + copy.role());
    vertx = Vertx.vertx();
    // One connection: a held transaction that outlived its use would keep every later request waiting.
    gate = Gate.start(vertx, Gate.Database.of(copy.roOptions()), Gate.Settings.DEFAULTS.withTimeouts(5000, 500).withPoolSize(1))
        .await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (gate != null) gate.close().await(10, TimeUnit.SECONDS);
    if (vertx != null) vertx.close().await(10, TimeUnit.SECONDS);
    DatabaseCopy.exec(copy, "DROP TABLE IF EXISTS public.held_probe");
  }

  static GateReply submit(Gate g, GateRequest request) throws Exception {
    return g.submit(request).await(30, TimeUnit.SECONDS);
  }

  static GateRequest heldCheck(String sql, String runId) {
    return GateRequest.check(sql).holding().inRun(runId);
  }

  static int openMs(GateReply ran) {
    JsonObject r = ran.toJson();
    assertThat(r.getBoolean("ok")).as(r.encode()).isTrue();
    assertThat(r.getJsonArray("rows").getJsonArray(0).getInteger(1)).isEqualTo(42);
    return r.getJsonArray("rows").getJsonArray(0).getInteger(0);
  }

  @Test
  void theRunOfAHeldCheckContinuesInTheChecksTransaction() throws Exception {
    GateReply checked = submit(gate, heldCheck(IN_TRANSACTION_MS, "run-held"));
    assertThat(checked.ok()).as(checked.toJson().encode()).isTrue();
    assertThat(checked.toJson().getJsonArray("rows")).isNull();
    Thread.sleep(WAIT_MS);
    GateReply ran = submit(gate, GateRequest.run(IN_TRANSACTION_MS).inRun("run-held"));
    assertThat(openMs(ran)).as("the run's transaction was opened by the check").isGreaterThanOrEqualTo((int) WAIT_MS);
    // The run's reply is a run's: every stage, and its own time.
    JsonObject stages = ran.toJson().getJsonObject("stages");
    assertThat(stages.fieldNames()).contains(GateReply.STATIC_CHECK, GateReply.LIMIT, GateReply.PLAN, GateReply.EXECUTION);
    assertThat(ran.result().elapsedMs()).isLessThan(WAIT_MS);
  }

  @Test
  void aCheckNotAskedToHoldEndsItsTransaction() throws Exception {
    assertThat(submit(gate, GateRequest.check(IN_TRANSACTION_MS).inRun("run-plain")).ok()).isTrue();
    Thread.sleep(WAIT_MS);
    assertThat(openMs(submit(gate, GateRequest.run(IN_TRANSACTION_MS).inRun("run-plain")))).isLessThan((int) WAIT_MS);
  }

  @Test
  void aRunAfterTheWaitIsCheckedAfresh() throws Exception {
    assertThat(submit(gate, heldCheck(IN_TRANSACTION_MS, "run-late")).ok()).isTrue();
    Thread.sleep(HeldChecks.HOLD_MS + WAIT_MS);
    assertThat(openMs(submit(gate, GateRequest.run(IN_TRANSACTION_MS).inRun("run-late")))).isLessThan((int) WAIT_MS);
  }

  @Test
  void anotherStatementOrAnotherRunIsCheckedAfreshAndEndsNothingItDoesNotOwn() throws Exception {
    String other = IN_TRANSACTION_MS + " AND v = 42";
    assertThat(submit(gate, heldCheck(IN_TRANSACTION_MS, "run-a")).ok()).isTrue();
    Thread.sleep(WAIT_MS);
    // Another run, and the same run asking for another statement: each runs in a transaction of its own. With one
    // connection, the held one ends first: its run moved on.
    assertThat(openMs(submit(gate, GateRequest.run(other).inRun("run-a")))).isLessThan((int) WAIT_MS);
    assertThat(openMs(submit(gate, GateRequest.run(IN_TRANSACTION_MS).inRun("run-a")))).isLessThan((int) WAIT_MS);
  }

  @Test
  void aRunAskedDifferentlyIsCheckedAfresh() throws Exception {
    assertThat(submit(gate, heldCheck(IN_TRANSACTION_MS, "run-cap")).ok()).isTrue();
    Thread.sleep(WAIT_MS);
    GateReply capped = submit(gate, GateRequest.run(IN_TRANSACTION_MS).inRun("run-cap").withRowCap(1));
    assertThat(openMs(capped)).isLessThan((int) WAIT_MS);
  }

  /**
   * Stop ends the wait at once, and sends no cancel request to the waiting connection: one sent to a backend that runs
   * nothing could land on the next statement it runs, another user's (the same connection, from a pool of one).
   */
  @Test
  void aStoppedRunsHeldCheckEndsAtOnceAndItsRunIsCancelled() throws Exception {
    for (int i = 0; i < 20; i++) {
      String runId = "run-stopped-" + i;
      assertThat(submit(gate, heldCheck(IN_TRANSACTION_MS, runId)).ok()).isTrue();
      long t0 = System.nanoTime();
      gate.stop(runId);
      // The one connection is free again long before the wait would have ended, and what runs next is not cancelled.
      assertThat(openMs(submit(gate, GateRequest.run(IN_TRANSACTION_MS)))).isLessThan((int) WAIT_MS);
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(HeldChecks.HOLD_MS);
      GateReply cancelled = submit(gate, GateRequest.run(IN_TRANSACTION_MS).inRun(runId));
      assertThat(cancelled.ok()).isFalse();
      assertThat(cancelled.error().type().wireName()).isEqualTo("cancelled");
    }
  }

  @Test
  void aRefusedCheckHoldsNothing() throws Exception {
    GateReply refused = submit(gate, heldCheck("SELECT nope FROM held_probe", "run-refused"));
    assertThat(refused.ok()).isFalse();
    GateReply failed = submit(gate, heldCheck("SELECT 1 / (v - 42) AS x FROM held_probe", "run-zero"));
    assertThat(failed.ok()).as("a division by zero shows only when it runs").isTrue();
    GateReply ran = submit(gate, GateRequest.run("SELECT 1 / (v - 42) AS x FROM held_probe").inRun("run-zero"));
    assertThat(ran.ok()).isFalse();
    assertThat(ran.error().type().wireName()).isEqualTo("division_by_zero");
    // The held transaction ended with its failed run: the one connection answers at once.
    assertThat(openMs(submit(gate, GateRequest.run(IN_TRANSACTION_MS)))).isLessThan((int) WAIT_MS);
  }

  /**
   * Counted by the clock with every reply of PostgreSQL held 200 ms by a proxy: the run of a held check asks for its
   * rows only, one round trip, where a run checked afresh takes two.
   */
  @Test
  void theRunOfAHeldCheckTakesOneRoundTrip() throws Exception {
    long rt = 200;
    TcpProxy proxy = TcpProxy.start(vertx, copy.roOptions().getHost(), copy.roOptions().getPort()).await(10, TimeUnit.SECONDS);
    Gate far = Gate.start(vertx, Gate.Database.of(new PgConnectOptions(copy.roOptions()).setHost("127.0.0.1").setPort(proxy.port())),
        Gate.Settings.DEFAULTS.withTimeouts(5000, 500).withPoolSize(1)).await(60, TimeUnit.SECONDS);
    try {
      String sql = "SELECT v FROM held_probe WHERE id = 1";
      assertThat(submit(far, GateRequest.run(sql)).ok()).isTrue();
      proxy.delayReplies(rt);
      Thread.sleep(3 * rt);  // the last reset's reply is through
      assertThat(submit(far, heldCheck(sql, "run-far")).ok()).isTrue();
      long t0 = System.nanoTime();
      GateReply ran = submit(far, GateRequest.run(sql).inRun("run-far"));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(ran.toJson().getJsonArray("rows").getJsonArray(0).getInteger(0)).as(ran.toJson().encode()).isEqualTo(42);
      assertThat(ms).as("the held run, ms").isBetween(rt, 2 * rt - rt / 10);
    } finally {
      far.close().await(10, TimeUnit.SECONDS);
      proxy.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void holdMustBeTrueOrFalse() {
    assertThatThrownBy(() -> GateRequest.fromJson(new JsonObject().put("sql", "SELECT 1").put("run", false).put("hold", "yes")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"hold\" must be true or false");
    assertThat(GateRequest.fromJson(GateRequest.check("SELECT 1").holding().toJson()).holds()).isTrue();
    assertThat(GateRequest.check("SELECT 1").holding().toRun().holds()).isFalse();
  }
}
