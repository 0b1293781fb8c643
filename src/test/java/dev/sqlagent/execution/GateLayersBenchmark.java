package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import dev.sqlagent.testing.ProcFiles;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.PreparedStatement;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What each of the gate's safety layers costs. Measures, asserts nothing about time. Run:
 * {@code mvn -B test -Dtest=GateLayersBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 *
 * <p>The statements the gate sends to PostgreSQL for a repeat, sent its way (the same pipelining, the same round
 * trips) on one connection of the agent's role, but none of the gate's own work in Java (no static check, no plan
 * check, no rendering, no pool): first all of them, then with one layer left out at a time, then every layer with two
 * messages fewer (the shaped statement parsed as a named statement of the protocol, which the gate cannot do through
 * the client: {@link NextStatementName}), as the floor of what is left without giving up a layer, then the same bounded SQL
 * as a one-shot prepared query; and, for what the gate adds in Java, the whole gate (pool of one connection) on the
 * same texts, repeats all. Per query: the wall time, PostgreSQL's CPU (its backend's, from /proc) and the event
 * loops' CPU, over the 104 valid queries × 8 rounds, in three interleaved passes. Writes target/gate-layers.txt.
 */
@Tag("benchmark")
class GateLayersBenchmark {

  /** Which layers are sent. */
  private record Layers(String name, boolean settings, boolean description, boolean plan, boolean verbose, boolean clip,
                        boolean discard, boolean named) {
    Layers(String name, boolean settings, boolean description, boolean plan, boolean verbose, boolean clip,
           boolean discard) {
      this(name, settings, description, plan, verbose, clip, discard, false);
    }
  }

  private static final List<Layers> VARIANTS = List.of(
      new Layers("all layers", true, true, true, true, true, true),
      new Layers("no SET LOCALs", false, true, true, true, true, true),
      new Layers("no description", true, false, true, true, true, true),
      new Layers("plan not VERBOSE", true, true, true, false, true, true),
      new Layers("no clipping", true, true, true, true, false, true),
      new Layers("no plan", true, true, false, false, true, true),
      new Layers("no DISCARD ALL", true, true, true, true, true, false),
      // Every layer kept, two messages fewer: see NextStatementName.
      new Layers("protocol statement", true, true, true, true, true, true, true));

  @Test
  void eachLayersCost() throws Exception {
    List<String> corpus = GateCorpusTest.corpus("valid.jsonl").stream().map(j -> j.getString("sql")).toList();
    TestDatabase db = TestDatabase.get();
    Vertx vertx = Vertx.vertx();
    Gate gate = Gate.start(vertx, Gate.Database.of(db.target().roOptions()),
        Gate.Settings.DEFAULTS.withPoolSize(1)).await(60, TimeUnit.SECONDS);
    Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(db.target().roOptions())
        .using(vertx).build();
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "machine: %d cores; load average at start: %s%n",
        Runtime.getRuntime().availableProcessors(), ProcFiles.read(Path.of("/proc/loadavg")).trim()));
    try {
      SqlConnection conn = pool.getConnection().await(10, TimeUnit.SECONDS);
      ReadOnlyExecutor.consolidateFlushes(conn);  // the gate's connections' way: one write per round trip
      NextStatementName names = new NextStatementName(conn);
      int pid = conn.query("SELECT pg_backend_pid()").execute().await(10, TimeUnit.SECONDS).iterator().next().getInteger(0);
      Path backend = Path.of("/proc/" + pid + "/task");
      // What the gate would send: the bounded text and its columns.
      List<String> bounded = new ArrayList<>();
      List<List<ResultShape.Column>> columns = new ArrayList<>();
      for (String sql : corpus) {
        String b = gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).toJson().getString("sql");
        bounded.add(b);
        columns.add(ResultShape.columns(ReadOnlyExecutor.describe(conn, b).await(10, TimeUnit.SECONDS)));
      }
      int[] seq = {0};
      for (int pass = 1; pass <= 3; pass++) {
        out.append("pass ").append(pass).append('\n');
        for (int v = 0; v <= VARIANTS.size() + 1; v++) {
          Layers layers = v < VARIANTS.size() ? VARIANTS.get(v) : null;
          boolean whole = v == VARIANTS.size() + 1;
          Path pgTasks = whole ? Path.of("/proc") : backend;
          int warm = pass == 1 ? 6 : 1;
          for (int w = 0; w < warm; w++) {
            for (int i = 0; i < corpus.size(); i++) {
              if (whole) gate.submit(GateRequest.run(corpus.get(i))).await(30, TimeUnit.SECONDS);
              else run(gate.executor(), conn, layers, bounded.get(i), columns.get(i), seq, names);
            }
          }
          long pg0 = GateBenchmark.cpuTicks(pgTasks, "postgres");
          long loops0 = GateBenchmark.cpuTicks(Path.of("/proc/self/task"), "vert.x-eventloo");
          long t0 = System.nanoTime();
          int n = 0;
          for (int r = 0; r < 8; r++) {
            for (int i = 0; i < corpus.size(); i++, n++) {
              if (whole) gate.submit(GateRequest.run(corpus.get(i))).await(30, TimeUnit.SECONDS);
              else run(gate.executor(), conn, layers, bounded.get(i), columns.get(i), seq, names);
            }
          }
          long wall = System.nanoTime() - t0;
          long pg = GateBenchmark.cpuTicks(pgTasks, "postgres") - pg0;
          long loops = GateBenchmark.cpuTicks(Path.of("/proc/self/task"), "vert.x-eventloo") - loops0;
          out.append(String.format(Locale.ROOT, "  %-18s wall %.3f ms, PostgreSQL %.3f ms, event loops %.3f ms%n",
              whole ? "the whole gate" : layers == null ? "directly" : layers.name(), wall / 1e6 / n, pg * 10.0 / n, loops * 10.0 / n));
        }
      }
      conn.close().await(10, TimeUnit.SECONDS);
    } finally {
      pool.close().await(10, TimeUnit.SECONDS);
      gate.close().await(10, TimeUnit.SECONDS);
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    System.out.print(out);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "gate-layers.txt"), out);
  }

  /** One query the gate's way with {@code layers} (null: directly), run to its end, reset included. */
  private static void run(ReadOnlyExecutor executor, SqlConnection conn, Layers layers, String bounded,
                          List<ResultShape.Column> columns, int[] seq, NextStatementName names) throws Exception {
    if (layers == null) {
      conn.preparedQuery(bounded).execute().await(30, TimeUnit.SECONDS);
      return;
    }
    String name = "layers_" + (++seq[0]);
    Future<?> begun = conn.query("BEGIN TRANSACTION READ ONLY" + (layers.settings() ? "; SET LOCAL statement_timeout = 5000; "
        + "SET LOCAL lock_timeout = 1000; SET LOCAL standard_conforming_strings = on; SELECT 1" : "")).execute();
    Future<?> described = layers.description() ? ReadOnlyExecutor.describe(conn, bounded) : Future.succeededFuture();
    if (layers.named()) {
      // The shaped statement parsed as a named statement of the protocol, planned by name, its rows fetched from it.
      String protocolName = names.next();
      Future<PreparedStatement> statement = conn.prepare(ResultShape.shaped(bounded, columns, true, 201));
      Future<?> explained = conn.query("SET LOCAL statement_timeout = 1500; EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE \""
          + protocolName + "\"; SET LOCAL statement_timeout = 5000").execute()
          .map(rows -> new JsonArray(String.valueOf(rows.next().iterator().next().getValue(0))));
      Future.all(begun, described, statement, explained)
          .compose(all -> statement.result().cursor().read(201))
          .compose(rows -> Future.all(conn.query("ROLLBACK").execute(), conn.query("DISCARD ALL").execute()))
          .await(30, TimeUnit.SECONDS);
      return;
    }
    Future<?> prepared = executor.executeUnnamed(conn, "PREPARE " + name + " AS "
        + (layers.clip() ? ResultShape.shaped(bounded, columns, true, 201) : bounded));
    Future<?> planned = !layers.plan() ? Future.succeededFuture()
        : conn.query("SET LOCAL statement_timeout = 1500; EXPLAIN (FORMAT JSON" + (layers.verbose() ? ", VERBOSE" : "")
            + ") EXECUTE " + name + "; SET LOCAL statement_timeout = 5000").execute()
            .map(rows -> {
              Object plan = rows.next().iterator().next().getValue(0);
              return plan instanceof JsonArray a ? a : new JsonArray(String.valueOf(plan));
            });
    Future<PreparedStatement> runner = conn.prepare("EXECUTE " + name);
    Future.all(begun, described, prepared, planned, runner)
        .compose(all -> runner.result().cursor().read(201))
        .compose(rows -> {
          Future<?> rolledBack = conn.query("ROLLBACK").execute();
          Future<?> reset = layers.discard() ? conn.query("DISCARD ALL").execute() : conn.query("DEALLOCATE " + name).execute();
          return Future.all(rolledBack, reset);
        })
        .await(30, TimeUnit.SECONDS);
  }

  /**
   * The name the client gives the next statement it prepares on {@code conn} ({@code SqlConnection.prepare}: a named
   * statement of the protocol), read from its encoder's counter. The gate cannot use this: the client assigns the name
   * only as it writes the Parse, and tells it nobody, so planning that statement by name in the same round trip means
   * reading the client's private fields, as this does. It is here to measure what the two messages it saves are worth
   * (the PREPARE's execution and the runner's Parse of EXECUTE).
   */
  static final class NextStatementName {
    private final Object sequence;
    private final java.lang.reflect.Field counter;

    NextStatementName(SqlConnection conn) throws ReflectiveOperationException {
      io.vertx.sqlclient.internal.Connection c = ((io.vertx.sqlclient.internal.SqlConnectionBase<?>) conn).unwrap();
      while (!(c instanceof io.vertx.sqlclient.impl.SocketConnectionBase) && c.unwrap() != c) c = c.unwrap();
      Object codec = ((io.vertx.sqlclient.impl.SocketConnectionBase) c).socket().channelHandlerContext().pipeline().get("codec");
      Object encoder = field(codec, "encoder");
      sequence = field(encoder, "psSeq");
      counter = sequence.getClass().getDeclaredField("i");
      counter.setAccessible(true);
    }

    /** The client's HexSequence: at least three leading zeros and seven digits, upper-case. */
    String next() throws IllegalAccessException {
      String hex = "000" + Long.toHexString(counter.getLong(sequence)).toUpperCase(Locale.ROOT);
      return "0".repeat(Math.max(0, 7 - hex.length())) + hex;
    }

    private static Object field(Object owner, String name) throws ReflectiveOperationException {
      java.lang.reflect.Field f = owner.getClass().getDeclaredField(name);
      f.setAccessible(true);
      return f.get(owner);
    }
  }
}
