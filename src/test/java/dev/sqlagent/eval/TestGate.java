package dev.sqlagent.eval;

import dev.sqlagent.results.QueryResult;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The gate on the test database and its grading mode as the harness calls it ({@link GradingGate}), with a
 * blocking {@link #run} for tests (never called on an event loop).
 */
final class TestGate implements AutoCloseable {

  final Vertx vertx;
  final GradingGate grading;
  private final boolean ownVertx;

  private TestGate(Vertx vertx, boolean ownVertx) {
    this.vertx = vertx;
    this.ownVertx = ownVertx;
    this.grading = new GradingGate(vertx, 60_000);
  }

  /** The gate in a Vert.x instance of its own. */
  static TestGate start() throws Exception {
    return deploy(Vertx.vertx(), true);
  }

  /** The gate deployed into {@code vertx} (closed with it). */
  static TestGate deployInto(Vertx vertx) throws Exception {
    return deploy(vertx, false);
  }

  private static TestGate deploy(Vertx vertx, boolean own) throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx.deployVerticle(new ExecutionVerticle(db.target(), Gate.Settings.from(db.config(Map.of()))))
        .await(60, TimeUnit.SECONDS);
    return new TestGate(vertx, own);
  }

  /** Every row of {@code sql} through the grading mode; the gate's refusal or PostgreSQL's error as thrown. */
  QueryResult run(String sql) throws Grader.QueryFailedException {
    try {
      return grading.run(sql).toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Grader.QueryFailedException f) throw f;
      throw new IllegalStateException(e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws Exception {
    if (ownVertx) vertx.close().await(30, TimeUnit.SECONDS);
  }
}
