package dev.sqlagent.querylog;

import dev.sqlagent.state.StateDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.Flush;
import dev.sqlagent.contract.StateMessages.Keep;
import dev.sqlagent.contract.StateMessages.Kept;
import dev.sqlagent.contract.StateMessages.LogFacts;
import dev.sqlagent.contract.StateMessages.LogStatus;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.state.StateStore;
import dev.sqlagent.testing.TcpProxy;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.testing.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The query log against the real database, with a TCP proxy in front of it to make it unavailable. */
class QueryLogTest {

  static final TestDatabase DB = TestDatabase.get();

  Vertx vertx;
  TcpProxy proxy;
  String deployment;
  LogCapture logLines;
  final List<LogFacts> facts = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    PgUrl a = DB.adminUrl();
    proxy = TcpProxy.start(vertx, a.host(), a.port()).await(10, TimeUnit.SECONDS);
    vertx.eventBus().<JsonObject>consumer(Addresses.QUERY_LOG_FACTS, m -> facts.add(LogFacts.fromJson(m.body())));
    logLines = LogCapture.of(QueryLogVerticle.class);
  }

  @AfterEach
  void tearDown() throws Exception {
    logLines.close();
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  void deploy(Map<String, String> env) throws Exception {
    deploy(env, true);
  }

  /** @param fromAnswers false: as in cluster mode, rows come only through QUERY_LOG_KEEP */
  void deploy(Map<String, String> env, boolean fromAnswers) throws Exception {
    PgUrl a = DB.adminUrl();
    StateStore viaProxy = new StateStore(new PgUrl("127.0.0.1", proxy.port(), a.user(), a.password(),
        DB.state().owner().database()), DB.state().logPassword());
    deployment = vertx.deployVerticle(new QueryLogVerticle(StateDatabase.open(vertx, viaProxy, 1),
        QueryLogVerticle.Limits.from(dev.sqlagent.config.AppConfig.load(env)), fromAnswers)).await(20, TimeUnit.SECONDS);
  }

  @Test
  void oneRowPerUserFacingAnswerAndNoneForEvaluation() throws Exception {
    deploy(Map.of());
    Map<String, JsonObject> bySource = new HashMap<>();
    for (String source : List.of("http", "ws", "eventbus", "cli", "mcp", "eval")) {
      JsonObject a = answer(source);
      bySource.put(source, a);
      vertx.eventBus().publish(Addresses.ANSWERS, a);
    }
    LogStatus status = flush();
    assertThat(status.written()).isEqualTo(5);
    assertThat(status.dropped()).isZero();

    List<Map<String, Object>> rows = rows(bySource.values().stream().map(a -> a.getString("run_id")).toList());
    assertThat(rows).hasSize(5);
    assertThat(rows).extracting(r -> r.get("source")).containsExactlyInAnyOrder("http", "ws", "eventbus", "cli", "mcp");
    Map<String, Object> http = rows.stream().filter(r -> r.get("source").equals("http")).findFirst().orElseThrow();
    JsonObject a = bySource.get("http");
    assertThat(http.get("question")).isEqualTo(a.getString("question"));
    assertThat(http.get("mode")).isEqualTo("agent");
    assertThat(http.get("final_sql")).isEqualTo(a.getString("sql"));
    assertThat(http.get("attempts_used")).isEqualTo(2);
    assertThat(http.get("error_types")).isEqualTo(List.of("unknown_column"));
    assertThat(http.get("gave_up")).isEqualTo(false);
    assertThat(http.get("refused")).isEqualTo(false);
    assertThat(http.get("rows_returned")).isEqualTo(3);
    assertThat(http.get("latency_ms")).isEqualTo(1234);
    assertThat(http.get("prompt_tokens")).isEqualTo(700);
    assertThat(http.get("completion_tokens")).isEqualTo(80);
    assertThat(http.get("cost_usd").toString()).isEqualTo("0.001250");
    assertThat(http.get("model")).isEqualTo("fake-model");
    assertThat(http.get("asked_before_logged_ms")).isInstanceOfSatisfying(Double.class, d -> assertThat(d).isBetween(1_000.0, 60_000.0));
  }

  @Test
  void aGiveUpKeepsEveryErrorTypeAndNoRowCount() throws Exception {
    deploy(Map.of());
    JsonObject a = answer("http").put("gave_up", true).put("attempts", 3).put("row_count", 0)
        .put("history", new JsonArray()
            .add(attempt(1, "syntax_error", "add_missing_keyword"))
            .add(attempt(2, "unknown_column", "use_listed_columns"))
            .add(attempt(3, "timeout", null)));
    vertx.eventBus().publish(Addresses.ANSWERS, a);
    flush();
    Map<String, Object> row = rows(List.of(a.getString("run_id"))).get(0);
    assertThat(row.get("error_types")).isEqualTo(List.of("syntax_error", "unknown_column", "timeout"));
    assertThat(row.get("gave_up")).isEqualTo(true);
    assertThat(row.get("rows_returned")).isNull();
  }

  @Test
  void rowsWaitWhileTheDatabaseIsUnavailableAndAreWrittenWhenItIsBack() throws Exception {
    deploy(Map.of());
    proxy.cut();
    List<String> runs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      JsonObject a = answer("http");
      runs.add(a.getString("run_id"));
      vertx.eventBus().publish(Addresses.ANSWERS, a);
    }
    LogStatus during = awaitStatus(s -> s.failedWrites() >= 2 && s.buffered() == 4);
    assertThat(during.written()).isZero();
    assertThat(during.lastError()).isNotBlank();
    assertThat(during.retrying()).isTrue();
    assertThat(rows(runs)).isEmpty();

    proxy.restore();
    LogStatus after = awaitStatus(s -> s.buffered() == 0);
    assertThat(after.written()).isEqualTo(4);
    assertThat(after.dropped()).isZero();
    assertThat(rows(runs)).hasSize(4);
  }

  @Test
  void aFullBufferDropsRowsCountedLoggedAndPublished() throws Exception {
    deploy(Map.of("SQLAGENT_LOG_BUFFER_ROWS", "2"));
    proxy.cut();
    List<String> runs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      JsonObject a = answer("ws");
      runs.add(a.getString("run_id"));
      vertx.eventBus().publish(Addresses.ANSWERS, a);
    }
    LogStatus during = awaitStatus(s -> s.dropped() == 3);
    assertThat(during.buffered()).isEqualTo(2);
    assertThat(facts).anySatisfy(f -> assertThat(f.dropped()).isEqualTo(3));
    assertThat(logLines.events()).filteredOn(e -> e.getLevel() == Level.ERROR && e.getFormattedMessage().contains("DROPPED"))
        .hasSize(3)
        .allSatisfy(e -> assertThat(e.getFormattedMessage()).contains("buffer is full"));
    // The first two (the ones that were buffered) are written once the database is back; the rest are gone.
    proxy.restore();
    LogStatus after = flush();
    assertThat(after.written()).isEqualTo(2);
    assertThat(rows(runs)).extracting(r -> r.get("run_id")).containsExactlyInAnyOrder(runs.get(0), runs.get(1));
  }

  @Test
  void aRowTheDatabaseRejectsIsIsolatedAndCountedAndTheOthersAreWritten() throws Exception {
    deploy(Map.of());
    proxy.cut();  // so the three end up in one batch
    JsonObject good1 = answer("http");
    JsonObject bad = answer("http").put("cost_usd", 12_345_678.0);  // beyond numeric(12,6)
    JsonObject good2 = answer("http");
    for (JsonObject a : List.of(good1, bad, good2)) vertx.eventBus().publish(Addresses.ANSWERS, a);
    awaitStatus(s -> s.buffered() == 3);
    proxy.restore();
    LogStatus after = flush();
    assertThat(after.written()).isEqualTo(2);
    assertThat(after.dropped()).isEqualTo(1);
    assertThat(rows(List.of(good1.getString("run_id"), bad.getString("run_id"), good2.getString("run_id"))))
        .extracting(r -> r.get("run_id")).containsExactlyInAnyOrder(good1.getString("run_id"), good2.getString("run_id"));
    assertThat(logLines.events()).anySatisfy(e -> assertThat(e.getFormattedMessage())
        .contains("DROPPED the row of run " + bad.getString("run_id")).contains("22003"));
  }

  @Test
  void theSameRunIsNeverWrittenTwice() throws Exception {
    deploy(Map.of());
    JsonObject a = answer("cli");
    vertx.eventBus().publish(Addresses.ANSWERS, a);
    flush();
    vertx.eventBus().publish(Addresses.ANSWERS, a);
    LogStatus s = flush();
    assertThat(s.dropped()).isZero();
    assertThat(rows(List.of(a.getString("run_id")))).hasSize(1);
  }

  @Test
  void stoppingRightAfterAnAnswerStillWritesIt() throws Exception {
    // What `sql-agent ask` does: the answer arrives, the command closes Vert.x at once.
    deploy(Map.of());
    JsonObject a = answer("cli");
    vertx.eventBus().publish(Addresses.ANSWERS, a);
    vertx.undeploy(deployment).await(30, TimeUnit.SECONDS);
    assertThat(rows(List.of(a.getString("run_id")))).hasSize(1);
  }

  @Test
  void stoppingWithUnwrittenRowsReportsThemAsDropped() throws Exception {
    deploy(Map.of());
    proxy.cut();
    JsonObject a = answer("mcp");
    vertx.eventBus().publish(Addresses.ANSWERS, a);
    awaitStatus(s -> s.buffered() == 1 && s.failedWrites() >= 1);
    vertx.undeploy(deployment).await(30, TimeUnit.SECONDS);
    assertThat(logLines.events()).anySatisfy(e -> {
      assertThat(e.getLevel()).isEqualTo(Level.ERROR);
      assertThat(e.getFormattedMessage()).contains("1 unwritten row").contains(a.getString("run_id"));
    });
  }

  // --- keep: the row confirmed before the answer goes out (cluster mode's only input) ------------------

  @Test
  void aKeptAnswerIsCommittedWhenTheReplyComesAndAskingAgainWritesNoSecondRow() throws Exception {
    deploy(Map.of(), false);
    JsonObject published = answer("http");
    vertx.eventBus().publish(Addresses.ANSWERS, published);  // not an input here: the edges keep what they deliver
    JsonObject a = answer("ws");
    Kept reply = keep(a, 10_000);
    assertThat(reply.kept()).isTrue();
    assertThat(rows(List.of(a.getString("run_id")))).hasSize(1);  // no flush: committed before the reply
    assertThat(keep(a, 10_000).kept()).isTrue();
    assertThat(keep(answer("eval"), 10_000).kept()).isFalse();
    LogStatus s = flush();
    assertThat(s.dropped()).isZero();
    assertThat(rows(List.of(a.getString("run_id"), published.getString("run_id")))).extracting(r -> r.get("run_id"))
        .containsExactly(a.getString("run_id"));
  }

  @Test
  void aKeepWaitsWhileTheDatabaseIsAwayAndARetriedKeepIsOneRow() throws Exception {
    deploy(Map.of(), false);
    proxy.cut();
    JsonObject a = answer("mcp");
    io.vertx.core.Future<Kept> first = new StateClient(vertx, 500).keep(new Keep(a, System.currentTimeMillis()));
    assertThat(first.toCompletionStage().toCompletableFuture().handle((m, e) -> e).get(5, TimeUnit.SECONDS))
        .as("no confirmation while nothing is written").isNotNull();
    // The edge asks again: the same buffered row, not a second one.
    io.vertx.core.Future<Kept> again = new StateClient(vertx, 30_000).keep(new Keep(a, System.currentTimeMillis()));
    assertThat(awaitStatus(st -> st.failedWrites() >= 1).buffered()).isEqualTo(1);
    proxy.restore();
    assertThat(again.await(30, TimeUnit.SECONDS).kept()).isTrue();
    assertThat(rows(List.of(a.getString("run_id")))).hasSize(1);
    assertThat(flush().written()).isEqualTo(1);
  }

  @Test
  void aKeptRowTheDatabaseRejectsFails422AndAStoppingWriterHandsItsWaitingRowsBack() throws Exception {
    deploy(Map.of(), false);
    JsonObject bad = answer("http").put("cost_usd", 12_345_678.0);  // beyond numeric(12,6)
    Throwable refused = new StateClient(vertx, 30_000).keep(new Keep(bad, null))
        .toCompletionStage().toCompletableFuture().handle((m, e) -> e).get(20, TimeUnit.SECONDS);
    assertThat(refused).isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.REJECTED));

    proxy.cut();
    JsonObject waiting = answer("http");
    io.vertx.core.Future<Kept> kept = new StateClient(vertx, 60_000).keep(new Keep(waiting, null));
    awaitStatus(st -> st.buffered() == 1 && st.failedWrites() >= 1);
    vertx.undeploy(deployment).await(30, TimeUnit.SECONDS);
    Throwable handedBack = kept.toCompletionStage().toCompletableFuture().handle((m, e) -> e).get(5, TimeUnit.SECONDS);
    assertThat(handedBack).isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.UNAVAILABLE));
    // Not dropped: the edge asks the next writer.
    assertThat(logLines.events()).noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains(waiting.getString("run_id")));
  }

  @Test
  void theWorkerAndTheEdgeKeepingOneAnswerAreBothConfirmedWithOneRowEvenBeforeAWriterIsThere() throws Exception {
    // Clustered, the worker that produced an answer and the edge that delivers it both keep it, often at the
    // same moment, and before a writer is back after a takeover: each asks again until one confirms.
    JsonObject a = answer("ws");
    JsonObject b = answer("http");
    AnswerKeeper worker = new AnswerKeeper(vertx, "the worker");
    AnswerKeeper edge = new AnswerKeeper(vertx, "the edge");
    io.vertx.core.Future<Void> byWorker = worker.keep(a);
    io.vertx.core.Future<Void> byEdge = edge.keep(a.copy().put("worker", "127.0.0.1:5702"));
    Thread.sleep(1_000);
    assertThat(byWorker.isComplete()).as("no writer yet").isFalse();
    proxy.cut();
    deploy(Map.of(), false);
    io.vertx.core.Future<Void> again = edge.keep(b);
    io.vertx.core.Future<Void> twice = worker.keep(b);
    awaitStatus(st -> st.buffered() == 2 && st.failedWrites() >= 1);
    proxy.restore();
    byWorker.await(30, TimeUnit.SECONDS);
    byEdge.await(30, TimeUnit.SECONDS);
    again.await(30, TimeUnit.SECONDS);
    twice.await(30, TimeUnit.SECONDS);
    assertThat(rows(List.of(a.getString("run_id"), b.getString("run_id")))).extracting(r -> r.get("run_id"))
        .containsExactlyInAnyOrder(a.getString("run_id"), b.getString("run_id"));
    assertThat(flush().dropped()).isZero();
    // An answer that is not logged (evaluation) is kept at once, with no writer asked.
    assertThat(edge.keep(answer("eval")).await(1, TimeUnit.SECONDS)).isNull();
  }

  Kept keep(JsonObject answer, long timeoutMs) throws Exception {
    return new StateClient(vertx, timeoutMs).keep(new Keep(answer, System.currentTimeMillis()))
        .await(timeoutMs + 5_000, TimeUnit.MILLISECONDS);
  }

  // --- helpers -------------------------------------------------------------------------------------

  static JsonObject answer(String source) {
    return new JsonObject()
        .put("question", "How many bills were paid in cash? (" + source + ")")
        .put("answer", "3 rows").put("sql", "SELECT bill_id FROM bills WHERE pay_mode = 'CASH' LIMIT 200")
        .put("columns", new JsonArray()).put("rows", new JsonArray()).put("row_count", 3).put("truncated", false)
        .put("attempts", 2).put("tables_used", new JsonArray().add("bills")).put("refused", false).put("gave_up", false)
        .put("history", new JsonArray().add(attempt(1, "unknown_column", "use_listed_columns")))
        .put("tokens", new JsonObject().put("prompt", 700).put("completion", 80)).put("cost_usd", 0.00125)
        .put("latency_ms", 1234).put("run_id", UUID.randomUUID().toString()).put("mode", "agent")
        .put("model", "fake-model").put("source", source);
  }

  static JsonObject attempt(int n, String errorType, String strategy) {
    return new JsonObject().put("attempt", n).put("sql", "SELECT x").put("error_type", errorType)
        .put("message", "m").put("strategy", strategy);
  }

  LogStatus flush() throws Exception {
    return new StateClient(vertx, 20_000).flushLog(new Flush(15_000L)).await(20, TimeUnit.SECONDS);
  }

  LogStatus awaitStatus(Predicate<LogStatus> until) throws Exception {
    long deadline = System.currentTimeMillis() + 20_000;
    LogStatus s;
    do {
      s = new StateClient(vertx, 5_000).logStatus().await(5, TimeUnit.SECONDS);
      if (until.test(s)) return s;
      Thread.sleep(50);
    } while (System.currentTimeMillis() < deadline);
    throw new AssertionError("status never reached the expected state; last: " + s.toJson().encode());
  }

  /** The rows of these runs, read as the admin (the log role cannot read its own table). */
  static List<Map<String, Object>> rows(List<String> runIds) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    try (Connection c = DB.state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("""
             SELECT *, extract(epoch FROM now() - asked_at) * 1000 AS asked_before_logged_ms
             FROM agent_query_log WHERE run_id = ANY(?)""")) {
      ps.setArray(1, c.createArrayOf("text", runIds.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Map<String, Object> row = new HashMap<>();
          for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            Object v = rs.getObject(i);
            if (v instanceof Array arr) v = List.of((Object[]) arr.getArray());
            if (v instanceof java.math.BigDecimal d && rs.getMetaData().getColumnName(i).equals("asked_before_logged_ms")) {
              v = d.doubleValue();
            }
            row.put(rs.getMetaData().getColumnName(i), v);
          }
          out.add(row);
        }
      }
    }
    return out;
  }
}
