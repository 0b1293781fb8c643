package dev.sqlagent.eval;

import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Evaluation tests that grade through a real gate: one Vert.x and one gate for the class. */
abstract class GateEvalTest {

  static Vertx vertx;
  static TestGate db;

  @BeforeAll
  static void startTheGate() throws Exception {
    vertx = Vertx.vertx();
    db = TestGate.deployInto(vertx);
  }

  @AfterAll
  static void stopTheGate() throws Exception {
    db.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
