package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import dev.sqlagent.contract.GateReply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.TcpProxy;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Repeats: a text the gate saw lately skips the parser, and its plan goes out with its description, shaped as its
 * columns were last time. The reply is still the one the first submission got, and when the table's columns changed
 * in between, the reply is shaped as the table is now (a copy of the shop: its schema is changed here).
 */
class GateRepeatTest {

  static Vertx vertx;
  static Target copy;
  static Gate gate;

  @BeforeAll
  static void start() throws Exception {
    copy = DatabaseCopy.of("gate_repeat");
    admin("DROP TABLE IF EXISTS public.repeat_probe",
        "CREATE TABLE public.repeat_probe (id int PRIMARY KEY, v int)",
        "INSERT INTO public.repeat_probe VALUES (1, 42)",
        "GRANT SELECT ON public.repeat_probe TO " + copy.role());
    vertx = Vertx.vertx();
    gate = Gate.start(vertx, Gate.Database.of(copy.roOptions()),
        Gate.Settings.DEFAULTS.withTimeouts(1500, 500).withPoolSize(2))
        .await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (gate != null) gate.close().await(10, TimeUnit.SECONDS);
    if (vertx != null) vertx.close().await(10, TimeUnit.SECONDS);
    admin("DROP TABLE IF EXISTS public.repeat_probe");
  }

  static void admin(String... statements) throws Exception {
    DatabaseCopy.exec(copy, statements);
  }

  static JsonObject submit(String sql, boolean run) throws Exception {
    return gate.submit(GateRequest.of(sql, run)).await(30, TimeUnit.SECONDS).toJson();
  }

  /** The reply without its timings. */
  static JsonObject timeless(JsonObject reply) {
    JsonObject r = reply.copy();
    r.remove("elapsed_ms");
    JsonObject execution = r.getJsonObject("stages", new JsonObject()).getJsonObject("execution");
    if (execution != null) execution.remove("elapsed_ms");
    // The planner's estimate moves when autovacuum analyzes a table between two submissions; whether a plan was
    // made and passed still counts.
    if (r.getValue("plan_cost") != null) r.put("plan_cost", "estimated");
    JsonObject plan = r.getJsonObject("stages", new JsonObject()).getJsonObject("plan");
    if (plan != null && plan.getValue("cost") != null) plan.put("cost", "estimated");
    return r;
  }

  /**
   * Round trips, counted by the clock with every reply of PostgreSQL held 200 ms by a proxy. A repeat sends its
   * description, its prepare, its plan and its runner together with the transaction's setup, then asks for the rows
   * once the plan passed: two round trips. A first sight waits for its description before it can shape the
   * statement: three. (The reset follows the reply.) The client's own one-shot prepared query would add one to
   * each: it holds everything queued behind it until its parse is answered.
   */
  @Test
  void aRepeatTakesTwoRoundTripsAndAFirstSightThree() throws Exception {
    long rt = 200;
    TcpProxy proxy = TcpProxy.start(vertx, copy.roOptions().getHost(), copy.roOptions().getPort())
        .await(10, TimeUnit.SECONDS);
    Gate far = Gate.start(vertx, Gate.Database.of(new PgConnectOptions(copy.roOptions()).setHost("127.0.0.1").setPort(proxy.port())),
        Gate.Settings.DEFAULTS.withTimeouts(5000, 500).withPoolSize(1)).await(60, TimeUnit.SECONDS);
    try {
      // Warm: the pool's one connection is open and the gate has run a statement of each kind once.
      for (String sql : List.of("SELECT 1 AS warm", "SELECT 2 AS warm")) {
        assertThat(far.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).ok()).isTrue();
      }
      proxy.delayReplies(rt);
      Thread.sleep(3 * rt);  // the last reset's reply is through
      String sql = "SELECT v FROM repeat_probe WHERE id = 1";
      long firstMs = timed(far, sql);
      Thread.sleep(3 * rt);
      long repeatMs = timed(far, sql);
      assertThat(firstMs).as("first sight, ms").isBetween(3 * rt, 4 * rt - rt / 10);
      assertThat(repeatMs).as("repeat, ms").isBetween(2 * rt, 3 * rt - rt / 10);
    } finally {
      far.close().await(10, TimeUnit.SECONDS);
      proxy.close().await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A repeat's commands leave in one write per round trip. The client flushes each command on its own; the gate's
   * connections hold those flushes to the end of the task (or the read) that sent them. Counted at the head of the
   * connection's pipeline, where each flush becomes a write to the socket: the setup, description, prepare, plan and
   * runner together, then the rows, then the reset (its two commands together): three writes, where the client alone
   * makes nine.
   */
  @Test
  void aRepeatsCommandsLeaveInOneWritePerRoundTrip() throws Exception {
    Gate single = Gate.start(vertx, Gate.Database.of(copy.roOptions()),
        Gate.Settings.DEFAULTS.withTimeouts(5000, 500).withPoolSize(1)).await(60, TimeUnit.SECONDS);
    try {
      String sql = "SELECT v FROM repeat_probe WHERE id = 1";
      for (int i = 0; i < 2; i++) assertThat(single.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).ok()).isTrue();
      java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
      io.vertx.sqlclient.SqlConnection conn = single.executor().pool().getConnection().await(10, TimeUnit.SECONDS);
      ReadOnlyExecutor.socketOf(conn).socket().channelHandlerContext().pipeline().addFirst("count-writes",
          new io.netty.channel.ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(io.netty.channel.ChannelHandlerContext ctx) {
              writes.incrementAndGet();
              ctx.flush();
            }
          });
      conn.close().await(10, TimeUnit.SECONDS);
      for (int i = 0; i < 3; i++) {
        writes.set(0);
        JsonObject reply = single.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).toJson();
        assertThat(reply.getBoolean("ok")).as(reply.encode()).isTrue();
        Thread.sleep(300);  // the reset follows the reply
        assertThat(writes.get()).as("writes to the socket for one repeat").isEqualTo(3);
      }
    } finally {
      single.close().await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Through a layer-7 proxy (pgbouncer and the like) the client parses an unnamed statement again before each bind,
   * from the text it was described with; the gate then sends its PREPARE the client's way, and repeats answer as
   * first sights do.
   */
  @Test
  void behindALayer7ProxyRepeatsAnswerAsFirstSightsDo() throws Exception {
    Gate proxied = Gate.start(vertx, Gate.Database.of(new PgConnectOptions(copy.roOptions()).setUseLayer7Proxy(true)),
        Gate.Settings.DEFAULTS.withTimeouts(5000, 500).withPoolSize(1)).await(60, TimeUnit.SECONDS);
    try {
      for (int i = 0; i < 3; i++) {
        for (String sql : List.of("SELECT v FROM repeat_probe WHERE id = 1", "SELECT v + 1 AS w FROM repeat_probe")) {
          JsonObject r = proxied.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).toJson();
          assertThat(r.getBoolean("ok")).as(r.encode()).isTrue();
          assertThat(r.getJsonArray("rows").getJsonArray(0).getInteger(0)).isEqualTo(sql.contains("+ 1") ? 43 : 42);
        }
      }
    } finally {
      proxied.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static long timed(Gate gate, String sql) throws Exception {
    long t0 = System.nanoTime();
    GateReply reply = gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(reply.toJson().getJsonArray("rows").getJsonArray(0).getInteger(0)).as(reply.toJson().encode()).isEqualTo(42);
    return ms;
  }

  @Test
  void aRepeatGetsTheReplyTheFirstSubmissionGot() throws Exception {
    for (String sql : List.of(
        "SELECT cat_id, cat_name FROM categories ORDER BY cat_id",
        "SELECT * FROM bills ORDER BY bill_id",
        "SELECT status, count(*), sum(total_amt) FROM bills GROUP BY status ORDER BY 1",
        "SELECT cust_name COLLATE \"C\" FROM customers ORDER BY 1",
        "SELECT 1 / 0",
        "SELECT nope FROM bills",
        "SELECT FROM bills LIMIT 3",
        "DELETE FROM bills")) {
      for (boolean run : List.of(true, false)) {
        JsonObject first = submit(sql, run);
        for (int i = 0; i < 3; i++) assertThat(timeless(submit(sql, run))).as(sql).isEqualTo(timeless(first));
      }
    }
  }

  @Test
  void aRepeatAfterTheColumnsChangedIsShapedAsTheTableIsNow() throws Exception {
    String sql = "SELECT * FROM repeat_probe ORDER BY id";
    JsonObject before = submit(sql, true);
    assertThat(submit(sql, true).getJsonArray("rows").getJsonArray(0).getValue(1)).isEqualTo(42);
    assertThat(before.getJsonArray("columns").getJsonObject(1).getString("type")).isEqualTo("int4");

    // The same number of columns, another type: a long text now, clipped in PostgreSQL.
    admin("ALTER TABLE public.repeat_probe ALTER COLUMN v TYPE text USING repeat('x', 600)");
    JsonObject retyped = submit(sql, true);
    assertThat(retyped.getBoolean("ok")).as(retyped.encode()).isTrue();
    assertThat(retyped.getJsonArray("columns").getJsonObject(1).getString("type")).isEqualTo("text");
    assertThat(retyped.getJsonArray("rows").getJsonArray(0).getString(1)).hasSize(500 + "…[clipped, 600 chars]".length())
        .endsWith("…[clipped, 600 chars]");

    // Another number of columns: the shape guessed no longer fits the statement at all.
    admin("ALTER TABLE public.repeat_probe ADD COLUMN w jsonb DEFAULT '{\"a\": [1, 2]}'");
    JsonObject widened = submit(sql, true);
    assertThat(widened.getBoolean("ok")).as(widened.encode()).isTrue();
    assertThat(widened.getJsonArray("columns")).hasSize(3);
    assertThat(widened.getJsonArray("rows").getJsonArray(0).getJsonObject(2)).isEqualTo(new JsonObject().put("a",
        new io.vertx.core.json.JsonArray().add(1).add(2)));
    assertThat(timeless(submit(sql, true))).isEqualTo(timeless(widened));

    // And back: fewer columns again.
    admin("ALTER TABLE public.repeat_probe DROP COLUMN w, DROP COLUMN v");
    JsonObject narrowed = submit(sql, true);
    assertThat(narrowed.getBoolean("ok")).as(narrowed.encode()).isTrue();
    assertThat(narrowed.getJsonArray("columns")).hasSize(1);
    assertThat(narrowed.getJsonArray("rows").getJsonArray(0).getInteger(0)).isEqualTo(1);
  }
}
